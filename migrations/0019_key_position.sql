ALTER TABLE `provider_keys` ADD `position` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Keys written before kept their list's order as insertion order (rowid): each key's place among its provider's.
UPDATE `provider_keys` SET `position` = (SELECT count(*) FROM `provider_keys` k WHERE k.`provider_id` = `provider_keys`.`provider_id` AND k.rowid < `provider_keys`.rowid);
