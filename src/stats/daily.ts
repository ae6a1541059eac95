// Daily aggregates for the console charts and the public stats page, read from the rollups that
// triggers keep in the same transaction as every task write (migrations/0006_lists.sql): tasks by
// status, credits spent, verified count and latency percentiles per UTC day of the task's creation,
// per operator or over all operators (system tasks excluded). One indexed query per request.
import type { Database, Statement } from 'bun:sqlite'
import type { Clock } from '../clock'
import { percentile } from './histogram'

export const DAY_MS = 86_400_000
export const DAY_CHOICES = ['7', '30', '90'] as const

const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10)
const round = (x: number, d: number) => Math.round(x * 10 ** d) / 10 ** d

interface DailyRow { day: number; bucket: number; total: number; completed: number; failed: number; processing: number; queued: number; pendingApproval: number; credits: number; verified: number }

export class DailyStats {
  private q: { series: Statement; overall: Statement }

  constructor(db: Database, private clock: Clock) {
    this.q = {
      // bucket -1: the day's totals; other rows: the day's latency histogram (bucket → n in `total`)
      series: db.prepare(`SELECT day, -1 AS bucket, total, completed, failed, processing, queued, pending_approval AS pendingApproval, credits, verified
          FROM task_daily WHERE operator_id = ?1 AND day BETWEEN ?2 AND ?3
        UNION ALL SELECT day, bucket, n, 0, 0, 0, 0, 0, 0, 0 FROM task_latency_daily WHERE operator_id = ?1 AND day BETWEEN ?2 AND ?3`),
      overall: db.prepare(`SELECT (SELECT count(*) FROM operators) AS operators, (SELECT count(*) FROM agents) AS agents,
        d.total, d.completed, d.verified, d.latency_n AS latencyN, d.latency_sum AS latencySum
        FROM (SELECT 1) LEFT JOIN task_daily d ON d.operator_id = '' AND d.day = -1`),
    }
  }

  /** `days` UTC days ending today (the service clock), oldest first, zero-filled. `operatorId` '' = all operators. */
  series(operatorId: string, days: number) {
    const today = Math.floor(this.clock.now() / DAY_MS)
    const first = today - days + 1
    const totals = new Map<number, DailyRow>()
    const hist = new Map<number, Map<number, number>>()
    for (const r of this.q.series.all(operatorId, first, today) as DailyRow[]) {
      if (r.bucket === -1) totals.set(r.day, r)
      else {
        let h = hist.get(r.day)
        if (!h) hist.set(r.day, (h = new Map()))
        h.set(r.bucket, r.total)
      }
    }
    const series = []
    for (let day = first; day <= today; day++) {
      const r = totals.get(day)
      const h = hist.get(day) ?? new Map<number, number>()
      series.push({
        date: isoDay(day),
        tasks: { total: r?.total ?? 0, completed: r?.completed ?? 0, failed: r?.failed ?? 0, processing: (r?.processing ?? 0) + (r?.queued ?? 0), pendingApproval: r?.pendingApproval ?? 0 },
        creditsSpent: r?.credits ?? 0,
        verified: r?.verified ?? 0,
        verificationRate: r?.completed ? round(r.verified / r.completed, 4) : 0,
        latencyP50Ms: percentile(h, 0.5),
        latencyP95Ms: percentile(h, 0.95),
      })
    }
    return { days, from: isoDay(first), to: isoDay(today), series }
  }

  /** GET /api/v1/public/stats: all-time figures over all operators (system tasks excluded). */
  overall() {
    const r = this.q.overall.get() as { operators: number; agents: number; total: number | null; completed: number | null; verified: number | null; latencyN: number | null; latencySum: number | null }
    return {
      totalTasks: r.total ?? 0, totalOperators: r.operators, totalAgents: r.agents,
      avgLatencyMs: r.latencyN ? round(r.latencySum! / r.latencyN, 2) : 0,
      verificationRate: r.completed ? round((r.verified ?? 0) / r.completed, 4) : 0,
    }
  }
}
