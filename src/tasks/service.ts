// Task submission (validation, idempotency, admission through stages 1–2), task views, the
// public list, and the per-task SSE stream of stage transitions.
import { assertAdmissible } from './admission'
import { TASK_TYPES } from '../agents/schema'
import { TIER_LIMITS } from '../config'
import { effectiveTier } from '../operators/service'
import { isoOrNull } from '../clock'
import { badRequest, conflict, notFound } from '../http/errors'
import { assertActsFor, canRead, type Principal } from '../http/auth'
import { newSortableId, sha256Hex } from '../lib/ids'
import { TERMINAL, type PipelineRunner, type TimelineEvent } from '../pipeline/runner'
import type { TaskRow } from './types'
import type { AgentIdentity, AgentService } from '../agents/service'
import { eventStream, type StreamGuard } from '../http/sse'
import { assertNotKilled } from '../guardrails/kill-switch'
import type { TaskLists } from './list'
import type { TaskRepository } from './repository'
import { parseCid, type IpfsNode } from '../ipfs/node'
import type { Transactor } from '../db/transactor'
import type { GroupCommitter } from '../db/group-commit'
import type { OperatorService } from '../operators/service'
import type { ComputeService } from '../compute/service'
import type { Ledger } from '../credits/ledger'
import type { Clock } from '../clock'
import type { ApprovalService } from '../approvals/service'
import type { KeyService } from '../keys/service'
import type { TosService } from '../tos/service'

export interface SubmitInput {
  agentId: string; taskType: string; prompt: string; model?: string
  metadata?: Record<string, unknown>; action?: Record<string, unknown>
  /** The door the task came through (TaskRow.door); absent for the REST API. */
  door?: TaskDoor
  /** A door's conversation and sampling parameters (TaskRow.computeRequest). */
  computeRequest?: Record<string, unknown>
  /** A door's stream: the output as the provider sends it (PipelineRunner.admit). Not stored. */
  onDelta?: (text: string) => void
}

/** The doors a task can come through (docs/doors.md); null for the REST API. */
export type TaskDoor = 'openai' | 'mcp' | 'a2a'

/** The failure code of a cancelled task (docs/pipeline.md, "Cancelling a task"). */
export const TASK_CANCELLED = 'TASK_CANCELLED'

/** What an Idempotency-Key is bound to: the request body as sent (the model as named, not as resolved). */
const requestHash = (input: SubmitInput) => sha256Hex(JSON.stringify([input.agentId, input.taskType, input.prompt, input.model ?? null, input.metadata ?? null, input.action ?? null, ...(input.door ? [input.door, input.computeRequest ?? null] : [])]))

/** Credits per task of this type (`costs`: TASKGATE_TASK_COST, with its "default"). */
export const taskCost = (costs: Record<string, number>, taskType: string): number => costs[taskType] ?? costs.default ?? 1

export interface TaskServiceDeps {
  tasks: Pick<TaskRepository, 'byIdempotencyKey' | 'refusedBefore' | 'delete' | 'attestation' | 'timeline' | 'legacyEvents'>
  lists: Pick<TaskLists, 'page'>
  tx: Transactor
  /** The submit's write path: submits share their COMMIT with each other and with the pipeline's. */
  group: Pick<GroupCommitter, 'run'>
  pipeline: Pick<PipelineRunner, 'task' | 'admit' | 'events' | 'cancelParked'>
  agents: Pick<AgentService, 'identity'>
  operators: Pick<OperatorService, 'byId'>
  compute: Pick<ComputeService, 'resolveModel'>
  ledger: Pick<Ledger, 'assertCovers'>
  clock: Pick<Clock, 'now'>
  approvals: Pick<ApprovalService, 'forgetTask' | 'idForTask' | 'withdraw'>
  keys: Pick<KeyService, 'consumeTestUse'>
  tos: Pick<TosService, 'assertAccepted'>
  ipfs: Pick<IpfsNode, 'block'>
  explorer: { tx(hash: string): string; attestation(uid: string): string }
  /** TASKGATE_TASK_COST (taskCost). */
  taskCost: Record<string, number>
  ssePingMs: number
}

export class TaskService {
  constructor(private d: TaskServiceDeps) {}

  /**
   * An earlier task with this Idempotency-Key, checked right after authentication and before any
   * payment, credit or guardrail check: the same body answers the original task, another body 409.
   */
  replay(p: Principal, input: SubmitInput, idempotencyKey: string | null): TaskRow | null {
    if (idempotencyKey === null) return null
    if (idempotencyKey.length < 1 || idempotencyKey.length > 255) throw badRequest('INVALID_IDEMPOTENCY_KEY', 'Idempotency-Key must be 1-255 characters')
    assertActsFor(p, input.agentId)
    const prior = this.d.tasks.byIdempotencyKey(p.operator.id, idempotencyKey)
    if (!prior) return null
    if (prior.requestHash !== requestHash(input)) throw conflict('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was used with a different request body')
    return this.d.pipeline.task(prior.id)
  }

