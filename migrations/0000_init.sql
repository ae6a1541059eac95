CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`operator_id` text NOT NULL,
	`agent_id` text,
	`label` text,
	`key_hash` text NOT NULL,
	`first4` text NOT NULL,
	`last4` text NOT NULL,
	`rate_limit_rpm` integer NOT NULL,
	`is_test_key` integer DEFAULT false NOT NULL,
	`test_uses_remaining` integer,
	`last_used_at` integer,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	FOREIGN KEY (`operator_id`) REFERENCES `operators`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_hash_uq` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_operator_idx` ON `api_keys` (`operator_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `jobs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`kind` text NOT NULL,
	`payload` text NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`run_at` integer NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`max_attempts` integer DEFAULT 5 NOT NULL,
	`last_error` text,
	`dedupe_key` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `jobs_due_idx` ON `jobs` (`status`,`run_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `jobs_dedupe_uq` ON `jobs` (`dedupe_key`);--> statement-breakpoint
CREATE TABLE `meta` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `operators` (
	`id` text PRIMARY KEY NOT NULL,
	`login` text NOT NULL,
	`password_hash` text,
	`github_id` text,
	`email` text,
	`display_name` text,
	`tier` text DEFAULT 'FREE' NOT NULL,
	`tier_override` text,
	`status` text DEFAULT 'ACTIVE' NOT NULL,
	`role` text DEFAULT 'operator' NOT NULL,
	`flags` text DEFAULT '{}' NOT NULL,
	`wallet_address` text,
	`first_task_at` integer,
	`token_version` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `operators_login_uq` ON `operators` (`login`);--> statement-breakpoint
CREATE UNIQUE INDEX `operators_github_id_uq` ON `operators` (`github_id`);