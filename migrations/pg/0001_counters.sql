-- The counters and rollups that SQLite keeps with triggers (migrations 0006, 0009, 0010 and 0017),
-- kept the same way on PostgreSQL: a row's contribution is taken away with its old values and added
-- with its new ones, in the statement that changes the row. test/unit/pg-counters.test.ts runs one
-- workload on both dialects and compares the tables.
-- SQLite's round(): half away from zero on the double itself (PostgreSQL's round(float8) rounds half to even).
CREATE FUNCTION taskgate_round(x double precision) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
  SELECT trunc(x + CASE WHEN x < 0 THEN -0.5 ELSE 0.5 END)::bigint
$$;
--> statement-breakpoint
CREATE FUNCTION taskgate_task_rollup(r tasks, s integer) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  v_day bigint := r.created_at / 86400000;
  v_done boolean := r.status IN ('COMPLETED', 'FAILED');
  v_completed boolean := r.status = 'COMPLETED';
BEGIN
  INSERT INTO task_counts (kind, agent_id, operator_id, task_type, status, n) VALUES
    (0, '', '', r.task_type, r.status, s), (1, '', r.operator_id, r.task_type, r.status, s), (2, r.agent_id, r.operator_id, r.task_type, r.status, s)
  ON CONFLICT (kind, agent_id, operator_id, task_type, status) DO UPDATE SET n = task_counts.n + excluded.n;
  IF r.task_type = 'system' THEN RETURN; END IF;
  INSERT INTO task_daily AS d (operator_id, day, total, completed, failed, processing, queued, pending_approval, credits, verified, latency_n, latency_sum, prompt_tokens, completion_tokens, cost_micro_usd)
  SELECT k.operator_id, k.day, s, s * v_completed::int, s * (r.status = 'FAILED')::int, s * (r.status = 'PROCESSING')::int, s * (r.status = 'QUEUED')::int,
    s * (r.status = 'PENDING_APPROVAL')::int, s * r.credits_charged, s * (v_completed AND r.verification_status IS NOT DISTINCT FROM 'VERIFIED')::int,
    s * (v_completed AND r.latency_ms IS NOT NULL)::int, s * CASE WHEN v_completed THEN coalesce(r.latency_ms, 0) ELSE 0 END,
    s * CASE WHEN v_done THEN coalesce(r.prompt_tokens, 0) ELSE 0 END, s * CASE WHEN v_done THEN coalesce(r.completion_tokens, 0) ELSE 0 END,
    s * CASE WHEN v_done THEN coalesce(taskgate_round(r.cost_usd * 1000000), 0) ELSE 0 END
  FROM (VALUES (r.operator_id, v_day), ('', v_day), ('', -1::bigint)) AS k(operator_id, day)
  ON CONFLICT (operator_id, day) DO UPDATE SET total = d.total + excluded.total, completed = d.completed + excluded.completed, failed = d.failed + excluded.failed,
    processing = d.processing + excluded.processing, queued = d.queued + excluded.queued, pending_approval = d.pending_approval + excluded.pending_approval,
    credits = d.credits + excluded.credits, verified = d.verified + excluded.verified, latency_n = d.latency_n + excluded.latency_n, latency_sum = d.latency_sum + excluded.latency_sum,
    prompt_tokens = d.prompt_tokens + excluded.prompt_tokens, completion_tokens = d.completion_tokens + excluded.completion_tokens, cost_micro_usd = d.cost_micro_usd + excluded.cost_micro_usd;
  IF v_completed AND r.latency_ms IS NOT NULL THEN
    INSERT INTO task_latency_daily AS l (operator_id, day, bucket, n)
    SELECT k.operator_id, v_day, floor(4 * log(2, greatest(r.latency_ms, 1)::numeric))::bigint, s FROM (VALUES (r.operator_id), ('')) AS k(operator_id)
    ON CONFLICT (operator_id, day, bucket) DO UPDATE SET n = l.n + excluded.n;
  END IF;
END $$;
--> statement-breakpoint
-- Whether a task counts as admitted for the guardrails' hourly limit (0010): not a system task, not refused at stage 1.
CREATE FUNCTION taskgate_admitted(r tasks) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
  SELECT r.task_type <> 'system' AND NOT (r.status = 'FAILED' AND coalesce(r.failure_code, '') IN ('GUARDRAIL_BLOCKED', 'KILL_SWITCH_ACTIVE') AND r.stage <= 1)
