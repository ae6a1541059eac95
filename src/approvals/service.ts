// The approval queue (docs/governance.md, "Approvals"). Stage 1 holds a submission whose
// `action.requestedValue` exceeds the operator's `approvalThreshold` unless every auto-rule passes
// (an empty list never auto-approves): the task waits as PENDING_APPROVAL with nothing charged and
// an approval request is recorded, with two durable jobs: `approval.expiring` one hour before
// `expiresAt` and `approval.expire` at `expiresAt` (both on the service clock, also across a
// restart). Resolving it approves (the task resumes at stage 2, the debit) or denies (FAILED
// APPROVAL_DENIED); expiry fails it with APPROVAL_EXPIRED. Every event goes to the webhook outbox.
import type { Clock } from '../clock'
import { badRequest, conflict, forbidden, notFound, tooManyRequests } from '../http/errors'
import type { Principal } from '../http/auth'
import type { JobRunner } from '../jobs/runner'
import { newId } from '../lib/ids'
import type { StageResult } from '../pipeline/types'
import type { TaskRow } from '../tasks/types'
import type { WebhookBody, WebhookEvent, WebhookOutbox } from '../webhooks/outbox'
import { evaluateRules, type AutoRule, type Evaluation } from './rules'
import type { Transactor } from '../db/transactor'
import type { ApprovalRepository, ApprovalRow } from './repository'

export const DECISIONS = ['PENDING', 'APPROVED', 'DENIED', 'EXPIRED'] as const
export type Decision = (typeof DECISIONS)[number]
export const RESOLVE_WAIT_MS = 30_000
const HOUR_MS = 3_600_000
export const TRIGGER_POLICY = 'human_approval_threshold'

/** What the service needs from the rest of the server: each a narrow function, no container. */
export interface ApprovalDeps {
  /** The operator's active approval settings (guardrails). */
  settings(operatorId: string): { approvalThreshold: number | null; approvalTtlHours: number; approvalWebhookUrl: string | null; approvalAutoRules: Record<string, unknown>[] }
  trustLevelOf(agentId: string): string
  pipeline: {
    resumeApproved(taskId: string): { task: TaskRow | null; error: string | null }
    failHeld(taskId: string, code: string, message: string): TaskRow | null
    waitFor(taskId: string, ms: number): Promise<unknown>
    task(taskId: string): TaskRow | null
  }
  /** The task's result as the resolve answer's `receipt` carries it (docs/governance.md, "Approvals"). */
  receiptOf(task: TaskRow): Record<string, unknown>
  resolveUrl(approvalId: string): string
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

/** Whose requests a caller sees and acts on: its operator's, and for an agent-bound key only its agent's. */
export interface ApprovalScope { operatorId: string; agentId: string | null }
export const scopeOf = (p: Principal): ApprovalScope => ({ operatorId: p.operator.id, agentId: p.key?.agentId ?? null })

export class ApprovalService {

  /** `maxPending`: approval requests one operator may have pending (TASKGATE_MAX_PENDING_APPROVALS). */
  constructor(private repo: ApprovalRepository, private tx: Transactor, private clock: Clock, private jobs: JobRunner, private outbox: WebhookOutbox, private deps: ApprovalDeps, private maxPending: number) {}

