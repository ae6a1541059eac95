CREATE TABLE `credit_spend_daily` (
	`operator_id` text NOT NULL,
	`day` integer NOT NULL,
	`credits` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`operator_id`, `day`)
);
--> statement-breakpoint
CREATE TABLE `task_admitted_minutes` (
	`operator_id` text NOT NULL,
	`minute` integer NOT NULL,
	`n` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`operator_id`, `minute`)
);

--> statement-breakpoint
INSERT INTO credit_spend_daily (operator_id, day, credits)
SELECT operator_id, created_at / 86400000, -sum(delta) FROM ledger_entries
WHERE reason IN ('task_debit', 'compute_debit', 'task_refund', 'compute_refund') GROUP BY operator_id, created_at / 86400000;
--> statement-breakpoint
CREATE TRIGGER credit_spend_daily_insert AFTER INSERT ON ledger_entries
WHEN new.reason IN ('task_debit', 'compute_debit', 'task_refund', 'compute_refund') BEGIN
INSERT INTO credit_spend_daily (operator_id, day, credits) VALUES (new.operator_id, new.created_at / 86400000, -new.delta)
ON CONFLICT(operator_id, day) DO UPDATE SET credits = credits + excluded.credits;
END;
--> statement-breakpoint
CREATE TRIGGER credit_spend_daily_delete AFTER DELETE ON ledger_entries
WHEN old.reason IN ('task_debit', 'compute_debit', 'task_refund', 'compute_refund') BEGIN
UPDATE credit_spend_daily SET credits = credits + old.delta WHERE operator_id = old.operator_id AND day = old.created_at / 86400000;
END;
--> statement-breakpoint
INSERT INTO task_admitted_minutes (operator_id, minute, n)
SELECT operator_id, created_at / 60000, count(*) FROM tasks
WHERE task_type != 'system' AND NOT (status = 'FAILED' AND coalesce(failure_code, '') IN ('GUARDRAIL_BLOCKED', 'KILL_SWITCH_ACTIVE') AND stage <= 1)
GROUP BY operator_id, created_at / 60000;
--> statement-breakpoint
CREATE TRIGGER task_admitted_insert AFTER INSERT ON tasks WHEN new.task_type != 'system' AND NOT (new.status = 'FAILED' AND coalesce(new.failure_code, '') IN ('GUARDRAIL_BLOCKED', 'KILL_SWITCH_ACTIVE') AND new.stage <= 1) BEGIN
INSERT INTO task_admitted_minutes (operator_id, minute, n) VALUES (new.operator_id, new.created_at / 60000, 1)
ON CONFLICT(operator_id, minute) DO UPDATE SET n = n + 1;
DELETE FROM task_admitted_minutes WHERE operator_id = new.operator_id AND minute < new.created_at / 60000 - 61;
END;
--> statement-breakpoint
CREATE TRIGGER task_admitted_update AFTER UPDATE OF operator_id, created_at, task_type, status, failure_code, stage ON tasks
WHEN (old.task_type != 'system' AND NOT (old.status = 'FAILED' AND coalesce(old.failure_code, '') IN ('GUARDRAIL_BLOCKED', 'KILL_SWITCH_ACTIVE') AND old.stage <= 1)) != (new.task_type != 'system' AND NOT (new.status = 'FAILED' AND coalesce(new.failure_code, '') IN ('GUARDRAIL_BLOCKED', 'KILL_SWITCH_ACTIVE') AND new.stage <= 1)) OR ((old.task_type != 'system' AND NOT (old.status = 'FAILED' AND coalesce(old.failure_code, '') IN ('GUARDRAIL_BLOCKED', 'KILL_SWITCH_ACTIVE') AND old.stage <= 1)) AND (old.operator_id != new.operator_id OR old.created_at / 60000 != new.created_at / 60000)) BEGIN
UPDATE task_admitted_minutes SET n = n - 1 WHERE (old.task_type != 'system' AND NOT (old.status = 'FAILED' AND coalesce(old.failure_code, '') IN ('GUARDRAIL_BLOCKED', 'KILL_SWITCH_ACTIVE') AND old.stage <= 1)) AND operator_id = old.operator_id AND minute = old.created_at / 60000;
INSERT INTO task_admitted_minutes (operator_id, minute, n) SELECT new.operator_id, new.created_at / 60000, 1 WHERE new.task_type != 'system' AND NOT (new.status = 'FAILED' AND coalesce(new.failure_code, '') IN ('GUARDRAIL_BLOCKED', 'KILL_SWITCH_ACTIVE') AND new.stage <= 1)
ON CONFLICT(operator_id, minute) DO UPDATE SET n = n + 1;
END;
--> statement-breakpoint
CREATE TRIGGER task_admitted_delete AFTER DELETE ON tasks WHEN old.task_type != 'system' AND NOT (old.status = 'FAILED' AND coalesce(old.failure_code, '') IN ('GUARDRAIL_BLOCKED', 'KILL_SWITCH_ACTIVE') AND old.stage <= 1) BEGIN
UPDATE task_admitted_minutes SET n = n - 1 WHERE operator_id = old.operator_id AND minute = old.created_at / 60000;
END;
