CREATE TABLE `compliance_certificates` (
	`id` text PRIMARY KEY NOT NULL,
	`operator_id` text NOT NULL,
	`issued_at` integer NOT NULL,
	`auto_key` text,
	`certificate` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `compliance_operator_idx` ON `compliance_certificates` (`operator_id`,`issued_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `compliance_auto_uq` ON `compliance_certificates` (`auto_key`);--> statement-breakpoint
CREATE TABLE `tos_acceptances` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`operator_id` text NOT NULL,
	`version` text NOT NULL,
	`ipfs_cid` text NOT NULL,
	`task_id` text NOT NULL,
	`accepted_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tos_acceptances_uq` ON `tos_acceptances` (`operator_id`,`version`);--> statement-breakpoint
CREATE TABLE `tos_versions` (
	`seq` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`version` text NOT NULL,
	`text` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tos_versions_version_uq` ON `tos_versions` (`version`);--> statement-breakpoint
INSERT INTO `tos_versions` (`version`, `text`, `created_at`) VALUES ('1', 'TaskGate Terms of Service, version 1. You operate your agents and keys and are responsible for the tasks they submit and for keeping your credentials safe. This server records each task, its verification and its signed receipt, and publishes task documents on IPFS (outputs only as hashes unless you choose otherwise). Do not submit unlawful content or content you have no right to process. The administrator of this server may suspend an account that breaks these terms. The service is provided as is, without warranty.', CAST(strftime('%s', 'now') AS INTEGER) * 1000);