  /**
   * Stage 1's approval rule: null when the task needs no approval (no action value over the
   * threshold, or every auto-rule passed), else a hold whose `apply` records the request. An
   * operator with `maxPending` requests pending gets 429 TOO_MANY_PENDING_APPROVALS instead, which
   * rolls the whole submission back: no task, no request, no webhook (a held task costs nothing
   * and keeps its prompt, so the queue is bounded; docs/security.md, Limits).
   */
  holdFor(task: TaskRow): StageResult | null {
    const value = (task.action as { requestedValue?: unknown } | null)?.requestedValue
    if (typeof value !== 'number' || task.taskType === 'system') return null
    const g = this.deps.settings(task.operatorId)
    if (g.approvalThreshold === null || !(value > g.approvalThreshold)) return null
    const action = task.action as { actionType?: string; operation?: string; target?: string; currency?: string; evidenceRefs?: string[] }
    const now = this.clock.now()
    const rules = g.approvalAutoRules as unknown as AutoRule[]
    const { evaluations, autoApprove } = evaluateRules(rules, { requestedValue: value, target: action.target ?? null, trustLevel: this.deps.trustLevelOf(task.agentId), now })
    const money = `${value}${action.currency ? ` ${action.currency}` : ''}`
    const threshold: Evaluation = { name: 'approval_threshold', result: 'fail', reason: `requestedValue ${money} exceeds approvalThreshold ${g.approvalThreshold}` }
    if (autoApprove) return null
    this.tx.lock(`limits:${task.operatorId}`) // replicas: one count-then-hold at a time per operator
    const pending = this.repo.pendingCount(task.operatorId)
    if (pending >= this.maxPending) {
      const next = this.repo.nextExpiry(task.operatorId) ?? now
      throw tooManyRequests('TOO_MANY_PENDING_APPROVALS', `${pending} approval requests are pending, the most an operator may have (${this.maxPending}): resolve some before submitting more actions that need approval`, (next - now) / 1000, { limit: this.maxPending, pending })
    }
    const triggerReason = `${threshold.reason}${rules.length ? '; not every auto-approve rule passed' : ''}`
    const id = newId('apr')
    return {
      hold: { reason: triggerReason },
      detail: { approvalId: id },
      apply: () => {
        const expiresAt = now + g.approvalTtlHours * HOUR_MS
        this.repo.insert({
          id, operatorId: task.operatorId, taskId: task.id, agentId: task.agentId, actionType: action.actionType ?? null, operation: action.operation ?? null, target: action.target ?? null,
          requestedValue: value, currency: action.currency ?? null, triggerPolicy: TRIGGER_POLICY, triggerReason,
          policyEvaluations: JSON.stringify([threshold, ...evaluations]), evidenceRefs: JSON.stringify({ refs: action.evidenceRefs ?? [] }), createdAt: now, expiresAt,
        })
        this.jobs.enqueue('approval.expire', { id }, { runAt: expiresAt, dedupeKey: `approval.expire:${id}` })
        if (expiresAt - HOUR_MS > now) this.jobs.enqueue('approval.expiring', { id }, { runAt: expiresAt - HOUR_MS, dedupeKey: `approval.expiring:${id}` })
        this.notify(this.row(id)!, 'approval.required')
      },
    }
  }

  private row(id: string): ApprovalRow | null { return this.repo.get(id) }

  /** Deletes the request of a task the retention job deletes (a failed task's request is over: TaskService.pruneRefused). Inside the caller's transaction. */
  forgetTask(taskId: string): void { this.repo.forgetTask(taskId) }

  idForTask(taskId: string): string | null { return this.repo.idForTask(taskId) }

  view(r: ApprovalRow) {
    return {
      id: r.id, taskId: r.taskId, operatorId: r.operatorId, agentId: r.agentId, actionType: r.actionType, operation: r.operation, target: r.target,
      requestedValue: r.requestedValue, currency: r.currency, triggerPolicy: r.triggerPolicy, triggerReason: r.triggerReason,
      policyEvaluations: JSON.parse(r.policyEvaluations) as Evaluation[], evidenceRefs: JSON.parse(r.evidenceRefs) as Record<string, unknown>,
      decision: r.decision, decidedBy: r.decidedBy, decidedAt: iso(r.decidedAt), decisionNote: r.decisionNote, createdAt: iso(r.createdAt)!, expiresAt: iso(r.expiresAt),
    }
  }