$$;
--> statement-breakpoint
CREATE FUNCTION taskgate_tasks_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM taskgate_task_rollup(NEW, 1);
    IF taskgate_admitted(NEW) THEN
      INSERT INTO task_admitted_minutes AS m (operator_id, minute, n) VALUES (NEW.operator_id, NEW.created_at / 60000, 1)
      ON CONFLICT (operator_id, minute) DO UPDATE SET n = m.n + 1;
      DELETE FROM task_admitted_minutes WHERE operator_id = NEW.operator_id AND minute < NEW.created_at / 60000 - 61;
    END IF;
    RETURN NULL;
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM taskgate_task_rollup(OLD, -1);
    IF taskgate_admitted(OLD) THEN
      UPDATE task_admitted_minutes SET n = n - 1 WHERE operator_id = OLD.operator_id AND minute = OLD.created_at / 60000;
    END IF;
    RETURN NULL;
  END IF;
  -- UPDATE: only when something a rollup reads changed
  IF (OLD.status, OLD.task_type, OLD.operator_id, OLD.agent_id, OLD.created_at, OLD.credits_charged, OLD.verification_status, OLD.latency_ms, OLD.prompt_tokens, OLD.completion_tokens, OLD.cost_usd)
     IS DISTINCT FROM (NEW.status, NEW.task_type, NEW.operator_id, NEW.agent_id, NEW.created_at, NEW.credits_charged, NEW.verification_status, NEW.latency_ms, NEW.prompt_tokens, NEW.completion_tokens, NEW.cost_usd) THEN
    PERFORM taskgate_task_rollup(OLD, -1);
    PERFORM taskgate_task_rollup(NEW, 1);
  END IF;
  IF taskgate_admitted(OLD) <> taskgate_admitted(NEW) OR (taskgate_admitted(OLD) AND (OLD.operator_id <> NEW.operator_id OR OLD.created_at / 60000 <> NEW.created_at / 60000)) THEN
    IF taskgate_admitted(OLD) THEN
      UPDATE task_admitted_minutes SET n = n - 1 WHERE operator_id = OLD.operator_id AND minute = OLD.created_at / 60000;
    END IF;
    IF taskgate_admitted(NEW) THEN
      INSERT INTO task_admitted_minutes AS m (operator_id, minute, n) VALUES (NEW.operator_id, NEW.created_at / 60000, 1)
      ON CONFLICT (operator_id, minute) DO UPDATE SET n = m.n + 1;
    END IF;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER tasks_changed AFTER INSERT OR UPDATE OR DELETE ON tasks FOR EACH ROW EXECUTE FUNCTION taskgate_tasks_changed();
--> statement-breakpoint
CREATE FUNCTION taskgate_pioneer_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO pioneer_totals AS t (operator_id, points) VALUES (NEW.operator_id, NEW.points)
    ON CONFLICT (operator_id) DO UPDATE SET points = t.points + excluded.points;
  ELSE
    UPDATE pioneer_totals SET points = points - OLD.points WHERE operator_id = OLD.operator_id;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER pioneer_events_changed AFTER INSERT OR DELETE ON pioneer_events FOR EACH ROW EXECUTE FUNCTION taskgate_pioneer_changed();
--> statement-breakpoint
CREATE FUNCTION taskgate_ledger_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF NEW.reason IN ('task_debit', 'compute_debit', 'task_refund', 'compute_refund') THEN
      INSERT INTO credit_spend_daily AS c (operator_id, day, credits) VALUES (NEW.operator_id, NEW.created_at / 86400000, -NEW.delta)
      ON CONFLICT (operator_id, day) DO UPDATE SET credits = c.credits + excluded.credits;
    END IF;
  ELSIF OLD.reason IN ('task_debit', 'compute_debit', 'task_refund', 'compute_refund') THEN
    UPDATE credit_spend_daily SET credits = credits + OLD.delta WHERE operator_id = OLD.operator_id AND day = OLD.created_at / 86400000;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER ledger_entries_changed AFTER INSERT OR DELETE ON ledger_entries FOR EACH ROW EXECUTE FUNCTION taskgate_ledger_changed();
