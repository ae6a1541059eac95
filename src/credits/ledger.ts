// The credit ledger: append-only entries plus a balance row per operator with two buckets
// (monthly allocation, purchased/granted). Every movement is one synchronous SQLite transaction;
// the balance can never go negative; a `ref` makes each movement idempotent.
import type { Database } from 'bun:sqlite'
import type { Clock } from '../clock'
import { ProblemError } from '../http/errors'

export interface Balance { operatorId: string; allocationBalance: number; purchasedBalance: number; monthlyAllocation: number; lastResetAt: number }
export const totalOf = (b: Balance) => b.allocationBalance + b.purchasedBalance

export class InsufficientCredits extends ProblemError {
  constructor(needed: number, balance: number) {
    super(402, 'INSUFFICIENT_CREDITS', `this needs ${needed} credit(s); the balance is ${balance}`, { needed, balance })
  }
}

export class Ledger {
  private q
  constructor(private db: Database, private clock: Clock) {
    this.q = {
      get: db.prepare('SELECT operator_id AS operatorId, allocation_balance AS allocationBalance, purchased_balance AS purchasedBalance, monthly_allocation AS monthlyAllocation, last_reset_at AS lastResetAt FROM credit_balances WHERE operator_id = ?1'),
      open: db.prepare('INSERT INTO credit_balances (operator_id, allocation_balance, purchased_balance, monthly_allocation, last_reset_at) VALUES (?1, ?2, 0, ?2, ?3) ON CONFLICT(operator_id) DO NOTHING'),
      set: db.prepare('UPDATE credit_balances SET allocation_balance = ?2, purchased_balance = ?3 WHERE operator_id = ?1'),
      entry: db.prepare('INSERT INTO ledger_entries (operator_id, delta, balance_after, bucket, reason, task_id, ref, created_at, from_allocation) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)'),
      byRef: db.prepare('SELECT id, delta, bucket, from_allocation AS fromAllocation FROM ledger_entries WHERE ref = ?1'),
      refill: db.prepare('UPDATE credit_balances SET allocation_balance = ?2, monthly_allocation = ?2, last_reset_at = ?3 WHERE operator_id = ?1'),
      due: db.prepare('SELECT operator_id AS operatorId FROM credit_balances WHERE last_reset_at < ?1'),
      count: db.prepare('SELECT count(*) AS n FROM ledger_entries WHERE operator_id = ?1'),
      page: db.prepare('SELECT id, delta, balance_after AS balanceAfter, bucket, reason, task_id AS taskId, created_at AS createdAt FROM ledger_entries WHERE operator_id = ?1 ORDER BY id DESC LIMIT ?2 OFFSET ?3'),
    }
  }

  /** Opens the operator's account with its monthly allocation (no-op if it exists). */
  open(operatorId: string, monthlyAllocation: number): void {
    this.db.transaction(() => {
      const created = this.q.open.run(operatorId, monthlyAllocation, this.clock.now()).changes > 0
      if (created && monthlyAllocation > 0) this.q.entry.run(operatorId, monthlyAllocation, monthlyAllocation, 'allocation', 'monthly_allocation', null, `open:${operatorId}`, this.clock.now(), null)
    }).immediate()
  }

  balance(operatorId: string): Balance | null { return (this.q.get.get(operatorId) as Balance | null) ?? null }

  /** Throws InsufficientCredits unless the operator holds `amount` credits (inside the caller's transaction when it must hold until its debit). */
  assertCovers(operatorId: string, amount: number): void {
    const b = this.balance(operatorId)
    const total = b ? totalOf(b) : 0
    if (total < amount) throw new InsufficientCredits(amount, total)
  }

