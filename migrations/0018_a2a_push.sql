-- A2A push notifications (docs/doors.md, "A2A", "Push notifications"): each task's push configs
-- (token and credentials sealed with the data key), and the config a webhook delivery POSTs for.
CREATE TABLE `a2a_push_configs` (
	`id` text PRIMARY KEY NOT NULL,
	`task_id` text NOT NULL,
	`config_id` text NOT NULL,
	`operator_id` text NOT NULL,
	`agent_id` text,
	`url` text NOT NULL,
	`token_sealed` text,
	`auth_scheme` text,
	`auth_credentials_sealed` text,
	`protocol_version` text NOT NULL,
	`created_at` integer NOT NULL,
	`done_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `a2a_push_configs_task_uq` ON `a2a_push_configs` (`task_id`,`config_id`);--> statement-breakpoint
CREATE INDEX `a2a_push_configs_live_idx` ON `a2a_push_configs` (`operator_id`) WHERE done_at IS NULL;--> statement-breakpoint
CREATE INDEX `a2a_push_configs_done_idx` ON `a2a_push_configs` (`done_at`) WHERE done_at IS NOT NULL;--> statement-breakpoint
ALTER TABLE `webhook_deliveries` ADD `push_config_id` text;