// Credits around the ledger: the monthly refill schedule, billing and balance views, admin grants
// and the dashboard. Money movements themselves live in ledger.ts.
import type { Clock } from '../clock'
import type { Tier } from '../config'
import type { Transactor } from '../db/transactor'
import { badRequest, forbidden, notFound } from '../http/errors'
import type { JobRunner } from '../jobs/runner'
import type { Logger } from '../log'
import { effectiveTier, type OperatorRow } from '../operators/service'
import { totalOf, type Balance, type Ledger } from './ledger'
import type { CreditsRepository } from './repository'

const DAY = 86_400_000

/** 00:00 UTC on the 1st of the month containing `ms`, and of the next month. */
export function monthStart(ms: number): number { const d = new Date(ms); return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) }
export function nextMonthStart(ms: number): number { const d = new Date(ms); return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) }
const monthTag = (ms: number) => new Date(ms).toISOString().slice(0, 7)

export class CreditService {
  constructor(
    private repo: CreditsRepository, private tx: Transactor, private clock: Clock, private ledger: Ledger,
    private jobs: Pick<JobRunner, 'enqueue'>, private operators: { byId(id: string): OperatorRow | undefined },
    private agents: { activeCount(operatorId: string): number }, private monthlyCredits: Record<Tier, number>, private log: Logger,
  ) {}

  /** Schedules the next refill; a refill missed while the server was down runs at once. */
  schedule(): void {
    const now = this.clock.now()
    const missed = this.ledger.dueForRefill(monthStart(now)).length > 0
    this.jobs.enqueue('credits.refill', {}, { runAt: missed ? now : nextMonthStart(now), dedupeKey: 'credits.refill' })
  }

  /** Refills every account last reset before this month, then schedules the next run. */
  refillDue(): number {
    const now = this.clock.now()
    const start = monthStart(now)
    let n = 0
    for (const operatorId of this.ledger.dueForRefill(start)) {
      const op = this.operators.byId(operatorId)
      if (!op) continue
      const allocation = this.monthlyCredits[effectiveTier(op)]
      this.tx.write(() => { if (this.ledger.refill(operatorId, allocation, `refill:${operatorId}:${monthTag(start)}`)) n++ })
    }
    if (n) this.log.info({ refilled: n, month: monthTag(start) }, 'monthly credit refill')
    this.jobs.enqueue('credits.refill', {}, { runAt: nextMonthStart(now), dedupeKey: 'credits.refill' })
    return n
  }

  balanceView(b: Balance) {
    return {
      id: `bal_${b.operatorId}`, operatorId: b.operatorId, balance: totalOf(b), monthlyAllocation: b.monthlyAllocation,
      lastResetAt: new Date(b.lastResetAt).toISOString(), allocationBalance: b.allocationBalance, purchasedBalance: b.purchasedBalance,
      nextResetAt: new Date(nextMonthStart(this.clock.now())).toISOString(),
    }
  }

  balanceOf(operatorId: string) {
    const b = this.ledger.balance(operatorId)
    if (!b) throw notFound('credit account')
    return this.balanceView(b)
  }

  /** The balance endpoint is self-only: another operator's id is 403 (docs/foundation.md, "Errors"). */
  balanceFor(callerId: string, operatorId: string) {
    if (callerId !== operatorId) throw forbidden('FORBIDDEN', 'you can only read your own credit balance')
    return this.balanceOf(operatorId)
  }

  billing(operatorId: string, page: number, limit: number) {
    const { total, rows } = this.ledger.entries(operatorId, page, limit)
    return {
      balance: this.balanceOf(operatorId),
      transactions: rows.map((r) => ({ id: r.id, operatorId, delta: r.delta, balanceAfter: r.balanceAfter, bucket: r.bucket, reason: r.reason, taskId: r.taskId, createdAt: new Date(r.createdAt).toISOString() })),
      page, limit, total, totalPages: Math.ceil(total / limit),
    }
  }

  grant(operatorId: string, amount: number, reason: string, idempotencyKey: string | null) {
    if (idempotencyKey !== null && (idempotencyKey.length < 1 || idempotencyKey.length > 255)) throw badRequest('INVALID_IDEMPOTENCY_KEY', 'Idempotency-Key must be 1-255 characters')
    if (!this.operators.byId(operatorId)) throw notFound('operator')
    const ref = idempotencyKey ? `grant:${operatorId}:${idempotencyKey}` : `grant:${operatorId}:${crypto.randomUUID()}`
    const applied = this.tx.write(() => this.ledger.credit(operatorId, amount, `admin_grant: ${reason}`, ref))
    return { applied, balance: this.balanceOf(operatorId) }
  }

  /** The dashboard's figures (docs/money.md, "Credits"): rates in percent, trends = change vs the previous month. */
  dashboard(operatorId: string) {
    const now = this.clock.now()
    const start = monthStart(now)
    const prevStart = monthStart(start - 1)
    const cur = this.repo.taskFigures(operatorId, start, now + 1)
    const prev = this.repo.taskFigures(operatorId, prevStart, start)
    const rate = (r: typeof cur) => (r.completed ? ((r.verified ?? 0) / r.completed) * 100 : 0)
    const b = this.ledger.balance(operatorId)
    const agents = this.agents.activeCount(operatorId)
    const round = (x: number) => Math.round(x * 100) / 100
    return {
      creditsRemaining: b ? totalOf(b) : 0,
      creditsTotal: b ? b.monthlyAllocation + b.purchasedBalance : 0,
      creditsResetDays: Math.ceil((nextMonthStart(now) - now) / DAY),
      tasksThisMonth: cur.n,
      tasksTrend: cur.n - prev.n,
      verificationRate: round(rate(cur)),
      verificationTrend: round(rate(cur) - rate(prev)),
      avgLatencyMs: round(cur.lat ?? 0),
      latencyTrend: round((cur.lat ?? 0) - (prev.lat ?? 0)),
      agentCount: agents,
    }
  }
}
