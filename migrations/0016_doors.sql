-- The doors (docs/doors.md): which door made a task, what its compute call carries besides the
-- prompt (a conversation, sampling parameters), its token usage and estimated cost, and the price
-- table the cost comes from.
CREATE TABLE `model_prices` (
	`model` text PRIMARY KEY NOT NULL,
	`input_usd_per_mtok` real NOT NULL,
	`output_usd_per_mtok` real NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `tasks` ADD `door` text;--> statement-breakpoint
ALTER TABLE `tasks` ADD `compute_request` text;--> statement-breakpoint
ALTER TABLE `tasks` ADD `prompt_tokens` integer;--> statement-breakpoint
ALTER TABLE `tasks` ADD `completion_tokens` integer;--> statement-breakpoint
ALTER TABLE `tasks` ADD `cost_usd` real;