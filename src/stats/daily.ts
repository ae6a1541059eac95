// Daily aggregates for the console charts and the public stats page, read from the rollups that
// triggers keep in the same transaction as every task write (migrations/0006_lists.sql,
// 0017_usage_rollups.sql): tasks by status, credits spent, verified count, latency percentiles,
// tokens and estimated cost per UTC day of the task's creation, per operator or over all operators
// (system tasks excluded). One indexed query per request.
import type { Clock } from '../clock'
import { percentiles } from './histogram'
import type { DailyRow, StatsRepository } from './repository'

export const DAY_MS = 86_400_000
export const DAY_CHOICES = ['7', '30', '90'] as const

const isoDay = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10)
const round = (x: number, d: number) => Math.round(x * 10 ** d) / 10 ** d

const PERCENTILES = [0.5, 0.95]

export class DailyStats {
  constructor(private repo: StatsRepository, private clock: Clock) {}

  /** `days` UTC days ending today (the service clock), oldest first, zero-filled. `operatorId` '' = all operators. */
  series(operatorId: string, days: number) {
    const today = Math.floor(this.clock.now() / DAY_MS)
    const first = today - days + 1
    const totals = new Map<number, DailyRow>()
    for (const r of this.repo.totals(operatorId, first, today)) totals.set(r.day, r)
    const latency = new Map<number, (number | null)[]>()
    const rows = this.repo.histogram(operatorId, first, today)
    for (let i = 0; i < rows.length;) {
      const day = rows[i]![0]
      let end = i
      while (end < rows.length && rows[end]![0] === day) end++
      latency.set(day, percentiles(rows, i, end, PERCENTILES))
      i = end
    }
    const series = []
    for (let day = first; day <= today; day++) {
      const r = totals.get(day)
      const l = latency.get(day)
      series.push({
        date: isoDay(day),
        tasks: { total: r?.total ?? 0, completed: r?.completed ?? 0, failed: r?.failed ?? 0, processing: (r?.processing ?? 0) + (r?.queued ?? 0), pendingApproval: r?.pendingApproval ?? 0 },
        creditsSpent: r?.credits ?? 0,
        verified: r?.verified ?? 0,
        verificationRate: r?.completed ? round(r.verified / r.completed, 4) : 0,
        latencyP50Ms: l?.[0] ?? null,
        latencyP95Ms: l?.[1] ?? null,
        tokens: { prompt: r?.promptTokens ?? 0, completion: r?.completionTokens ?? 0, total: (r?.promptTokens ?? 0) + (r?.completionTokens ?? 0) },
        costUsd: (r?.costMicroUsd ?? 0) / 1e6,
      })
    }
    return { days, from: isoDay(first), to: isoDay(today), series }
  }

  /** GET /api/v1/public/stats: all-time figures over all operators (system tasks excluded). */
  overall() {
    const r = this.repo.overall()
    return {
      totalTasks: r.total ?? 0, totalOperators: r.operators, totalAgents: r.agents,
      avgLatencyMs: r.latencyN ? round(r.latencySum! / r.latencyN, 2) : 0,
      verificationRate: r.completed ? round((r.verified ?? 0) / r.completed, 4) : 0,
    }
  }
}
