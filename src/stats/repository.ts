// The daily rollups the task triggers keep (migrations/0006_lists.sql, 0017_usage_rollups.sql), read
// for the charts and the public stats.
import { and, asc, between, eq, sql } from 'drizzle-orm'
import type { Db } from '../db'
import { agents, operators, taskDaily, taskLatencyDaily } from '../db/schema'
import { preparedOnUse } from '../db/sql'

export interface DailyRow { day: number; total: number; completed: number; failed: number; processing: number; queued: number; pendingApproval: number; credits: number; verified: number; promptTokens: number; completionTokens: number; costMicroUsd: number }
export interface OverallRow { operators: number; agents: number; total: number | null; completed: number | null; verified: number | null; latencyN: number | null; latencySum: number | null }

const range = { operatorId: sql.placeholder('operatorId'), first: sql.placeholder('first'), last: sql.placeholder('last') }

export class StatsRepository {
  private q

  constructor(db: Db) {
    const d = taskDaily, h = taskLatencyDaily
    this.q = preparedOnUse({
      totals: () => db.select({ day: d.day, total: d.total, completed: d.completed, failed: d.failed, processing: d.processing, queued: d.queued, pendingApproval: d.pendingApproval, credits: d.credits, verified: d.verified, promptTokens: d.promptTokens, completionTokens: d.completionTokens, costMicroUsd: d.costMicroUsd })
        .from(d).where(and(eq(d.operatorId, range.operatorId), between(d.day, range.first, range.last))).prepare(),
      histogram: () => db.select({ day: h.day, bucket: h.bucket, n: h.n }).from(h)
        .where(and(eq(h.operatorId, range.operatorId), between(h.day, range.first, range.last))).orderBy(asc(h.day), asc(h.bucket)).prepare(),
      // The all-time row of all operators (day -1), and the operator and agent counts; one row even before any task.
      overall: () => db.select({
        operators: sql<number>`(SELECT count(*) FROM ${operators})`, agents: sql<number>`(SELECT count(*) FROM ${agents})`,
        total: d.total, completed: d.completed, verified: d.verified, latencyN: d.latencyN, latencySum: d.latencySum,
      }).from(sql`(SELECT 1) AS one`).leftJoin(d, and(eq(d.operatorId, ''), eq(d.day, -1))).prepare(),
    })
  }

  /** The days `first`..`last` of an operator ('' = all operators) that have a row. */
  totals(operatorId: string, first: number, last: number): DailyRow[] { return this.q.totals.all({ operatorId, first, last }) }

  /** [day, bucket, n] of the latency histograms, each day's buckets ascending (arrays: a 90-day series is ~3,000 rows). */
  histogram(operatorId: string, first: number, last: number): [number, number, number][] {
    return this.q.histogram.values({ operatorId, first, last }) as [number, number, number][]
  }

  overall(): OverallRow { return this.q.overall.get()! }
}
