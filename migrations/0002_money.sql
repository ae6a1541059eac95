CREATE TABLE `faucet_claims` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`wallet` text NOT NULL,
	`operator_id` text,
	`amount` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `faucet_wallet_idx` ON `faucet_claims` (`wallet`,`created_at`);--> statement-breakpoint
CREATE TABLE `pioneer_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`operator_id` text NOT NULL,
	`kind` text NOT NULL,
	`points` integer NOT NULL,
	`ref` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `pioneer_ref_uq` ON `pioneer_events` (`ref`);--> statement-breakpoint
CREATE INDEX `pioneer_operator_idx` ON `pioneer_events` (`operator_id`,`id`);--> statement-breakpoint
CREATE TABLE `usdc_balances` (
	`address` text PRIMARY KEY NOT NULL,
	`balance` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `usdc_transfers` (
	`tx_hash` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`from_address` text,
	`to_address` text NOT NULL,
	`amount` integer NOT NULL,
	`auth_nonce` text,
	`memo` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `usdc_transfers_to_idx` ON `usdc_transfers` (`to_address`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `usdc_auth_nonce_uq` ON `usdc_transfers` (`from_address`,`auth_nonce`);--> statement-breakpoint
CREATE TABLE `wallet_nonces` (
	`nonce` text PRIMARY KEY NOT NULL,
	`operator_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`used_at` integer
);
--> statement-breakpoint
CREATE TABLE `x402_blocks` (
	`wallet` text PRIMARY KEY NOT NULL,
	`reason` text NOT NULL,
	`blocked_at` integer NOT NULL,
	`blocked_until` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `x402_payments` (
	`id` text PRIMARY KEY NOT NULL,
	`operator_id` text NOT NULL,
	`payer` text NOT NULL,
	`tx_hash` text NOT NULL,
	`scheme` text NOT NULL,
	`amount` integer NOT NULL,
	`credits` integer NOT NULL,
	`resource` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `x402_tx_uq` ON `x402_payments` (`tx_hash`);--> statement-breakpoint
CREATE INDEX `x402_payer_idx` ON `x402_payments` (`payer`,`created_at`);--> statement-breakpoint
CREATE TABLE `x402_strikes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`payer` text NOT NULL,
	`reason` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `x402_strikes_payer_idx` ON `x402_strikes` (`payer`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `operators_wallet_uq` ON `operators` (`wallet_address`);