  /**
   * The caller's requests, newest first, `limit` at a time (keyset: `before` is the last id of the
   * previous page; an id that is not one of the caller's → 400). `more`: whether older requests
   * follow. An agent-bound key sees its own agent's requests only (scopeOf).
   */
  list(scope: ApprovalScope, decision: Decision = 'PENDING', limit = 1000, before?: string) {
    const { operatorId, agentId } = scope
    let at: { createdAt: number; id: string } | undefined
    if (before !== undefined) {
      at = this.repo.position(before, operatorId, agentId) ?? undefined
      if (!at) throw badRequest('INVALID_CURSOR', `before: ${before} is not one of your approval requests`)
    }
    const rows = this.repo.page(operatorId, agentId, decision, limit + 1, at)
    return { data: rows.slice(0, limit).map((r) => this.view(r)), more: rows.length > limit }
  }

  /** Every request of the operator, newest first (the data export). */
  listAll(operatorId: string) {
    const all = DECISIONS.flatMap((d) => {
      const out: ReturnType<ApprovalService['view']>[] = []
      const scope = { operatorId, agentId: null }
      for (let page = this.list(scope, d); ; page = this.list(scope, d, 1000, out[out.length - 1]!.id)) {
        out.push(...page.data)
        if (!page.more) return out
      }
    })
    return all.sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id))
  }

  /** How many of the caller's requests are pending (an agent-bound key: its own agent's). */
  count(scope: ApprovalScope) {
    return { pending: this.repo.pendingCount(scope.operatorId, scope.agentId) }
  }

  /**
   * One of the caller's requests, or 404: another operator's, and for an agent-bound key another
   * agent's (whose one-shot callback it could otherwise take over).
   */
  owned(scope: ApprovalScope, id: string): ApprovalRow {
    const r = this.row(id)
    if (!r || r.operatorId !== scope.operatorId || (scope.agentId !== null && r.agentId !== scope.agentId)) throw notFound('approval request')
    return r
  }

  /** Registers the one-shot callback (the URL is checked by the caller). */
  registerCallback(p: Principal, id: string, url: string): void {
    const r = this.owned(scopeOf(p), id)
    if (r.decision !== 'PENDING') throw conflict('APPROVAL_ALREADY_RESOLVED', `the approval request is ${r.decision}`, { decision: r.decision })
    this.repo.setCallback(id, url)
  }

  /**
   * Approve or deny (docs/governance.md, "Approvals"). An agent-bound key never resolves (403;
   * another agent's request 404); a resolved or expired request → 409. Approving answers the
   * receipt when the task finished within 30 s; a task that could not resume (the present
   * guardrails or kill-switch refuse it, or the credits do not cover it) has failed at once: its
   * receipt carries the failureCode and `resumeError` the reason.
   */
  async resolve(p: Principal, id: string, decision: 'approved' | 'denied', note: string | null) {
    const r = this.owned(scopeOf(p), id) // another agent's request: 404, as everywhere
    if (p.key?.agentId) throw forbidden('APPROVAL_RESOLVE_FORBIDDEN', 'an agent-bound key cannot resolve approval requests: use the operator\'s bearer token or an operator key')
    if (r.decision === 'PENDING' && r.expiresAt <= this.clock.now()) this.expire(id) // its job has not run yet
    let resumeError: string | null = null
    this.tx.write(() => {
      const now = this.clock.now()
      const stored = decision === 'approved' ? 'APPROVED' : 'DENIED'
      if (!this.repo.decide(id, stored, p.operator.id, now, note)) {
        const cur = this.row(id)!
        throw conflict('APPROVAL_ALREADY_RESOLVED', `the approval request is already ${cur.decision}`, { decision: cur.decision })
      }
      if (decision === 'approved') resumeError = this.deps.pipeline.resumeApproved(r.taskId).error
      else this.deps.pipeline.failHeld(r.taskId, 'APPROVAL_DENIED', `denied by the operator${note ? `: ${note}` : ''}`)
      this.notify(this.row(id)!, 'approval.resolved')
    })
    let receipt: Record<string, unknown> | null = null
    if (decision === 'approved') {
      // A task refused when it resumed has failed already (its failureCode says why); one that resumed runs on.
      if (resumeError === null) await this.deps.pipeline.waitFor(r.taskId, RESOLVE_WAIT_MS)
      const t = this.deps.pipeline.task(r.taskId)
      if (t && (t.status === 'COMPLETED' || t.status === 'FAILED')) receipt = this.deps.receiptOf(t)
    }
    return { success: true as const, decision, taskId: r.taskId, receipt, resumeError }
  }

  /** The expiry job: a request still PENDING at `expiresAt` becomes EXPIRED and its task FAILED (APPROVAL_EXPIRED). */
  expire(id: string): void {
    const r = this.row(id)
    if (!r || r.decision !== 'PENDING') return
    if (r.expiresAt > this.clock.now()) { this.jobs.enqueue('approval.expire', { id }, { runAt: r.expiresAt, dedupeKey: `approval.expire:${id}` }); return }
    this.tx.write(() => this.close(r, `no decision within the approval TTL (expired ${iso(r.expiresAt)})`, 'APPROVAL_EXPIRED'))
  }

  /**
   * The kill-switch ends the operator's pending requests (EXPIRED, with the reason as the note);
   * the kill-switch fails their tasks itself. Must run inside its transaction.
   */
  endForOperator(operatorId: string, reason: string): number {
    const rows = this.repo.pendingOf(operatorId)
    for (const r of rows) this.close(r, `ended by the kill-switch: ${reason}`, null)
    return rows.length
  }

  /**
   * The pending request of a held task its requester cancels (TaskService.cancel), inside the
   * caller's transaction: EXPIRED with `note` as its decisionNote (decidedBy null) and
   * approval.resolved sent with decision "expired", as the kill-switch ends requests; the caller
   * fails the task. Nothing when the task has no pending request.
   */
  withdraw(taskId: string, note: string): void {
    const id = this.repo.idForTask(taskId)
    const r = id ? this.row(id) : null
    if (r?.decision === 'PENDING') this.close(r, note, null)
  }

  /** EXPIRED, the task failed with `failCode` (unless null), and approval.resolved sent with decision "expired". */
  private close(r: ApprovalRow, note: string, failCode: string | null): void {
    if (!this.repo.decide(r.id, 'EXPIRED', null, this.clock.now(), note)) return
    if (failCode) this.deps.pipeline.failHeld(r.taskId, failCode, `the approval request expired: ${note}`)
    this.notify(this.row(r.id)!, 'approval.resolved')
  }

  /** The `approval.expiring` job, one hour before expiresAt. */
  expiring(id: string): void {
    const r = this.row(id)
    if (!r || r.decision !== 'PENDING') return
    this.tx.write(() => this.notify(r, 'approval.expiring'))
  }

  /** Queues the event for the configured webhook URL and, for approval.resolved, the one-shot callback (once). */
  private notify(r: ApprovalRow, event: WebhookEvent): void {
    const body: WebhookBody = {
      event, approvalId: r.id, taskId: r.taskId, agentId: r.agentId, actionType: r.actionType ?? '', operation: r.operation ?? '', target: r.target ?? '',
      requestedValue: r.requestedValue, currency: r.currency, triggerPolicy: r.triggerPolicy, triggerReason: r.triggerReason,
      resolveUrl: this.deps.resolveUrl(r.id), decision: r.decision === 'PENDING' ? null : r.decision.toLowerCase(), decidedBy: r.decidedBy,
      timestamp: new Date(this.clock.now()).toISOString(),
    }
    const url = this.deps.settings(r.operatorId).approvalWebhookUrl
    if (url) this.outbox.enqueue(r.operatorId, r.id, url, body)
    if (event === 'approval.resolved' && r.callbackUrl) {
      this.outbox.enqueue(r.operatorId, r.id, r.callbackUrl, body)
      this.repo.setCallback(r.id, null)
    }
  }
}
