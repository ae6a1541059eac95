CREATE TABLE `approvals` (
	`id` text PRIMARY KEY NOT NULL,
	`operator_id` text NOT NULL,
	`task_id` text NOT NULL,
	`agent_id` text NOT NULL,
	`action_type` text,
	`operation` text,
	`target` text,
	`requested_value` real,
	`currency` text,
	`trigger_policy` text NOT NULL,
	`trigger_reason` text NOT NULL,
	`policy_evaluations` text NOT NULL,
	`evidence_refs` text NOT NULL,
	`decision` text NOT NULL,
	`decided_by` text,
	`decided_at` integer,
	`decision_note` text,
	`callback_url` text,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `approvals_operator_idx` ON `approvals` (`operator_id`,`decision`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `approvals_task_uq` ON `approvals` (`task_id`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`operator_id` text NOT NULL,
	`approval_id` text,
	`event` text NOT NULL,
	`url` text NOT NULL,
	`body` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`last_status` integer,
	`last_error` text,
	`next_attempt_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_operator_idx` ON `webhook_deliveries` (`operator_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `webhook_secrets` (
	`operator_id` text PRIMARY KEY NOT NULL,
	`generation` integer NOT NULL,
	`updated_at` integer NOT NULL
);
