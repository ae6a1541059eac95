// The credit ledger: append-only entries plus a balance row per operator with two buckets
// (monthly allocation, purchased/granted). Every movement runs inside a write transaction, with the
// writes it belongs to; the balance can never go negative; a `ref` makes each movement idempotent.
import type { Clock } from '../clock'
import type { Transactor } from '../db/transactor'
import { ProblemError } from '../http/errors'
import type { Balance, Bucket, CreditsRepository, EntryView } from './repository'

export type { Balance } from './repository'
export const totalOf = (b: Balance) => b.allocationBalance + b.purchasedBalance

export class InsufficientCredits extends ProblemError {
  constructor(needed: number, balance: number) {
    super(402, 'INSUFFICIENT_CREDITS', `this needs ${needed} credit(s); the balance is ${balance}`, { needed, balance })
  }
}

export class Ledger {
  constructor(private repo: CreditsRepository, private tx: Transactor, private clock: Clock) {}

  /** Opens the operator's account with its monthly allocation (no-op if it exists). */
  open(operatorId: string, monthlyAllocation: number): void {
    this.tx.write(() => {
      const created = this.repo.open(operatorId, monthlyAllocation, this.clock.now())
      if (created && monthlyAllocation > 0) this.entry(operatorId, monthlyAllocation, monthlyAllocation, 'allocation', 'monthly_allocation', null, `open:${operatorId}`, null)
    })
  }

  balance(operatorId: string): Balance | null { return this.repo.balance(operatorId) }

  /** The balance row, locked after the operator's limits lock (the order every path takes them in: Transactor.lock). */
  private locked(operatorId: string): Balance | null {
    this.tx.lock(`limits:${operatorId}`)
    return this.repo.balanceLocked(operatorId)
  }

  /** Throws InsufficientCredits unless the operator holds `amount` credits (inside the caller's transaction when it must hold until its debit). */
  assertCovers(operatorId: string, amount: number): void {
    const b = this.balance(operatorId)
    const total = b ? totalOf(b) : 0
    if (total < amount) throw new InsufficientCredits(amount, total)
  }

  /**
   * Every move reads the balance locked (PostgreSQL: FOR UPDATE; SQLite's write lock does it) and
   * sets it from what it read, in the caller's transaction.
   *
   * Takes `amount` credits (allocation first, then purchased). Must be called inside a
   * transaction when it has to commit together with other writes. Idempotent by `ref`: a
   * second call with the same ref changes nothing and returns false.
   */
  debit(operatorId: string, amount: number, reason: string, ref: string, taskId: string | null = null): boolean {
    const b = this.locked(operatorId) // first: the ref check below then sees a concurrent move's entry
    if (this.repo.entryByRef(ref)) return false
    const total = b ? totalOf(b) : 0
    if (!b || total < amount) throw new InsufficientCredits(amount, total)
    const fromAlloc = Math.min(b.allocationBalance, amount)
    const alloc = b.allocationBalance - fromAlloc
    const purchased = b.purchasedBalance - (amount - fromAlloc)
    this.repo.setBalances(operatorId, alloc, purchased)
    const bucket = fromAlloc === amount ? 'allocation' : fromAlloc === 0 ? 'purchased' : 'mixed'
    this.entry(operatorId, -amount, alloc + purchased, bucket, reason, taskId, ref, fromAlloc)
    return true
  }

  /** Adds purchased or granted credits (they carry over monthly resets). Idempotent by ref. */
  credit(operatorId: string, amount: number, reason: string, ref: string, taskId: string | null = null): boolean {
    if (!Number.isInteger(amount) || amount <= 0) throw new ProblemError(400, 'INVALID_AMOUNT', 'amount must be a positive integer')
    const b = this.locked(operatorId)
    if (this.repo.entryByRef(ref)) return false
    if (!b) throw new ProblemError(404, 'NOT_FOUND', 'credit account not found')
    this.repo.setBalances(operatorId, b.allocationBalance, b.purchasedBalance + amount)
    this.entry(operatorId, amount, totalOf(b) + amount, 'purchased', reason, taskId, ref, null)
    return true
  }

  /**
   * Monthly refill: the allocation bucket is set to the tier's allocation (unspent allocation
   * does not carry over; purchased credits are untouched). Idempotent by ref.
   */
  refill(operatorId: string, allocation: number, ref: string): boolean {
    const b = this.locked(operatorId)
    if (this.repo.entryByRef(ref)) return false
    if (!b) { this.open(operatorId, allocation); return true }
    const delta = allocation - b.allocationBalance
    this.repo.refill(operatorId, allocation, this.clock.now())
    this.entry(operatorId, delta, b.purchasedBalance + allocation, 'allocation', 'monthly_refill', null, ref, null)
    return true
  }

  /** Operators whose allocation was last reset before `before` (ms). */
  dueForRefill(before: number): string[] { return this.repo.dueForRefill(before) }

  /** A page of the operator's entries, newest first, and how many there are. */
  entries(operatorId: string, page: number, limit: number): { total: number; rows: EntryView[] } {
    return { total: this.repo.countEntries(operatorId), rows: this.repo.entriesPage(operatorId, limit, (page - 1) * limit) }
  }

  /** The operator's entries after id `after`, oldest first (the export's pages). */
  entriesAfter(operatorId: string, after: number, limit: number): EntryView[] { return this.repo.entriesAfter(operatorId, after, limit) }

  /**
   * Gives back what the debit with `debitRef` took (once), to the bucket it came from: allocation
   * credits go back to the allocation (and so still expire at the next monthly reset), purchased
   * credits to the purchased bucket. Entries written before buckets were recorded (no
   * from_allocation) count by their bucket label.
   */
  refund(operatorId: string, debitRef: string, reason: string, taskId: string | null = null): boolean {
    const b = this.locked(operatorId)!
    const debit = this.repo.entryByRef(debitRef)
    if (!debit || this.repo.entryByRef(`refund:${debitRef}`)) return false
    const amount = -debit.delta
    const toAlloc = Math.min(amount, debit.fromAllocation ?? (debit.bucket === 'allocation' ? amount : 0))
    const toPurchased = amount - toAlloc
    this.repo.setBalances(operatorId, b.allocationBalance + toAlloc, b.purchasedBalance + toPurchased)
    const bucket = toPurchased === 0 ? 'allocation' : toAlloc === 0 ? 'purchased' : 'mixed'
    this.entry(operatorId, amount, totalOf(b) + amount, bucket, reason, taskId, `refund:${debitRef}`, toAlloc)
    return true
  }

  private entry(operatorId: string, delta: number, balanceAfter: number, bucket: Bucket, reason: string, taskId: string | null, ref: string, fromAllocation: number | null): void {
    this.repo.addEntry({ operatorId, delta, balanceAfter, bucket, reason, taskId, ref, createdAt: this.clock.now(), fromAllocation })
  }
}
