-- The stage events of a task are a column of its row (docs/performance.md, fifth session): the
-- events go in the statement that writes the stages' fields, instead of one more INSERT and two
-- more b-trees (task_events and its index) written by every commit. An event's id is its position
-- in the task's timeline. Unfinished tasks take their events along (so new ones continue their
-- numbering); finished ones keep them in task_events, where TaskService still reads them.
ALTER TABLE `tasks` ADD `timeline` text;--> statement-breakpoint
UPDATE `tasks` SET `timeline` = (
  SELECT json_group_array(json_object('stage', e.stage, 'name', e.name, 'status', e.status, 'detail', json(e.detail), 'at', e.at) ORDER BY e.id)
  FROM `task_events` e WHERE e.task_id = `tasks`.`id`
) WHERE `status` NOT IN ('COMPLETED', 'FAILED') AND EXISTS (SELECT 1 FROM `task_events` e WHERE e.task_id = `tasks`.`id`);
