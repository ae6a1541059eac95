// The guardrails' tables: each operator's stored configs (operator_guardrails), the counters
// stage 1 reads (task_admitted_minutes and credit_spend_daily, kept by triggers, migration 0010),
// and the kill-switch in the operator's flags.
import { and, eq, isNotNull, lte, sql } from 'drizzle-orm'
import type { Db } from '../db'
import { isPostgres } from '../db/dialect'
import { creditSpendDaily, operatorGuardrails as g, operators, taskAdmittedMinutes, tasks } from '../db/schema'
import { changes, prepareSql, setTo, preparedOnUse } from '../db/sql'

const p = sql.placeholder

/** The stored configs (JSON text) of an operator. */
export interface GuardrailRow { current: string; pending: string | null; activatesAt: number | null; updatedAt: number }

export class GuardrailRepository {
  private q

  constructor(db: Db) {
    /** A task maxTasksPerHour counts (the predicate of the task_admitted_minutes triggers, migration 0010). */
    const admitted = sql`${tasks.taskType} != 'system' AND NOT (${tasks.status} = 'FAILED' AND coalesce(${tasks.failureCode}, '') IN ('GUARDRAIL_BLOCKED', 'KILL_SWITCH_ACTIVE') AND ${tasks.stage} <= 1)`
    this.q = preparedOnUse({
      row: () => db.select({ current: sql<string>`${g.current}`, pending: sql<string | null>`${g.pending}`, activatesAt: g.activatesAt, updatedAt: g.updatedAt })
        .from(g).where(eq(g.operatorId, p('operatorId'))).prepare(),
      write: () => db.insert(g).values({ operatorId: p('operatorId'), current: setTo('current'), pending: setTo('pending'), activatesAt: p('activatesAt'), updatedAt: p('updatedAt') })
        .onConflictDoUpdate({ target: g.operatorId, set: { current: sql`excluded.current`, pending: sql`excluded.pending`, activatesAt: sql`excluded.activates_at`, updatedAt: sql`excluded.updated_at` } }).prepare(),
      activate: () => db.update(g).set({ current: sql`${g.pending}`, pending: null, activatesAt: null })
        .where(and(eq(g.operatorId, p('operatorId')), isNotNull(g.pending), lte(g.activatesAt, p('now')))).prepare(),
      // Admitted tasks created after `since`, other than `exceptId`: the minutes after since's
      // minute from the counters the task triggers keep, plus since's own minute counted exactly,
      // minus `exceptId` when it is counted. The cost is bounded by one minute of the operator's
      // tasks, however many the hour holds.
      tasksSince: () => prepareSql<{ n: number }>(db, sql`SELECT
        (SELECT coalesce(sum(${taskAdmittedMinutes.n}), 0) FROM ${taskAdmittedMinutes} WHERE ${taskAdmittedMinutes.operatorId} = ${p('operatorId')} AND ${taskAdmittedMinutes.minute} > ${p('minute')})
        + (SELECT count(*) FROM ${tasks} WHERE ${tasks.operatorId} = ${p('operatorId')} AND ${tasks.createdAt} > ${p('since')} AND ${tasks.createdAt} < (CAST(${p('minute')} AS bigint) + 1) * 60000 AND ${admitted})
        - (SELECT count(*) FROM ${tasks} WHERE ${tasks.id} = ${p('exceptId')} AND ${tasks.operatorId} = ${p('operatorId')} AND ${tasks.createdAt} > ${p('since')} AND ${admitted}) AS n`),
      // One row, not a sum over the operator's ledger.
      spentOnDay: () => db.select({ n: creditSpendDaily.credits }).from(creditSpendDaily)
        .where(and(eq(creditSpendDaily.operatorId, p('operatorId')), eq(creditSpendDaily.day, p('day')))).prepare(),
      killSwitch: () => db.update(operators).set({
        flags: isPostgres(db)
          ? sql`(CAST(${operators.flags} AS jsonb) || jsonb_build_object('killSwitch', CAST(CAST(${p('active')} AS text) AS jsonb), 'killSwitchReason', CAST(${p('reason')} AS text), 'killSwitchAt', CAST(${p('at')} AS bigint)))::text`
          : sql`json_set(${operators.flags}, '$.killSwitch', json(${p('active')}), '$.killSwitchReason', ${p('reason')}, '$.killSwitchAt', ${p('at')})`,
        updatedAt: setTo('at'),
      }).where(eq(operators.id, p('operatorId'))).returning({ flags: sql<string>`${operators.flags}` }).prepare(),
    })
  }

  row(operatorId: string): GuardrailRow | null { return this.q.row.get({ operatorId }) ?? null }
  /** Stores an operator's configs (JSON text). */
  write(operatorId: string, current: string, pending: string | null, activatesAt: number | null, updatedAt: number): void {
    this.q.write.run({ operatorId, current, pending, activatesAt, updatedAt })
  }
  /** Makes the pending config current when its time (`now`) has come; false when there was none. */
  activate(operatorId: string, now: number): boolean { return changes(this.q.activate.run({ operatorId, now })) > 0 }
  /** The operator's admitted tasks created after `since` (ms), other than `exceptId`. */
  admittedSince(operatorId: string, since: number, exceptId: string): number {
    return this.q.tasksSince.get({ operatorId, since, exceptId, minute: Math.floor(since / 60_000) })!.n
  }
  /** Credits the operator spent on `day` (days since 1970, UTC). */
  spentOnDay(operatorId: string, day: number): number { return this.q.spentOnDay.get({ operatorId, day })?.n ?? 0 }
  /** Sets the kill-switch in the operator's flags and returns the flags. */
  setKillSwitch(operatorId: string, active: boolean, reason: string | null, at: number): Record<string, unknown> {
    return JSON.parse(this.q.killSwitch.get({ operatorId, active: active ? 'true' : 'false', reason, at })!.flags) as Record<string, unknown>
  }
}
