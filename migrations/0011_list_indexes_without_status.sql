-- The list indexes not led by the status no longer carry it at their end: a task changes status as
-- it runs, and an index holding the status moves the task's entry (rewriting a page) each time.
-- Lists filtered by status read the three indexes led by it (src/tasks/list.ts). Rebuilding the four
-- indexes reads the tasks table once per index (5.1 s for a million tasks, measured 2026-11-26).
DROP INDEX `tasks_created_idx`;--> statement-breakpoint
DROP INDEX `tasks_operator_idx`;--> statement-breakpoint
DROP INDEX `tasks_agent_idx`;--> statement-breakpoint
DROP INDEX `tasks_type_idx`;--> statement-breakpoint
CREATE INDEX `tasks_created_idx` ON `tasks` (`created_at`,`id`,`task_type`);--> statement-breakpoint
CREATE INDEX `tasks_operator_idx` ON `tasks` (`operator_id`,`created_at`,`id`,`task_type`);--> statement-breakpoint
CREATE INDEX `tasks_agent_idx` ON `tasks` (`agent_id`,`created_at`,`id`,`task_type`);--> statement-breakpoint
CREATE INDEX `tasks_type_idx` ON `tasks` (`task_type`,`created_at`,`id`);
