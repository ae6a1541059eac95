// The credit ledger's tables (docs/architecture.md, "Data layer"): a balance row per operator and
// the append-only ledger entries; and the month's task figures of the credits dashboard.
import { and, asc, count, desc, eq, gt, gte, lt, ne, sql } from 'drizzle-orm'
import { forUpdate } from '../db/dialect'
import type { Db } from '../db'
import { creditBalances, ledgerEntries, tasks } from '../db/schema'
import { preparedOnUse, setTo } from '../db/sql'

export type Balance = typeof creditBalances.$inferSelect
export type Bucket = (typeof ledgerEntries.$inferSelect)['bucket']
export type LedgerEntry = Pick<typeof ledgerEntries.$inferSelect, 'operatorId' | 'delta' | 'balanceAfter' | 'bucket' | 'reason' | 'taskId' | 'ref' | 'createdAt' | 'fromAllocation'>
/** An entry as the billing view and the export show it. */
export interface EntryView { id: number; delta: number; balanceAfter: number; bucket: string; reason: string; taskId: string | null; createdAt: number }
/** A month's tasks on the dashboard: count, mean latency of the completed, verified and completed. */
export interface TaskFigures { n: number; lat: number | null; verified: number | null; completed: number | null }

const p = sql.placeholder
const view = {
  id: ledgerEntries.id, delta: ledgerEntries.delta, balanceAfter: ledgerEntries.balanceAfter, bucket: ledgerEntries.bucket,
  reason: ledgerEntries.reason, taskId: ledgerEntries.taskId, createdAt: ledgerEntries.createdAt,
}

export class CreditsRepository {
  private q

  constructor(db: Db) {
    const b = creditBalances
    const e = ledgerEntries
    this.q = preparedOnUse({
      balance: () => db.select().from(b).where(eq(b.operatorId, p('operatorId'))).prepare(),
      // PostgreSQL: locked until the transaction ends, so concurrent moves (replicas) read and set it in turn
      balanceLocked: () => forUpdate(db, db.select().from(b).where(eq(b.operatorId, p('operatorId')))).prepare(),
      open: () => db.insert(b).values({ operatorId: p('operatorId'), allocationBalance: p('allocation'), purchasedBalance: 0, monthlyAllocation: p('allocation'), lastResetAt: p('now') })
        .onConflictDoNothing({ target: b.operatorId }).returning({ operatorId: b.operatorId }).prepare(),
      set: () => db.update(b).set({ allocationBalance: setTo('allocation'), purchasedBalance: setTo('purchased') }).where(eq(b.operatorId, p('operatorId'))).prepare(),
      refill: () => db.update(b).set({ allocationBalance: setTo('allocation'), monthlyAllocation: setTo('allocation'), lastResetAt: setTo('now') }).where(eq(b.operatorId, p('operatorId'))).prepare(),
      due: () => db.select({ operatorId: b.operatorId }).from(b).where(lt(b.lastResetAt, p('before'))).prepare(),
      entry: () => db.insert(e).values({
        operatorId: p('operatorId'), delta: p('delta'), balanceAfter: p('balanceAfter'), bucket: p('bucket'), reason: p('reason'),
        taskId: p('taskId'), ref: p('ref'), createdAt: p('createdAt'), fromAllocation: p('fromAllocation'),
      }).prepare(),
      byRef: () => db.select({ id: e.id, delta: e.delta, bucket: e.bucket, fromAllocation: e.fromAllocation }).from(e).where(eq(e.ref, p('ref'))).prepare(),
      count: () => db.select({ n: count() }).from(e).where(eq(e.operatorId, p('operatorId'))).prepare(),
      page: () => db.select(view).from(e).where(eq(e.operatorId, p('operatorId'))).orderBy(desc(e.id)).limit(p('limit')).offset(p('offset')).prepare(),
      after: () => db.select(view).from(e).where(and(eq(e.operatorId, p('operatorId')), gt(e.id, p('after')))).orderBy(asc(e.id)).limit(p('limit')).prepare(),
      figures: () => db.select({
        n: count(),
        lat: sql<number | null>`avg(CASE WHEN ${tasks.status} = 'COMPLETED' THEN ${tasks.latencyMs} END)`,
        verified: sql<number | null>`sum(CASE WHEN ${tasks.verificationStatus} = 'VERIFIED' THEN 1 ELSE 0 END)`,
        completed: sql<number | null>`sum(CASE WHEN ${tasks.status} = 'COMPLETED' THEN 1 ELSE 0 END)`,
      }).from(tasks).where(and(eq(tasks.operatorId, p('operatorId')), ne(tasks.taskType, 'system'), gte(tasks.createdAt, p('from')), lt(tasks.createdAt, p('to')))).prepare(),
    })
  }

  balance(operatorId: string): Balance | null { return this.q.balance.get({ operatorId }) ?? null }
  /** The balance row, locked for the rest of the write transaction on PostgreSQL (SQLite's write lock covers it). */
  balanceLocked(operatorId: string): Balance | null { return this.q.balanceLocked.get({ operatorId }) ?? null }

  /** Opens the account unless it exists; whether it was opened. */
  open(operatorId: string, allocation: number, now: number): boolean { return this.q.open.get({ operatorId, allocation, now }) !== undefined }

  setBalances(operatorId: string, allocation: number, purchased: number): void { this.q.set.run({ operatorId, allocation, purchased }) }

  /** Sets the allocation bucket and the monthly allocation, and the reset time. */
  refill(operatorId: string, allocation: number, now: number): void { this.q.refill.run({ operatorId, allocation, now }) }

  /** Operators whose allocation was last reset before `before` (ms). */
  dueForRefill(before: number): string[] { return this.q.due.all({ before }).map((r) => r.operatorId) }

  addEntry(entry: LedgerEntry): void { this.q.entry.run(entry) }

  entryByRef(ref: string): { id: number; delta: number; bucket: Bucket; fromAllocation: number | null } | undefined { return this.q.byRef.get({ ref }) }

  countEntries(operatorId: string): number { return this.q.count.get({ operatorId })!.n }

  /** The operator's entries, newest first. */
  entriesPage(operatorId: string, limit: number, offset: number): EntryView[] { return this.q.page.all({ operatorId, limit, offset }) }

  /** The operator's entries after id `after`, oldest first. */
  entriesAfter(operatorId: string, after: number, limit: number): EntryView[] { return this.q.after.all({ operatorId, after, limit }) }

  /** The operator's tasks created in [from, to), system tasks excluded. */
  taskFigures(operatorId: string, from: number, to: number): TaskFigures { return this.q.figures.get({ operatorId, from, to })! }
}
