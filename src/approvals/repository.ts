// The `approvals` table: one request per held task (docs/governance.md, "Approvals").
import { and, count, desc, eq, min, sql, type SQL } from 'drizzle-orm'
import type { Db } from '../db'
import { approvals as a } from '../db/schema'
import { changes, setTo, preparedOnUse } from '../db/sql'

const p = sql.placeholder

export type Decision = 'PENDING' | 'APPROVED' | 'DENIED' | 'EXPIRED'

export interface ApprovalRow {
  id: string; operatorId: string; taskId: string; agentId: string; actionType: string | null; operation: string | null; target: string | null
  requestedValue: number | null; currency: string | null; triggerPolicy: string; triggerReason: string; policyEvaluations: string; evidenceRefs: string
  decision: Decision; decidedBy: string | null; decidedAt: number | null; decisionNote: string | null; callbackUrl: string | null; createdAt: number; expiresAt: number
}

/** A new request; `policyEvaluations` and `evidenceRefs` as JSON text. */
export type NewApproval = Omit<ApprovalRow, 'decision' | 'decidedBy' | 'decidedAt' | 'decisionNote' | 'callbackUrl'>

const cols = {
  id: a.id, operatorId: a.operatorId, taskId: a.taskId, agentId: a.agentId, actionType: a.actionType, operation: a.operation, target: a.target,
  requestedValue: a.requestedValue, currency: a.currency, triggerPolicy: a.triggerPolicy, triggerReason: a.triggerReason,
  policyEvaluations: sql<string>`${a.policyEvaluations}`, evidenceRefs: sql<string>`${a.evidenceRefs}`,
  decision: sql<Decision>`${a.decision}`, decidedBy: a.decidedBy, decidedAt: a.decidedAt, decisionNote: a.decisionNote, callbackUrl: a.callbackUrl,
  createdAt: a.createdAt, expiresAt: a.expiresAt,
}

export class ApprovalRepository {
  private q

  constructor(db: Db) {
    const operator = eq(a.operatorId, p('operatorId'))
    // An agent-bound key's list: its own agent's requests only (approvals_agent_idx).
    const agent = and(eq(a.agentId, p('agentId')), operator)
    const before = sql`(${a.createdAt}, ${a.id}) < (${p('beforeAt')}, ${p('beforeId')})`
    const page = (where: SQL | undefined) => db.select(cols).from(a).where(where).orderBy(desc(a.createdAt), desc(a.id)).limit(p('limit')).prepare()
    const pending = eq(a.decision, 'PENDING')
    this.q = preparedOnUse({
      insert: () => db.insert(a).values({
        id: p('id'), operatorId: p('operatorId'), taskId: p('taskId'), agentId: p('agentId'), actionType: p('actionType'), operation: p('operation'), target: p('target'),
        requestedValue: p('requestedValue'), currency: p('currency'), triggerPolicy: p('triggerPolicy'), triggerReason: p('triggerReason'),
        policyEvaluations: setTo('policyEvaluations'), evidenceRefs: setTo('evidenceRefs'), decision: 'PENDING', createdAt: p('createdAt'), expiresAt: p('expiresAt'),
      }).prepare(),
      get: () => db.select(cols).from(a).where(eq(a.id, p('id'))).prepare(),
      byTask: () => db.select({ id: a.id }).from(a).where(eq(a.taskId, p('taskId'))).prepare(),
      list: () => page(and(operator, eq(a.decision, p('decision')))),
      listBefore: () => page(and(operator, eq(a.decision, p('decision')), before)),
      agentList: () => page(and(agent, eq(a.decision, p('decision')))),
      agentListBefore: () => page(and(agent, eq(a.decision, p('decision')), before)),
      position: () => db.select({ createdAt: a.createdAt, id: a.id }).from(a).where(and(eq(a.id, p('id')), operator)).prepare(),
      agentPosition: () => db.select({ createdAt: a.createdAt, id: a.id }).from(a).where(and(eq(a.id, p('id')), operator, eq(a.agentId, p('agentId')))).prepare(),
      count: () => db.select({ n: count() }).from(a).where(and(operator, pending)).prepare(),
      agentCount: () => db.select({ n: count() }).from(a).where(and(agent, pending)).prepare(),
      nextExpiry: () => db.select({ at: min(a.expiresAt) }).from(a).where(and(operator, pending)).prepare(),
      pendingOf: () => db.select(cols).from(a).where(and(operator, pending)).prepare(),
      decide: () => db.update(a).set({ decision: setTo('decision'), decidedBy: setTo('decidedBy'), decidedAt: setTo('decidedAt'), decisionNote: setTo('note') })
        .where(and(eq(a.id, p('id')), pending)).prepare(),
      setCallback: () => db.update(a).set({ callbackUrl: setTo('url') }).where(eq(a.id, p('id'))).prepare(),
      forgetTask: () => db.delete(a).where(eq(a.taskId, p('taskId'))).prepare(),
    })
  }

  insert(r: NewApproval): void { this.q.insert.run({ ...r }) }
  get(id: string): ApprovalRow | null { return this.q.get.get({ id }) ?? null }
  idForTask(taskId: string): string | null { return this.q.byTask.get({ taskId })?.id ?? null }
  /**
   * Requests of an operator (of one agent when `agentId` is not null) with `decision`, newest first,
   * `limit` of them, those after `before` (the position of the previous page's last) when given.
   */
  page(operatorId: string, agentId: string | null, decision: Decision, limit: number, before?: { createdAt: number; id: string }): ApprovalRow[] {
    const v = { operatorId, decision, limit }
    if (before === undefined) return agentId === null ? this.q.list.all(v) : this.q.agentList.all({ ...v, agentId })
    const b = { ...v, beforeAt: before.createdAt, beforeId: before.id }
    return agentId === null ? this.q.listBefore.all(b) : this.q.agentListBefore.all({ ...b, agentId })
  }
  /** Where a request of the operator (of one agent when `agentId` is not null) sits in the lists; null when it is not theirs. */
  position(id: string, operatorId: string, agentId: string | null): { createdAt: number; id: string } | null {
    return (agentId === null ? this.q.position.get({ id, operatorId }) : this.q.agentPosition.get({ id, operatorId, agentId })) ?? null
  }
  /** Pending requests of the operator (of one agent when `agentId` is not null). */
  pendingCount(operatorId: string, agentId: string | null = null): number {
    return (agentId === null ? this.q.count.get({ operatorId }) : this.q.agentCount.get({ operatorId, agentId }))!.n
  }
  /** The earliest expiry of the operator's pending requests. */
  nextExpiry(operatorId: string): number | null { return this.q.nextExpiry.get({ operatorId })?.at ?? null }
  pendingOf(operatorId: string): ApprovalRow[] { return this.q.pendingOf.all({ operatorId }) }
  /** Records a decision on a pending request; false when it was not pending. */
  decide(id: string, decision: Decision, decidedBy: string | null, decidedAt: number, note: string | null): boolean {
    return changes(this.q.decide.run({ id, decision, decidedBy, decidedAt, note })) > 0
  }
  setCallback(id: string, url: string | null): void { this.q.setCallback.run({ id, url }) }
  forgetTask(taskId: string): void { this.q.forgetTask.run({ taskId }) }
}
