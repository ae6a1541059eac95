CREATE TABLE `operator_guardrails` (
	`operator_id` text PRIMARY KEY NOT NULL,
	`current` text NOT NULL,
	`pending` text,
	`activates_at` integer,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `uploads` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`operator_id` text NOT NULL,
	`cid` text NOT NULL,
	`size` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `uploads_operator_idx` ON `uploads` (`operator_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `compute_jobs` ADD `agent_id` text;--> statement-breakpoint
ALTER TABLE `compute_jobs` ADD `idempotency_key` text;--> statement-breakpoint
ALTER TABLE `compute_jobs` ADD `request_hash` text;--> statement-breakpoint
CREATE INDEX `compute_jobs_queue_idx` ON `compute_jobs` (`status`,`operator_id`,`model`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `compute_jobs_idempotency_uq` ON `compute_jobs` (`operator_id`,`idempotency_key`);--> statement-breakpoint
ALTER TABLE `faucet_claims` ADD `client_address` text;--> statement-breakpoint
ALTER TABLE `faucet_claims` ADD `starts_cooldown` integer DEFAULT true NOT NULL;--> statement-breakpoint
CREATE INDEX `faucet_client_idx` ON `faucet_claims` (`client_address`,`created_at`);--> statement-breakpoint
ALTER TABLE `ledger_entries` ADD `from_allocation` integer;--> statement-breakpoint
ALTER TABLE `tasks` ADD `diagnostic` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `tasks_ipfs_cid_idx` ON `tasks` (`ipfs_cid`);--> statement-breakpoint
CREATE INDEX `tasks_receipt_cid_idx` ON `tasks` (`receipt_cid`);--> statement-breakpoint
CREATE INDEX `x402_operator_scheme_idx` ON `x402_payments` (`operator_id`,`scheme`,`created_at`);