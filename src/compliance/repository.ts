// Compliance certificates (docs/architecture.md, "Data layer"): the issued certificates, and the
// figures a certificate's summary reads from the tasks, the ledger and the agents.
import { and, asc, count, desc, eq, gte, inArray, isNotNull, lt, ne, sql } from 'drizzle-orm'
import type { Db } from '../db'
import { insertionOrder } from '../db/dialect'
import { agents, complianceCertificates, ledgerEntries, tasks } from '../db/schema'
import { preparedOnUse } from '../db/sql'

/** The ledger reasons that count as spending (net of their refunds). */
const SPENDING = ['task_debit', 'compute_debit', 'task_refund', 'compute_refund']
const p = sql.placeholder

export class ComplianceRepository {
  private q

  constructor(db: Db) {
    const c = complianceCertificates
    const notSystem = ne(tasks.taskType, 'system')
    const finishedAt = sql`coalesce(${tasks.completedAt}, ${tasks.updatedAt})`
    this.q = preparedOnUse({
      counts: () => db.select({ status: tasks.status, n: count(), verified: sql<number | null>`sum(CASE WHEN ${tasks.verificationStatus} = 'VERIFIED' THEN 1 ELSE 0 END)` })
        .from(tasks).where(and(eq(tasks.operatorId, p('operatorId')), notSystem, gte(tasks.createdAt, p('from')), lt(tasks.createdAt, p('to')))).groupBy(tasks.status).prepare(),
      spent: () => db.select({ n: sql<number>`coalesce(-sum(${ledgerEntries.delta}), 0)` }).from(ledgerEntries)
        .where(and(eq(ledgerEntries.operatorId, p('operatorId')), inArray(ledgerEntries.reason, SPENDING), gte(ledgerEntries.createdAt, p('from')), lt(ledgerEntries.createdAt, p('to')))).prepare(),
      agents: () => db.select({ id: agents.id }).from(agents).where(eq(agents.operatorId, p('operatorId'))).orderBy(asc(agents.id)).prepare(),
      agentTasks: () => db.select({ n: count() }).from(tasks).where(and(eq(tasks.agentId, p('agentId')), notSystem, gte(tasks.createdAt, p('from')), lt(tasks.createdAt, p('to')))).prepare(),
      agentRoot: () => db.select({ r: tasks.stateRoot }).from(tasks).where(and(eq(tasks.agentId, p('agentId')), isNotNull(tasks.stateRoot), lt(finishedAt, p('to'))))
        .orderBy(desc(finishedAt), desc(tasks.id)).limit(1).prepare(),
      insert: () => db.insert(c).values({ id: p('id'), operatorId: p('operatorId'), issuedAt: p('issuedAt'), autoKey: p('autoKey'), certificate: p('certificate') })
        .onConflictDoNothing().prepare(),
      hasAuto: () => db.select({ one: sql`1` }).from(c).where(eq(c.autoKey, p('autoKey'))).prepare(),
      list: () => db.select({ certificate: c.certificate }).from(c).where(eq(c.operatorId, p('operatorId'))).orderBy(desc(c.issuedAt), desc(insertionOrder(db, c.id))).prepare(),
    })
  }

  /** The operator's tasks created in [from, to) by status, with how many of each were verified (system tasks excluded). */
  taskCounts(operatorId: string, from: number, to: number): { status: string; n: number; verified: number | null }[] { return this.q.counts.all({ operatorId, from, to }) }

  /** Credits debited for tasks and compute in [from, to), net of refunds. */
  creditsSpent(operatorId: string, from: number, to: number): number { return this.q.spent.get({ operatorId, from, to })!.n }

  /** The operator's agents' ids, in order. */
  agentIds(operatorId: string): string[] { return this.q.agents.all({ operatorId }).map((r) => r.id) }

  /** The agent's tasks created in [from, to) (system tasks excluded). */
  agentTasks(agentId: string, from: number, to: number): number { return this.q.agentTasks.get({ agentId, from, to })!.n }

  /** The agent's state root after the last task it finished before `to`, or null. */
  agentRoot(agentId: string, to: number): string | null { return this.q.agentRoot.get({ agentId, to })?.r ?? null }

  /** Stores a certificate (nothing when the monthly one for its auto key exists). */
  insert(c: { id: string; operatorId: string; issuedAt: number; autoKey: string | null; certificate: object }): void { this.q.insert.run(c) }

  hasAuto(autoKey: string): boolean { return this.q.hasAuto.get({ autoKey }) !== undefined }

  /** The operator's certificates, newest first. */
  list(operatorId: string): unknown[] { return this.q.list.all({ operatorId }).map((r) => r.certificate) }
}