  /**
   * Inserts the task and runs stages 1–2 in one transaction, committed together with concurrent
   * writes (the group commit: under load, submits share their COMMIT with each other and with the
   * pipeline's commits instead of writing the log once each). Refusals (validation, idempotency
   * conflict, credits) reject the promise; nothing of the refused submit is written.
   */
  /** `agent`: the task's agent as the caller's admission check just read it (assertAdmissible), else read here. */
  submit(p: Principal, input: SubmitInput, idempotencyKey: string | null, agent?: AgentIdentity | null): Promise<{ task: TaskRow; replayed: boolean }> {
    const write = this.prepareSubmit(p, input, idempotencyKey, { agent })
    return this.d.group.run(write)
  }

  /**
   * Checks a submit and returns its write (to run inside a transaction). `o.diagnostic` (a free
   * test run) is set only by testRun(), never from client input.
   */
  private prepareSubmit(p: Principal, input: SubmitInput, idempotencyKey: string | null, o: { diagnostic?: boolean; agent?: AgentIdentity | null }): () => { task: TaskRow; replayed: boolean } {
    if (!(TASK_TYPES as readonly string[]).includes(input.taskType)) throw badRequest('INVALID_TASK_TYPE', `unknown taskType ${input.taskType} (allowed: ${TASK_TYPES.join(', ')})`, { allowed: TASK_TYPES })
    assertActsFor(p, input.agentId)
    const agent = o.agent?.id === input.agentId && o.agent.operatorId === p.operator.id ? o.agent : this.d.agents.identity(p.operator.id, input.agentId)
    // The kill-switch as of now (not as the request began); system records (taskType system) are not agent work.
    if (input.taskType !== 'system') assertNotKilled(this.d.operators.byId(p.operator.id) ?? p.operator)
    const model = input.model ?? agent.model
    const provider = this.d.compute.resolveModel(model)
    if (!provider) throw badRequest('UNKNOWN_MODEL', `no provider serves model ${model}`)
    if (idempotencyKey !== null && (idempotencyKey.length < 1 || idempotencyKey.length > 255)) throw badRequest('INVALID_IDEMPOTENCY_KEY', 'Idempotency-Key must be 1-255 characters')
    const hash = requestHash(input)
    return () => {
      if (idempotencyKey) { // a concurrent twin may have won since replay() looked
        const prior = this.d.tasks.byIdempotencyKey(p.operator.id, idempotencyKey)
        if (prior) {
          if (prior.requestHash !== hash) throw conflict('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was used with a different request body')
          return { task: this.d.pipeline.task(prior.id)!, replayed: true }
        }
      }
      // Short of credits → 402 before any stage, so a refused or held task is never recorded for
      // an operator who could not pay for it (the route adds the x402 payment requirements).
      if (o.diagnostic !== true) this.d.ledger.assertCovers(p.operator.id, this.costOf(input.taskType))
      const now = this.d.clock.now()
      return { task: this.d.pipeline.admit({
        id: newSortableId('task'), operatorId: p.operator.id, agentId: agent.id, keyId: p.key?.id ?? null, taskType: input.taskType,
        prompt: input.prompt, model, provider: provider.name, metadata: input.metadata ?? null, action: input.action ?? null,
        ...(input.door ? { door: input.door, computeRequest: input.computeRequest ?? null } : {}),
        status: 'PROCESSING', stage: 0, idempotencyKey, requestHash: idempotencyKey ? hash : null, diagnostic: o.diagnostic === true, createdAt: now, updatedAt: now,
      }, agent, input.onDelta), replayed: false }
    }
  }

  /**
   * Deletes up to `limit` tasks that failed before their debit and before `before` (the retention
   * job), with their approval requests, in one transaction. Returns how many it deleted.
   */
  pruneRefused(before: number, limit: number): number {
    const { tasks, approvals } = this.d
    return this.d.tx.write(() => {
      const ids = tasks.refusedBefore(before, limit)
      for (const id of ids) {
        approvals.forgetTask(id)
        tasks.delete(id)
      }
      return ids.length
    })
  }

  costOf(taskType: string): number { return taskCost(this.d.taskCost, taskType) }