  /**
   * Takes `amount` credits (allocation first, then purchased). Must be called inside a
   * transaction when it has to commit together with other writes. Idempotent by `ref`: a
   * second call with the same ref changes nothing and returns false.
   */
  debit(operatorId: string, amount: number, reason: string, ref: string, taskId: string | null = null): boolean {
    if (this.q.byRef.get(ref)) return false
    const b = this.balance(operatorId)
    const total = b ? totalOf(b) : 0
    if (!b || total < amount) throw new InsufficientCredits(amount, total)
    const fromAlloc = Math.min(b.allocationBalance, amount)
    const alloc = b.allocationBalance - fromAlloc
    const purchased = b.purchasedBalance - (amount - fromAlloc)
    this.q.set.run(operatorId, alloc, purchased)
    const bucket = fromAlloc === amount ? 'allocation' : fromAlloc === 0 ? 'purchased' : 'mixed'
    this.q.entry.run(operatorId, -amount, alloc + purchased, bucket, reason, taskId, ref, this.clock.now(), fromAlloc)
    return true
  }

  /** Adds purchased or granted credits (they carry over monthly resets). Idempotent by ref. */
  credit(operatorId: string, amount: number, reason: string, ref: string, taskId: string | null = null): boolean {
    if (!Number.isInteger(amount) || amount <= 0) throw new ProblemError(400, 'INVALID_AMOUNT', 'amount must be a positive integer')
    if (this.q.byRef.get(ref)) return false
    const b = this.balance(operatorId)
    if (!b) throw new ProblemError(404, 'NOT_FOUND', 'credit account not found')
    this.q.set.run(operatorId, b.allocationBalance, b.purchasedBalance + amount)
    this.q.entry.run(operatorId, amount, totalOf(b) + amount, 'purchased', reason, taskId, ref, this.clock.now(), null)
    return true
  }

  /**
   * Monthly refill: the allocation bucket is set to the tier's allocation (unspent allocation
   * does not carry over; purchased credits are untouched). Idempotent by ref.
   */
  refill(operatorId: string, allocation: number, ref: string): boolean {
    if (this.q.byRef.get(ref)) return false
    const b = this.balance(operatorId)
    if (!b) { this.open(operatorId, allocation); return true }
    const delta = allocation - b.allocationBalance
    this.q.refill.run(operatorId, allocation, this.clock.now())
    this.q.entry.run(operatorId, delta, b.purchasedBalance + allocation, 'allocation', 'monthly_refill', null, ref, this.clock.now(), null)
    return true
  }

  /** Operators whose allocation was last reset before `before` (ms). */
  dueForRefill(before: number): string[] {
    return (this.q.due.all(before) as { operatorId: string }[]).map((r) => r.operatorId)
  }

  entries(operatorId: string, page: number, limit: number) {
    const total = (this.q.count.get(operatorId) as { n: number }).n
    const rows = this.q.page.all(operatorId, limit, (page - 1) * limit) as { id: number; delta: number; balanceAfter: number; bucket: string; reason: string; taskId: string | null; createdAt: number }[]
    return { total, rows }
  }

  /**
   * Gives back what the debit with `debitRef` took (once), to the bucket it came from: allocation
   * credits go back to the allocation (and so still expire at the next monthly reset), purchased
   * credits to the purchased bucket. Entries written before buckets were recorded (no
   * from_allocation) count by their bucket label.
   */
  refund(operatorId: string, debitRef: string, reason: string, taskId: string | null = null): boolean {
    const debit = this.q.byRef.get(debitRef) as { delta: number; bucket: string; fromAllocation: number | null } | null
    if (!debit || this.q.byRef.get(`refund:${debitRef}`)) return false
    const b = this.balance(operatorId)!
    const amount = -debit.delta
    const toAlloc = Math.min(amount, debit.fromAllocation ?? (debit.bucket === 'allocation' ? amount : 0))
    const toPurchased = amount - toAlloc
    this.q.set.run(operatorId, b.allocationBalance + toAlloc, b.purchasedBalance + toPurchased)
    const bucket = toPurchased === 0 ? 'allocation' : toAlloc === 0 ? 'purchased' : 'mixed'
    this.q.entry.run(operatorId, amount, totalOf(b) + amount, bucket, reason, taskId, `refund:${debitRef}`, this.clock.now(), toAlloc)
    return true
  }
}
