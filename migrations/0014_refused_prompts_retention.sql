-- Free rows cannot fill the disk (docs/security.md, Limits): a task that fails before its debit
-- keeps its prompt's SHA-256 and length instead of the prompt; the retention job finds the old
-- ones through a partial index that holds only them. Rows refused before this migration keep
-- their prompts until that job deletes them. An agent-bound key lists its own agent's approval
-- requests through approvals_agent_idx.
ALTER TABLE `tasks` ADD `prompt_sha256` text;--> statement-breakpoint
ALTER TABLE `tasks` ADD `prompt_length` integer;--> statement-breakpoint
CREATE INDEX `tasks_refused_idx` ON `tasks` (`completed_at`) WHERE status = 'FAILED' AND stage <= 1;--> statement-breakpoint
CREATE INDEX `approvals_agent_idx` ON `approvals` (`agent_id`,`decision`,`created_at`);
