CREATE TABLE `task_counts` (
	`kind` integer NOT NULL,
	`agent_id` text NOT NULL,
	`operator_id` text NOT NULL,
	`task_type` text NOT NULL,
	`status` text NOT NULL,
	`n` integer NOT NULL,
	PRIMARY KEY(`kind`, `agent_id`, `operator_id`, `task_type`, `status`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `task_daily` (
	`operator_id` text NOT NULL,
	`day` integer NOT NULL,
	`total` integer DEFAULT 0 NOT NULL,
	`completed` integer DEFAULT 0 NOT NULL,
	`failed` integer DEFAULT 0 NOT NULL,
	`processing` integer DEFAULT 0 NOT NULL,
	`queued` integer DEFAULT 0 NOT NULL,
	`pending_approval` integer DEFAULT 0 NOT NULL,
	`credits` integer DEFAULT 0 NOT NULL,
	`verified` integer DEFAULT 0 NOT NULL,
	`latency_n` integer DEFAULT 0 NOT NULL,
	`latency_sum` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`operator_id`, `day`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE TABLE `task_latency_daily` (
	`operator_id` text NOT NULL,
	`day` integer NOT NULL,
	`bucket` integer NOT NULL,
	`n` integer NOT NULL,
	PRIMARY KEY(`operator_id`, `day`, `bucket`)
) WITHOUT ROWID;
--> statement-breakpoint
DROP INDEX `tasks_created_idx`;--> statement-breakpoint
DROP INDEX `tasks_operator_idx`;--> statement-breakpoint
DROP INDEX `tasks_agent_idx`;--> statement-breakpoint
DROP INDEX `tasks_status_idx`;--> statement-breakpoint
CREATE INDEX `tasks_type_idx` ON `tasks` (`task_type`,`created_at`,`id`,`status`);--> statement-breakpoint
CREATE INDEX `tasks_operator_status_idx` ON `tasks` (`operator_id`,`status`,`created_at`,`id`,`task_type`);--> statement-breakpoint
CREATE INDEX `tasks_agent_status_idx` ON `tasks` (`agent_id`,`status`,`created_at`,`id`,`task_type`);--> statement-breakpoint
CREATE INDEX `tasks_created_idx` ON `tasks` (`created_at`,`id`,`task_type`,`status`);--> statement-breakpoint
CREATE INDEX `tasks_operator_idx` ON `tasks` (`operator_id`,`created_at`,`id`,`task_type`,`status`);--> statement-breakpoint
CREATE INDEX `tasks_agent_idx` ON `tasks` (`agent_id`,`created_at`,`id`,`task_type`,`status`);--> statement-breakpoint
CREATE INDEX `tasks_status_idx` ON `tasks` (`status`,`created_at`,`id`,`task_type`);--> statement-breakpoint
INSERT INTO task_counts (kind, agent_id, operator_id, task_type, status, n) SELECT 0, '', '', task_type, status, count(*) FROM tasks GROUP BY task_type, status;
--> statement-breakpoint
INSERT INTO task_counts (kind, agent_id, operator_id, task_type, status, n) SELECT 1, '', operator_id, task_type, status, count(*) FROM tasks GROUP BY operator_id, task_type, status;
--> statement-breakpoint
INSERT INTO task_counts (kind, agent_id, operator_id, task_type, status, n) SELECT 2, agent_id, operator_id, task_type, status, count(*) FROM tasks GROUP BY agent_id, operator_id, task_type, status;
--> statement-breakpoint
INSERT INTO task_daily (operator_id, day, total, completed, failed, processing, queued, pending_approval, credits, verified, latency_n, latency_sum) SELECT operator_id, created_at / 86400000, count(*), sum(status IS 'COMPLETED'), sum(status IS 'FAILED'), sum(status IS 'PROCESSING'), sum(status IS 'QUEUED'), sum(status IS 'PENDING_APPROVAL'), sum(credits_charged), sum(status IS 'COMPLETED' AND verification_status IS 'VERIFIED'), sum(status IS 'COMPLETED' AND latency_ms IS NOT NULL), sum(CASE WHEN status IS 'COMPLETED' THEN coalesce(latency_ms, 0) ELSE 0 END) FROM tasks WHERE task_type != 'system' GROUP BY 1, 2;
--> statement-breakpoint
INSERT INTO task_daily (operator_id, day, total, completed, failed, processing, queued, pending_approval, credits, verified, latency_n, latency_sum) SELECT '', created_at / 86400000, count(*), sum(status IS 'COMPLETED'), sum(status IS 'FAILED'), sum(status IS 'PROCESSING'), sum(status IS 'QUEUED'), sum(status IS 'PENDING_APPROVAL'), sum(credits_charged), sum(status IS 'COMPLETED' AND verification_status IS 'VERIFIED'), sum(status IS 'COMPLETED' AND latency_ms IS NOT NULL), sum(CASE WHEN status IS 'COMPLETED' THEN coalesce(latency_ms, 0) ELSE 0 END) FROM tasks WHERE task_type != 'system' GROUP BY 2;
--> statement-breakpoint
INSERT INTO task_daily (operator_id, day, total, completed, failed, processing, queued, pending_approval, credits, verified, latency_n, latency_sum) SELECT '', -1, count(*), sum(status IS 'COMPLETED'), sum(status IS 'FAILED'), sum(status IS 'PROCESSING'), sum(status IS 'QUEUED'), sum(status IS 'PENDING_APPROVAL'), sum(credits_charged), sum(status IS 'COMPLETED' AND verification_status IS 'VERIFIED'), sum(status IS 'COMPLETED' AND latency_ms IS NOT NULL), sum(CASE WHEN status IS 'COMPLETED' THEN coalesce(latency_ms, 0) ELSE 0 END) FROM tasks WHERE task_type != 'system'  HAVING count(*) > 0;
--> statement-breakpoint
INSERT INTO task_latency_daily (operator_id, day, bucket, n) SELECT operator_id, created_at / 86400000, CAST(floor(4 * log2(max(latency_ms, 1))) AS INTEGER), count(*) FROM tasks WHERE task_type != 'system' AND status = 'COMPLETED' AND latency_ms IS NOT NULL GROUP BY 1, 2, 3;
--> statement-breakpoint
INSERT INTO task_latency_daily (operator_id, day, bucket, n) SELECT '', created_at / 86400000, CAST(floor(4 * log2(max(latency_ms, 1))) AS INTEGER), count(*) FROM tasks WHERE task_type != 'system' AND status = 'COMPLETED' AND latency_ms IS NOT NULL GROUP BY 2, 3;
--> statement-breakpoint
-- Counters and daily rollups kept by triggers, so every write path keeps them exact (docs/performance.md, "Lists").
CREATE TRIGGER tasks_counts_insert AFTER INSERT ON tasks BEGIN
INSERT INTO task_counts (kind, agent_id, operator_id, task_type, status, n) VALUES
  (0, '', '', new.task_type, new.status, 1),
  (1, '', new.operator_id, new.task_type, new.status, 1),
  (2, new.agent_id, new.operator_id, new.task_type, new.status, 1)
ON CONFLICT DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER tasks_counts_delete AFTER DELETE ON tasks BEGIN
INSERT INTO task_counts (kind, agent_id, operator_id, task_type, status, n) VALUES
  (0, '', '', old.task_type, old.status, -1),
  (1, '', old.operator_id, old.task_type, old.status, -1),
  (2, old.agent_id, old.operator_id, old.task_type, old.status, -1)
ON CONFLICT DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER tasks_counts_update AFTER UPDATE OF status, task_type, operator_id, agent_id ON tasks
WHEN old.status IS NOT new.status OR old.task_type IS NOT new.task_type OR old.operator_id IS NOT new.operator_id OR old.agent_id IS NOT new.agent_id BEGIN
INSERT INTO task_counts (kind, agent_id, operator_id, task_type, status, n) VALUES
  (0, '', '', old.task_type, old.status, -1),
  (1, '', old.operator_id, old.task_type, old.status, -1),
  (2, old.agent_id, old.operator_id, old.task_type, old.status, -1),
  (0, '', '', new.task_type, new.status, 1),
  (1, '', new.operator_id, new.task_type, new.status, 1),
  (2, new.agent_id, new.operator_id, new.task_type, new.status, 1)
ON CONFLICT DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER tasks_daily_insert AFTER INSERT ON tasks WHEN new.task_type != 'system' BEGIN
INSERT INTO task_daily (operator_id, day, total, completed, failed, processing, queued, pending_approval, credits, verified, latency_n, latency_sum)
SELECT * FROM (
  SELECT new.operator_id, new.created_at / 86400000, 1, (new.status IS 'COMPLETED'), (new.status IS 'FAILED'), (new.status IS 'PROCESSING'), (new.status IS 'QUEUED'), (new.status IS 'PENDING_APPROVAL'), new.credits_charged, (new.status IS 'COMPLETED' AND new.verification_status IS 'VERIFIED'), (new.status IS 'COMPLETED' AND new.latency_ms IS NOT NULL), (CASE WHEN new.status IS 'COMPLETED' THEN coalesce(new.latency_ms, 0) ELSE 0 END) WHERE true
  UNION ALL SELECT '', new.created_at / 86400000, 1, (new.status IS 'COMPLETED'), (new.status IS 'FAILED'), (new.status IS 'PROCESSING'), (new.status IS 'QUEUED'), (new.status IS 'PENDING_APPROVAL'), new.credits_charged, (new.status IS 'COMPLETED' AND new.verification_status IS 'VERIFIED'), (new.status IS 'COMPLETED' AND new.latency_ms IS NOT NULL), (CASE WHEN new.status IS 'COMPLETED' THEN coalesce(new.latency_ms, 0) ELSE 0 END) WHERE true
  UNION ALL SELECT '', -1, 1, (new.status IS 'COMPLETED'), (new.status IS 'FAILED'), (new.status IS 'PROCESSING'), (new.status IS 'QUEUED'), (new.status IS 'PENDING_APPROVAL'), new.credits_charged, (new.status IS 'COMPLETED' AND new.verification_status IS 'VERIFIED'), (new.status IS 'COMPLETED' AND new.latency_ms IS NOT NULL), (CASE WHEN new.status IS 'COMPLETED' THEN coalesce(new.latency_ms, 0) ELSE 0 END) WHERE true
) WHERE true ON CONFLICT DO UPDATE SET total = total + excluded.total, completed = completed + excluded.completed, failed = failed + excluded.failed, processing = processing + excluded.processing, queued = queued + excluded.queued, pending_approval = pending_approval + excluded.pending_approval, credits = credits + excluded.credits, verified = verified + excluded.verified, latency_n = latency_n + excluded.latency_n, latency_sum = latency_sum + excluded.latency_sum;
INSERT INTO task_latency_daily (operator_id, day, bucket, n)
SELECT * FROM (
  SELECT new.operator_id, new.created_at / 86400000, CAST(floor(4 * log2(max(new.latency_ms, 1))) AS INTEGER), 1 WHERE true AND new.status IS 'COMPLETED' AND new.latency_ms IS NOT NULL
  UNION ALL SELECT '', new.created_at / 86400000, CAST(floor(4 * log2(max(new.latency_ms, 1))) AS INTEGER), 1 WHERE true AND new.status IS 'COMPLETED' AND new.latency_ms IS NOT NULL
) WHERE true ON CONFLICT DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER tasks_daily_delete AFTER DELETE ON tasks WHEN old.task_type != 'system' BEGIN
INSERT INTO task_daily (operator_id, day, total, completed, failed, processing, queued, pending_approval, credits, verified, latency_n, latency_sum)
SELECT * FROM (
  SELECT old.operator_id, old.created_at / 86400000, -1, -(old.status IS 'COMPLETED'), -(old.status IS 'FAILED'), -(old.status IS 'PROCESSING'), -(old.status IS 'QUEUED'), -(old.status IS 'PENDING_APPROVAL'), -old.credits_charged, -(old.status IS 'COMPLETED' AND old.verification_status IS 'VERIFIED'), -(old.status IS 'COMPLETED' AND old.latency_ms IS NOT NULL), -(CASE WHEN old.status IS 'COMPLETED' THEN coalesce(old.latency_ms, 0) ELSE 0 END) WHERE true
  UNION ALL SELECT '', old.created_at / 86400000, -1, -(old.status IS 'COMPLETED'), -(old.status IS 'FAILED'), -(old.status IS 'PROCESSING'), -(old.status IS 'QUEUED'), -(old.status IS 'PENDING_APPROVAL'), -old.credits_charged, -(old.status IS 'COMPLETED' AND old.verification_status IS 'VERIFIED'), -(old.status IS 'COMPLETED' AND old.latency_ms IS NOT NULL), -(CASE WHEN old.status IS 'COMPLETED' THEN coalesce(old.latency_ms, 0) ELSE 0 END) WHERE true
  UNION ALL SELECT '', -1, -1, -(old.status IS 'COMPLETED'), -(old.status IS 'FAILED'), -(old.status IS 'PROCESSING'), -(old.status IS 'QUEUED'), -(old.status IS 'PENDING_APPROVAL'), -old.credits_charged, -(old.status IS 'COMPLETED' AND old.verification_status IS 'VERIFIED'), -(old.status IS 'COMPLETED' AND old.latency_ms IS NOT NULL), -(CASE WHEN old.status IS 'COMPLETED' THEN coalesce(old.latency_ms, 0) ELSE 0 END) WHERE true
) WHERE true ON CONFLICT DO UPDATE SET total = total + excluded.total, completed = completed + excluded.completed, failed = failed + excluded.failed, processing = processing + excluded.processing, queued = queued + excluded.queued, pending_approval = pending_approval + excluded.pending_approval, credits = credits + excluded.credits, verified = verified + excluded.verified, latency_n = latency_n + excluded.latency_n, latency_sum = latency_sum + excluded.latency_sum;
INSERT INTO task_latency_daily (operator_id, day, bucket, n)
SELECT * FROM (
  SELECT old.operator_id, old.created_at / 86400000, CAST(floor(4 * log2(max(old.latency_ms, 1))) AS INTEGER), -1 WHERE true AND old.status IS 'COMPLETED' AND old.latency_ms IS NOT NULL
  UNION ALL SELECT '', old.created_at / 86400000, CAST(floor(4 * log2(max(old.latency_ms, 1))) AS INTEGER), -1 WHERE true AND old.status IS 'COMPLETED' AND old.latency_ms IS NOT NULL
) WHERE true ON CONFLICT DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER tasks_daily_update AFTER UPDATE OF status, credits_charged, verification_status, latency_ms ON tasks
WHEN new.task_type != 'system' AND old.task_type = new.task_type AND old.operator_id = new.operator_id AND old.created_at = new.created_at AND (old.status IS NOT new.status OR old.credits_charged IS NOT new.credits_charged OR ((old.status = 'COMPLETED' OR new.status = 'COMPLETED') AND (old.verification_status IS NOT new.verification_status OR old.latency_ms IS NOT new.latency_ms))) BEGIN
INSERT INTO task_daily (operator_id, day, total, completed, failed, processing, queued, pending_approval, credits, verified, latency_n, latency_sum)
SELECT * FROM (
  SELECT new.operator_id, new.created_at / 86400000, 0, (new.status IS 'COMPLETED') - (old.status IS 'COMPLETED'), (new.status IS 'FAILED') - (old.status IS 'FAILED'), (new.status IS 'PROCESSING') - (old.status IS 'PROCESSING'), (new.status IS 'QUEUED') - (old.status IS 'QUEUED'), (new.status IS 'PENDING_APPROVAL') - (old.status IS 'PENDING_APPROVAL'), new.credits_charged - old.credits_charged, (new.status IS 'COMPLETED' AND new.verification_status IS 'VERIFIED') - (old.status IS 'COMPLETED' AND old.verification_status IS 'VERIFIED'), (new.status IS 'COMPLETED' AND new.latency_ms IS NOT NULL) - (old.status IS 'COMPLETED' AND old.latency_ms IS NOT NULL), (CASE WHEN new.status IS 'COMPLETED' THEN coalesce(new.latency_ms, 0) ELSE 0 END) - (CASE WHEN old.status IS 'COMPLETED' THEN coalesce(old.latency_ms, 0) ELSE 0 END)
  UNION ALL SELECT '', new.created_at / 86400000, 0, (new.status IS 'COMPLETED') - (old.status IS 'COMPLETED'), (new.status IS 'FAILED') - (old.status IS 'FAILED'), (new.status IS 'PROCESSING') - (old.status IS 'PROCESSING'), (new.status IS 'QUEUED') - (old.status IS 'QUEUED'), (new.status IS 'PENDING_APPROVAL') - (old.status IS 'PENDING_APPROVAL'), new.credits_charged - old.credits_charged, (new.status IS 'COMPLETED' AND new.verification_status IS 'VERIFIED') - (old.status IS 'COMPLETED' AND old.verification_status IS 'VERIFIED'), (new.status IS 'COMPLETED' AND new.latency_ms IS NOT NULL) - (old.status IS 'COMPLETED' AND old.latency_ms IS NOT NULL), (CASE WHEN new.status IS 'COMPLETED' THEN coalesce(new.latency_ms, 0) ELSE 0 END) - (CASE WHEN old.status IS 'COMPLETED' THEN coalesce(old.latency_ms, 0) ELSE 0 END)
  UNION ALL SELECT '', -1, 0, (new.status IS 'COMPLETED') - (old.status IS 'COMPLETED'), (new.status IS 'FAILED') - (old.status IS 'FAILED'), (new.status IS 'PROCESSING') - (old.status IS 'PROCESSING'), (new.status IS 'QUEUED') - (old.status IS 'QUEUED'), (new.status IS 'PENDING_APPROVAL') - (old.status IS 'PENDING_APPROVAL'), new.credits_charged - old.credits_charged, (new.status IS 'COMPLETED' AND new.verification_status IS 'VERIFIED') - (old.status IS 'COMPLETED' AND old.verification_status IS 'VERIFIED'), (new.status IS 'COMPLETED' AND new.latency_ms IS NOT NULL) - (old.status IS 'COMPLETED' AND old.latency_ms IS NOT NULL), (CASE WHEN new.status IS 'COMPLETED' THEN coalesce(new.latency_ms, 0) ELSE 0 END) - (CASE WHEN old.status IS 'COMPLETED' THEN coalesce(old.latency_ms, 0) ELSE 0 END)
) WHERE true ON CONFLICT DO UPDATE SET total = total + excluded.total, completed = completed + excluded.completed, failed = failed + excluded.failed, processing = processing + excluded.processing, queued = queued + excluded.queued, pending_approval = pending_approval + excluded.pending_approval, credits = credits + excluded.credits, verified = verified + excluded.verified, latency_n = latency_n + excluded.latency_n, latency_sum = latency_sum + excluded.latency_sum;
INSERT INTO task_latency_daily (operator_id, day, bucket, n)
SELECT * FROM (
  SELECT old.operator_id, old.created_at / 86400000, CAST(floor(4 * log2(max(old.latency_ms, 1))) AS INTEGER), -1 WHERE true AND old.status IS 'COMPLETED' AND old.latency_ms IS NOT NULL
  UNION ALL SELECT '', old.created_at / 86400000, CAST(floor(4 * log2(max(old.latency_ms, 1))) AS INTEGER), -1 WHERE true AND old.status IS 'COMPLETED' AND old.latency_ms IS NOT NULL
  UNION ALL SELECT new.operator_id, new.created_at / 86400000, CAST(floor(4 * log2(max(new.latency_ms, 1))) AS INTEGER), 1 WHERE true AND new.status IS 'COMPLETED' AND new.latency_ms IS NOT NULL
  UNION ALL SELECT '', new.created_at / 86400000, CAST(floor(4 * log2(max(new.latency_ms, 1))) AS INTEGER), 1 WHERE true AND new.status IS 'COMPLETED' AND new.latency_ms IS NOT NULL
) WHERE true ON CONFLICT DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER tasks_daily_rekey AFTER UPDATE OF status, credits_charged, verification_status, latency_ms, task_type, operator_id, created_at ON tasks
WHEN NOT (old.task_type = new.task_type AND old.operator_id = new.operator_id AND old.created_at = new.created_at) BEGIN
INSERT INTO task_daily (operator_id, day, total, completed, failed, processing, queued, pending_approval, credits, verified, latency_n, latency_sum)
SELECT * FROM (
  SELECT old.operator_id, old.created_at / 86400000, -1, -(old.status IS 'COMPLETED'), -(old.status IS 'FAILED'), -(old.status IS 'PROCESSING'), -(old.status IS 'QUEUED'), -(old.status IS 'PENDING_APPROVAL'), -old.credits_charged, -(old.status IS 'COMPLETED' AND old.verification_status IS 'VERIFIED'), -(old.status IS 'COMPLETED' AND old.latency_ms IS NOT NULL), -(CASE WHEN old.status IS 'COMPLETED' THEN coalesce(old.latency_ms, 0) ELSE 0 END) WHERE old.task_type != 'system'
  UNION ALL SELECT '', old.created_at / 86400000, -1, -(old.status IS 'COMPLETED'), -(old.status IS 'FAILED'), -(old.status IS 'PROCESSING'), -(old.status IS 'QUEUED'), -(old.status IS 'PENDING_APPROVAL'), -old.credits_charged, -(old.status IS 'COMPLETED' AND old.verification_status IS 'VERIFIED'), -(old.status IS 'COMPLETED' AND old.latency_ms IS NOT NULL), -(CASE WHEN old.status IS 'COMPLETED' THEN coalesce(old.latency_ms, 0) ELSE 0 END) WHERE old.task_type != 'system'
  UNION ALL SELECT '', -1, -1, -(old.status IS 'COMPLETED'), -(old.status IS 'FAILED'), -(old.status IS 'PROCESSING'), -(old.status IS 'QUEUED'), -(old.status IS 'PENDING_APPROVAL'), -old.credits_charged, -(old.status IS 'COMPLETED' AND old.verification_status IS 'VERIFIED'), -(old.status IS 'COMPLETED' AND old.latency_ms IS NOT NULL), -(CASE WHEN old.status IS 'COMPLETED' THEN coalesce(old.latency_ms, 0) ELSE 0 END) WHERE old.task_type != 'system'
  UNION ALL SELECT new.operator_id, new.created_at / 86400000, 1, (new.status IS 'COMPLETED'), (new.status IS 'FAILED'), (new.status IS 'PROCESSING'), (new.status IS 'QUEUED'), (new.status IS 'PENDING_APPROVAL'), new.credits_charged, (new.status IS 'COMPLETED' AND new.verification_status IS 'VERIFIED'), (new.status IS 'COMPLETED' AND new.latency_ms IS NOT NULL), (CASE WHEN new.status IS 'COMPLETED' THEN coalesce(new.latency_ms, 0) ELSE 0 END) WHERE new.task_type != 'system'
  UNION ALL SELECT '', new.created_at / 86400000, 1, (new.status IS 'COMPLETED'), (new.status IS 'FAILED'), (new.status IS 'PROCESSING'), (new.status IS 'QUEUED'), (new.status IS 'PENDING_APPROVAL'), new.credits_charged, (new.status IS 'COMPLETED' AND new.verification_status IS 'VERIFIED'), (new.status IS 'COMPLETED' AND new.latency_ms IS NOT NULL), (CASE WHEN new.status IS 'COMPLETED' THEN coalesce(new.latency_ms, 0) ELSE 0 END) WHERE new.task_type != 'system'
  UNION ALL SELECT '', -1, 1, (new.status IS 'COMPLETED'), (new.status IS 'FAILED'), (new.status IS 'PROCESSING'), (new.status IS 'QUEUED'), (new.status IS 'PENDING_APPROVAL'), new.credits_charged, (new.status IS 'COMPLETED' AND new.verification_status IS 'VERIFIED'), (new.status IS 'COMPLETED' AND new.latency_ms IS NOT NULL), (CASE WHEN new.status IS 'COMPLETED' THEN coalesce(new.latency_ms, 0) ELSE 0 END) WHERE new.task_type != 'system'
) WHERE true ON CONFLICT DO UPDATE SET total = total + excluded.total, completed = completed + excluded.completed, failed = failed + excluded.failed, processing = processing + excluded.processing, queued = queued + excluded.queued, pending_approval = pending_approval + excluded.pending_approval, credits = credits + excluded.credits, verified = verified + excluded.verified, latency_n = latency_n + excluded.latency_n, latency_sum = latency_sum + excluded.latency_sum;
INSERT INTO task_latency_daily (operator_id, day, bucket, n)
SELECT * FROM (
  SELECT old.operator_id, old.created_at / 86400000, CAST(floor(4 * log2(max(old.latency_ms, 1))) AS INTEGER), -1 WHERE old.task_type != 'system' AND old.status IS 'COMPLETED' AND old.latency_ms IS NOT NULL
  UNION ALL SELECT '', old.created_at / 86400000, CAST(floor(4 * log2(max(old.latency_ms, 1))) AS INTEGER), -1 WHERE old.task_type != 'system' AND old.status IS 'COMPLETED' AND old.latency_ms IS NOT NULL
  UNION ALL SELECT new.operator_id, new.created_at / 86400000, CAST(floor(4 * log2(max(new.latency_ms, 1))) AS INTEGER), 1 WHERE new.task_type != 'system' AND new.status IS 'COMPLETED' AND new.latency_ms IS NOT NULL
  UNION ALL SELECT '', new.created_at / 86400000, CAST(floor(4 * log2(max(new.latency_ms, 1))) AS INTEGER), 1 WHERE new.task_type != 'system' AND new.status IS 'COMPLETED' AND new.latency_ms IS NOT NULL
) WHERE true ON CONFLICT DO UPDATE SET n = n + excluded.n;
END;