  /** Runs a diagnostic task for one of the operator's agents through the operator's test key. */
  testRun(p: Principal, agentId: string, body: { taskType?: string; prompt?: string }): TaskRow {
    const agent = assertAdmissible(this.d, p, agentId)! // free, but still an agent run: kill-switch and ToS apply
    const taskType = body.taskType ?? agent.capabilities[0]!
    const prompt = body.prompt ?? (taskType === 'sentiment_analysis'
      ? 'Diagnostic run: the service was fast and the answers were excellent, but setup was a little confusing.'
      : 'Diagnostic run. TaskGate checks that this agent can run a task end to end. The result is verified, stored on IPFS, attested and signed.')
    return this.d.tx.write(() => {
      const key = this.d.keys.consumeTestUse(p.operator.id, TIER_LIMITS[effectiveTier(p.operator)].defaultRpm)
      return this.prepareSubmit({ operator: p.operator, via: 'apiKey', key }, { agentId, taskType, prompt }, null, { diagnostic: true, agent })().task
    })
  }

  /**
   * Cancels one of the caller's tasks that has not reached compute (docs/pipeline.md, "Cancelling
   * a task"), in one transaction: a task held for approval (its request ends EXPIRED with the
   * reason as note; nothing was charged) or one QUEUED in the overflow queue whose job has not
   * started (the job leaves the queue, the debit is refunded). It becomes FAILED with
   * TASK_CANCELLED. A task cancelled before is answered as it is (cancelling twice changes
   * nothing); any other → 409 TASK_NOT_CANCELABLE. Another operator's task, or for an agent-bound
   * key another agent's → 404. `via` says through what it was cancelled (kept in the failure message).
   */
  cancel(p: Principal, id: string, via: string): TaskRow {
    const found = this.d.pipeline.task(id)
    if (!found || !canRead(p, found)) throw notFound('task')
    return this.d.tx.write(() => {
      const t = this.d.pipeline.task(id)!
      if (t.status === 'FAILED' && t.failureCode === TASK_CANCELLED) return t
      const message = `cancelled by its requester (${via}) before compute`
      if (t.status === 'PENDING_APPROVAL') this.d.approvals.withdraw(t.id, `the task was cancelled (${via})`)
      const cancelled = this.d.pipeline.cancelParked(t.id, { code: TASK_CANCELLED, message })
      if (!cancelled) {
        const why = t.status === 'QUEUED' ? 'its compute has started' : t.status === 'PROCESSING' ? 'it has reached compute' : `it is ${t.status}`
        throw conflict('TASK_NOT_CANCELABLE', `the task cannot be cancelled: ${why}; only a task held for approval (PENDING_APPROVAL) or waiting in the overflow queue (QUEUED) can be`, { taskStatus: t.status })
      }
      return cancelled
    })
  }

  /** The operator's task or 404. */
  owned(operatorId: string, id: string): TaskRow {
    const t = this.d.pipeline.task(id)
    if (!t || t.operatorId !== operatorId) throw notFound('task')
    return t
  }

  get(id: string): TaskRow {
    const t = this.d.pipeline.task(id)
    if (!t) throw notFound('task')
    return t
  }

  /** The public Task fields (docs/pipeline.md, "What a task shows"). */
  publicView(t: TaskRow) {
    return {
      id: t.id, taskType: t.taskType, status: t.status, agentId: t.agentId, model: t.model, provider: t.provider,
      latencyMs: t.latencyMs, ipfsCid: t.ipfsCid, stateRoot: t.stateRoot, verificationStatus: t.verificationStatus,
      verificationScore: t.verificationScore, verificationProof: t.verificationProof,
      verificationExplorerUrl: t.verificationProof ? this.d.explorer.tx(t.verificationProof) : null,
      attestationUid: t.attestationUid, attestationExplorerUrl: t.attestationUid ? this.d.explorer.attestation(t.attestationUid) : null,
      receiptCid: t.receiptCid, createdAt: new Date(t.createdAt).toISOString(), completedAt: isoOrNull(t.completedAt),
      door: (t.door ?? null) as TaskDoor | null,
    }
  }

