CREATE TABLE `agents` (
	`id` text PRIMARY KEY NOT NULL,
	`operator_id` text NOT NULL,
	`display_name` text NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`model` text NOT NULL,
	`agent_version` text NOT NULL,
	`capabilities` text NOT NULL,
	`status` text DEFAULT 'ACTIVE' NOT NULL,
	`key_id` text,
	`state_root` text NOT NULL,
	`metrics` text DEFAULT '{}' NOT NULL,
	`total_tasks` integer DEFAULT 0 NOT NULL,
	`verified_tasks` integer DEFAULT 0 NOT NULL,
	`failed_tasks` integer DEFAULT 0 NOT NULL,
	`last_active_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`operator_id`) REFERENCES `operators`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `agents_operator_idx` ON `agents` (`operator_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `attestations` (
	`uid` text PRIMARY KEY NOT NULL,
	`task_id` text NOT NULL,
	`operator_id` text NOT NULL,
	`attestation` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `compute_job_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`job_id` text NOT NULL,
	`event` text NOT NULL,
	`data` text NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `compute_job_events_job_idx` ON `compute_job_events` (`job_id`,`id`);--> statement-breakpoint
CREATE TABLE `compute_jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`operator_id` text NOT NULL,
	`task_id` text,
	`model` text NOT NULL,
	`request` text NOT NULL,
	`status` text NOT NULL,
	`result` text,
	`error_code` text,
	`error_message` text,
	`credits_charged` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`started_at` integer,
	`finished_at` integer
);
--> statement-breakpoint
CREATE INDEX `compute_jobs_status_idx` ON `compute_jobs` (`status`,`created_at`);--> statement-breakpoint
CREATE TABLE `credit_balances` (
	`operator_id` text PRIMARY KEY NOT NULL,
	`allocation_balance` integer NOT NULL,
	`purchased_balance` integer DEFAULT 0 NOT NULL,
	`monthly_allocation` integer NOT NULL,
	`last_reset_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `ledger_entries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`operator_id` text NOT NULL,
	`delta` integer NOT NULL,
	`balance_after` integer NOT NULL,
	`bucket` text NOT NULL,
	`reason` text NOT NULL,
	`task_id` text,
	`ref` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `ledger_operator_idx` ON `ledger_entries` (`operator_id`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `ledger_ref_uq` ON `ledger_entries` (`ref`);--> statement-breakpoint
CREATE TABLE `provider_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`provider_id` text NOT NULL,
	`secret` text NOT NULL,
	`first4` text NOT NULL,
	`last4` text NOT NULL,
	`rpm` integer NOT NULL,
	`concurrency` integer NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`provider_id`) REFERENCES `providers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `providers` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`base_url` text,
	`models` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `providers_name_uq` ON `providers` (`name`);--> statement-breakpoint
CREATE TABLE `task_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`task_id` text NOT NULL,
	`stage` integer NOT NULL,
	`name` text NOT NULL,
	`status` text NOT NULL,
	`detail` text,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `task_events_task_idx` ON `task_events` (`task_id`,`id`);--> statement-breakpoint
CREATE TABLE `tasks` (
	`id` text PRIMARY KEY NOT NULL,
	`operator_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`key_id` text,
	`task_type` text NOT NULL,
	`prompt` text NOT NULL,
	`model` text NOT NULL,
	`provider` text NOT NULL,
	`metadata` text,
	`action` text,
	`status` text NOT NULL,
	`stage` integer DEFAULT 0 NOT NULL,
	`failure_code` text,
	`failure_message` text,
	`credits_charged` integer DEFAULT 0 NOT NULL,
	`output` text,
	`latency_ms` integer,
	`compute_job_id` text,
	`compute_started_at` integer,
	`compute_finished_at` integer,
	`ipfs_cid` text,
	`state_root` text,
	`verification_status` text,
	`verification_score` real,
	`verification_proof` text,
	`verification` text,
	`attestation_uid` text,
	`receipt_cid` text,
	`receipt` text,
	`idempotency_key` text,
	`request_hash` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`completed_at` integer,
	FOREIGN KEY (`operator_id`) REFERENCES `operators`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `tasks_created_idx` ON `tasks` (`created_at`);--> statement-breakpoint
CREATE INDEX `tasks_operator_idx` ON `tasks` (`operator_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `tasks_agent_idx` ON `tasks` (`agent_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `tasks_status_idx` ON `tasks` (`status`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `tasks_idempotency_uq` ON `tasks` (`operator_id`,`idempotency_key`);--> statement-breakpoint
DROP INDEX `jobs_dedupe_uq`;--> statement-breakpoint
CREATE UNIQUE INDEX `jobs_dedupe_pending_uq` ON `jobs` (`dedupe_key`) WHERE status = 'pending';