  /**
   * Detail: public fields plus receipt and attestation; for the owner also the failure's message,
   * prompt (or its hash and length), output and timeline. `failureMessage` is the owner's only
   * (docs/security.md): its text may quote the prompt, the guardrail config, the operator's credit
   * figures, an approver's note or the kill-switch's reason, and failed tasks are listed publicly.
   * `timeline`: the task's events as the pipeline just published them (PipelineRunner.waitFor),
   * instead of reading them.
   */
  detail(t: TaskRow, owner: boolean, timeline: TimelineEvent[] | null = null) {
    const att = t.attestation || !t.attestationUid ? null : this.d.tasks.attestation(t.attestationUid)
    const events = owner ? (timeline ?? this.storedTimeline(t.id)) : null
    const base = {
      ...this.publicView(t), operatorId: t.operatorId, stage: t.stage, failureCode: t.failureCode,
      creditsCharged: t.creditsCharged, receipt: this.receiptOf(t), attestation: t.attestation ?? att?.attestation ?? null,
      // A task is held for approval at most once, and its `held` event names the approval (created in the same transaction).
      computeJobId: t.computeJobId, approvalId: events ? approvalIdOf(events) : this.d.approvals.idForTask(t.id),
    }
    if (!events) return base
    // A task that failed before its debit kept only its prompt's hash and length (PipelineRunner).
    const prompt = t.promptSha256 == null ? { prompt: t.prompt } : { promptSha256: t.promptSha256, promptLength: t.promptLength! }
    const usage = t.promptTokens == null ? null : { promptTokens: t.promptTokens, completionTokens: t.completionTokens ?? 0, totalTokens: t.promptTokens + (t.completionTokens ?? 0) }
    return { ...base, failureMessage: t.failureMessage, ...prompt, output: t.output, metadata: t.metadata, usage, costUsd: t.costUsd ?? null, timeline: events.map(answered) }
  }

  /**
   * The signed receipt: in the row as the pipeline just committed it, or in rows finished before it
   * stopped being stored there (src/tasks/repository.ts); else the receipt document at `receiptCid`.
   */
  private receiptOf(t: TaskRow): Record<string, unknown> | null {
    if (t.receipt || !t.receiptCid) return t.receipt ?? null
    const cid = parseCid(t.receiptCid)
    const block = cid ? this.d.ipfs.block(cid) : null
    if (!block) return null // a data dir restored without its ipfs.db
    try {
      const { type: _type, ...receipt } = JSON.parse(new TextDecoder().decode(block)) as Record<string, unknown>
      return receipt
    } catch { return null } // not the JSON the pipeline wrote
  }

  /**
   * The timeline as stored: in the task's row (an event's id is its position, from 1), or, for a
   * task that finished before migration 0013, its rows in task_events (ids from that table).
   */
  private storedTimeline(taskId: string): TimelineEvent[] {
    const stored = this.d.tasks.timeline(taskId)
    if (stored) return stored.map((e, i) => ({ id: i + 1, stage: e.stage, name: e.name, status: e.status, detail: e.detail ?? null, at: e.at }))
    return this.d.tasks.legacyEvents(taskId)
  }

  /**
   * A page of a task list with its exact total (src/tasks/list.ts: counters, one index range), the
   * count and the page read in one snapshot. `includeSystem`: also system tasks (ToS acceptances),
   * for the operator's own list only.
   */
  list(q: { page?: number; limit?: number; status?: string; taskType?: string; operatorId?: string; agentId?: string; includeSystem?: boolean }) {
    const page = q.page ?? 1
    const limit = q.limit ?? 20
    const { rows, total } = this.d.tx.read(() => this.d.lists.page(q, page, limit))
    return { data: rows.map((t) => this.publicView(t)), total, page, limit, totalPages: Math.ceil(total / limit) }
  }

  /**
   * SSE of stage transitions: replays the timeline, follows live events, ends when the task is
   * terminal (or held for approval), when the client leaves, or when the guard's credential fails.
   */
  events(t: TaskRow, guard: StreamGuard): ReadableStream<Uint8Array> {
    const emitter = this.d.pipeline.events
    return eventStream({
      guard, pingMs: this.d.ssePingMs,
      open: (sink) => {
        let last = 0
        const send = (e: { id: number; stage: number; name: string; status: string; detail: unknown; at: number | string }) => {
          if (sink.closed || e.id <= last) return
          last = e.id
          sink.send({ id: e.id, event: 'stage', data: { taskId: t.id, stage: e.stage, name: e.name, status: e.status, detail: e.detail, at: typeof e.at === 'number' ? new Date(e.at).toISOString() : e.at } })
          const cur = this.d.pipeline.task(t.id)
          if (cur && (TERMINAL.has(cur.status) || cur.status === 'PENDING_APPROVAL') && (e.status === 'failed' || e.status === 'completed' || e.status === 'held')) sink.close()
        }
        emitter.on(t.id, send)
        for (const e of this.storedTimeline(t.id)) send(e)
        const cur = this.d.pipeline.task(t.id)
        if (cur && TERMINAL.has(cur.status)) sink.close()
        return () => { emitter.off(t.id, send) }
      },
    })
  }
}

/** A timeline event as answered: `at` in ISO 8601. */
const answered = (e: TimelineEvent) => ({ id: e.id, stage: e.stage, name: e.name, status: e.status, detail: e.detail, at: new Date(e.at).toISOString() })

const approvalIdOf = (events: TimelineEvent[]): string | null => {
  const held = events.find((e) => e.status === 'held')
  return typeof held?.detail?.approvalId === 'string' ? held.detail.approvalId : null
}
