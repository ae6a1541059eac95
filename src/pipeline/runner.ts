// The pipeline runner. Stages 1 (policy) and 2 (debit) run inside the submit transaction; stages
// 3–8 run as a job ('task.run', without a row of its own while the runner has room: the task in
// PROCESSING is the record a restart resumes from) and commit together at the end (see run()). A commit
// holds each stage's result, its extra writes and the stage counter (a savepoint inside a group
// commit shared with other tasks), so after a crash the job resumes at the first stage not yet
// committed and nothing is applied twice.
import { EventEmitter } from 'node:events'
import type { GroupCommitter } from '../db/group-commit'
import type { Transactor } from '../db/transactor'
import type { StorageMonitor } from '../db/storage'
import type { StoredEvent, TaskRepository } from '../tasks/repository'
import { AGENT_FAULTS, observeFailure } from '../agents/fingerprint'
import type { AgentIdentity, AgentService } from '../agents/service'
import { ChainMoved, type ChainTips } from '../agents/chain-tips'
import type { JobRow, JobRunner } from '../jobs/runner'
import type { ComputeService, StartedCall } from '../compute/service'
import type { CompletionResult } from '../compute/types'
import type { OverflowQueue } from '../compute/overflow'
import type { Ledger } from '../credits/ledger'
import type { Clock } from '../clock'
import type { Logger } from '../log'
import { policy, resumeRefusal } from './stages/01-policy'
import { debit, debitRef } from './stages/02-debit'
import { compute, completionRequest, computedPatch } from './stages/03-compute'
import { verify } from './stages/04-verify'
import { ipfs } from './stages/05-ipfs'
import { fingerprint } from './stages/06-fingerprint'
import { attest } from './stages/07-attest'
import { receipt } from './stages/08-receipt'
import type { NewTask, Stage, StageContext, StageDeps, StageResult, TaskPatch, TaskRow } from './types'
import { ProblemError } from '../http/errors'
import { sha256Hex } from '../lib/ids'
import { charLength } from '../lib/chars'

export const STAGES: Stage[] = [policy, debit, compute, verify, ipfs, fingerprint, attest, receipt]
export const TERMINAL = new Set(['COMPLETED', 'FAILED'])

/** Waits for the work the stages of a commit group left in flight (StageResult.ready). */
const settled = (done: Done[]) => Promise.all(done.map((d) => d.r.ready))

/** One timeline event per stage run: `completed` for the receipt, `done` before it. */
const eventsOf = (done: Done[]): StoredEvent[] =>
  done.map((d) => ({ stage: d.stage.n, name: d.stage.name, status: d.stage.n === 8 ? 'completed' : 'done', detail: d.r.detail ?? null, at: d.at }))

/**
 * What a task that fails before its debit keeps of its request: the prompt's SHA-256 and length
 * instead of the prompt (up to 100,000 characters), and no metadata or door conversation. Such a
 * task cost nothing, so only the request rate bounds how many an operator makes (docs/security.md,
 * Limits). A task held for approval keeps all of it while it waits, as it may still run.
 */
const refusedRequest = (t: { prompt?: string }): TaskPatch => ({ prompt: '', promptSha256: sha256Hex(t.prompt ?? ''), promptLength: charLength(t.prompt ?? ''), metadata: null, computeRequest: null })

/** How often a task runs stages 4–8 again because its agent's chain moved (ChainMoved) before its job retries with backoff. */
const CHAIN_ATTEMPTS = 8

interface Done { stage: Stage; r: StageResult; at: number }

export interface TaskEvent {
  id: number; taskId: string; stage: number; name: string; status: string; detail: Record<string, unknown> | null; at: number
  /** In process only (never sent): the task as committed with this event, on the last event of a commit. */
  row?: TaskRow
  /**
   * In process only: on the event that ends a wait (completed, failed, held, queued), the task's
   * whole timeline so far when this process saw every event of it from stage 1 on (see publish and track).
   */
  timeline?: TimelineEvent[]
}

/** A timeline entry as answered: a stored event (tasks.timeline) with its id, its position from 1. */
export type TimelineEvent = Pick<TaskEvent, 'id' | 'stage' | 'name' | 'status' | 'detail' | 'at'>

/** Event statuses that end a submit's wait: the task is terminal or parked. */
const ENDS_WAIT = new Set(['completed', 'failed', 'held', 'queued'])
/** Event statuses that end a door's wait (settle): the task is terminal or held; it waits through the overflow queue. */
const SETTLES = new Set(['completed', 'failed', 'held'])

/**
 * Called inside the transaction that changes a task's status, with the task before and after: its
 * writes commit (or roll back) with the change. A door that tells its clients of state changes
 * registers one (src/a2a/push.ts, registered in src/services.ts); the pipeline knows nothing of it.
 */
export type StatusListener = (before: TaskRow, after: TaskRow) => void

/** What the runner uses, besides what it hands the stages (`stages`). */
export interface PipelineDeps {
  /** The tasks table, its timeline, and the agent's row when a task fails. */
  tasks: Pick<TaskRepository, 'get' | 'exists' | 'insert' | 'update' | 'processingIds' | 'parkedIds' | 'queuedWithFinishedCompute' | 'recordAgentFailure'>
  /** Transactions outside the group commit (an approval's debit, an overflow job's outcome). */
  tx: Transactor
  /** The pipeline's write path: stages 3–8 commit through it. */
  group: Pick<GroupCommitter, 'run' | 'afterCommit'>
  jobs: Pick<JobRunner, 'enqueue' | 'enqueueInline' | 'finishIn'>
  log: Logger
  clock: Pick<Clock, 'now'>
  agents: Pick<AgentService, 'byId'>
  compute: Pick<ComputeService, 'start'>
  overflow: Pick<OverflowQueue, 'job' | 'cancelJob'>
  storage: Pick<StorageMonitor, 'onFull' | 'full'>
  ledger: Pick<Ledger, 'refund'>
  chainTips: Pick<ChainTips, 'release'>
  stages: StageDeps
}

export class PipelineRunner {
  readonly events = new EventEmitter()
  private tasks: PipelineDeps['tasks']
  private group: PipelineDeps['group']
  /**
   * Timelines of the tasks submitted in this process, from their stage 1 event until the event
   * that ends a submit's wait, which takes the timeline along (TaskEvent.timeline): the submit's
   * answer then needs no read of the stored timeline. Bounded by the tasks in flight.
   */
  private timelines = new Map<string, TimelineEvent[]>()
  /**
   * Tasks as admit() left them (stages 1–2 done, their run started with the same transaction), and
   * the agent admit() had, for the first run: it starts from these instead of reading them again
   * (the agent's state root and metrics are read where they are written, stage 6). Taken once; a
   * later attempt reads both, and a provider call admit() started (`started`) goes to the first run
   * only. An entry whose transaction was rolled back is dropped when the job runner says its run
   * will not start (its started call aborted).
   */
  private admitted = new Map<string, { task: TaskRow; agent: AgentIdentity; started: StartedCall | null; onDelta?: (text: string) => void }>()
  private statusListeners: StatusListener[] = []

  constructor(private d: PipelineDeps) {
    this.events.setMaxListeners(0)
    this.tasks = d.tasks
    this.group = d.group
  }

  /** A stage's context: the task, its agent, and what stages use (each names its part: StageContext). */
  private ctx(task: TaskRow, agent: AgentIdentity, started?: StartedCall, onDelta?: (text: string) => void): StageContext {
    return { ...this.d.stages, task, agent, started, onDelta }
  }

  /**
   * At start-up (a hook of the job runner's recovery: registerJobs): a job for every task a stopped
   * process left in PROCESSING. Most ran without a job row (admit); one that has its row (recovered,
   * or waiting for a retry) keeps it: the pending row's key stops a second one.
   */
  resumeUnfinished(): void {
    const ids = this.tasks.processingIds()
    for (const id of ids) this.d.jobs.enqueue('task.run', { taskId: id }, { dedupeKey: `task:${id}`, maxAttempts: 10, unlessRunning: true })
    if (ids.length) this.d.log.warn({ tasks: ids.length }, 'resuming tasks that were running when the process stopped')
  }

  task(id: string): TaskRow | null { return this.tasks.get(id) }

  /** Adds a listener of status changes (StatusListener): every commit that changes a task's status calls it, inside its transaction. */
  onStatusChange(listener: StatusListener): void { this.statusListeners.push(listener) }

  /** Tells the listeners when the status changed; inside the caller's transaction. */
  private changed(before: TaskRow, after: TaskRow): void {
    if (before.status === after.status) return
    for (const l of this.statusListeners) l(before, after)
  }

  /**
   * Inserts a new task and runs stages 1–2 for it inside the caller's transaction. When both pass,
   * the task is inserted with their fields (one INSERT, not an INSERT and an UPDATE that moves the
   * counters the triggers keep) and their events go in one INSERT. A task held is inserted as
   * submitted first, then waits; a task refused is inserted without its prompt and metadata
   * (refusedRequest), then fails. Nothing a stage reads needs the row yet: the hourly guardrail
   * count leaves this task out either way, and the ledger entry and the approval only name it.
   */
  /** `onDelta`: a door's stream, handed the output as the provider sends it (first run only; see `admitted`). */
  admit(draft: NewTask, agent: AgentIdentity, onDelta?: (text: string) => void): TaskRow {
    const done: Done[] = []
    let task = draft as TaskRow // what the next stage reads
    for (const stage of [policy, debit]) {
      const r = stage.sync!(this.ctx(task, agent))
      if (r.fail || r.hold) {
        const upto = this.commitAll(this.tasks.insert(r.fail ? { ...draft, ...refusedRequest(draft) } : draft), done)
        if (r.fail) return this.commitFailure(upto, stage, r.fail)
        return this.commit(upto, stage, { patch: { status: 'PENDING_APPROVAL' }, detail: { reason: r.hold!.reason, ...r.detail }, apply: r.apply }, 'held')
      }
      done.push({ stage, r, at: this.d.clock.now() })
      task = { ...task, ...r.patch } as TaskRow
    }
    const events = eventsOf(done)
    task = this.tasks.insert({ ...draft, ...this.applyAll(draft as TaskRow, done) }, events)
    this.publish(task.id, events.length, events, task)
    // Stages 3–8 start once this transaction commits. A task in PROCESSING is its own record of
    // unfinished work (a restart resumes it: resumeUnfinished), so its run needs no job row unless
    // the runner is full or the run fails. A remote provider's call starts now, so the request
    // travels while the COMMIT is written; stage 3 takes its answer only once the task is committed,
    // and a rolled-back admission aborts it (ComputeService.start, docs/pipeline.md).
    const run = { dedupeKey: `task:${task.id}`, maxAttempts: 10 }
    const id = task.id
    let started: StartedCall | null = null
    // Whether the admission committed: told by the group commit when it is the one committing (no
    // read of the task back), else read once the transaction is over.
    let committed = false
    const told = this.group.afterCommit(() => { committed = true })
    const inline = this.d.jobs.enqueueInline('task.run', { taskId: id }, { ...run, committed: told ? () => committed : () => this.tasks.exists(id), abandoned: () => { started?.abort(); this.admitted.delete(id) } })
    if (!inline) this.d.jobs.enqueue('task.run', { taskId: id }, run)
    else started = this.d.compute.start(completionRequest(task, onDelta))
    if (this.admitted.size >= 10_000) this.admitted.clear()
    this.admitted.set(task.id, { task, agent, started, onDelta })
    return task
  }

  /**
   * Stages 3–8, resuming after the last committed stage. A stage's writes commit with the stages
   * after it, up to the end of the task: stages 4–8 are deterministic (a crash before the commit
   * runs them again to the same results), and so is stage 3 with a repeatable provider (the builtin
   * one); a remote provider's answer commits on its own first, so a crash never calls it twice.
   * Each stage keeps its own time in the timeline. The task's job is marked done in its last commit.
   */
  async run(taskId: string, job?: JobRow): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.runOnce(taskId, job)
      } catch (e) {
        // Another task of the agent committed a link first: stages 4–8 run again on the committed chain.
        if (!(e instanceof ChainMoved) || attempt >= CHAIN_ATTEMPTS) throw e
        this.d.log.debug({ taskId, attempt }, 'state root moved; running stages 4–8 again')
      }
    }
  }

  private async runOnce(taskId: string, job: JobRow | undefined): Promise<void> {
    const admitted = this.admitted.get(taskId)
    this.admitted.delete(taskId)
    const fresh = job?.attempts === 1 ? admitted : undefined
    if (!fresh) admitted?.started?.abort() // not this run's to take (never the case for an inline job's first run)
    const first = fresh?.task ?? this.task(taskId)
    if (!first || TERMINAL.has(first.status) || first.status === 'PENDING_APPROVAL') return
    let task: TaskRow = first
    const agent = fresh?.agent ?? this.d.agents.byId(task.agentId)!
    let pending: Done[] = []
    let linked = false // stage 6's link of the agent's chain committed
    const finish = () => { if (job) this.d.jobs.finishIn(job) }
    try {
      for (const stage of STAGES.slice(task.stage)) {
        if (task.status === 'QUEUED') return // waiting in the overflow queue; its completion resumes us
        const out = stage === compute ? stage.run!(this.ctx(task, agent, fresh?.started ?? undefined, fresh?.onDelta)) : stage.run!(this.ctx(task, agent))
        const r = out instanceof Promise ? await out : out // a result known at once: no turn given up
        r.ready?.catch(() => {}) // its failure surfaces where the group awaits it, not as an unhandled rejection meanwhile
        const cur = task
        if (r.fail) {
          const done = pending // the stages before the failing one
          await settled(done)
          await this.group.run(() => { this.commitFailure(this.commitAll(cur, done), stage, r.fail!); finish() })
          linked = done.some((d) => d.stage === fingerprint)
          return
        }
        if (r.queued) {
          await this.group.run(() => { this.commit(cur, { ...stage, n: cur.stage } as Stage, { patch: { ...r.patch, status: 'QUEUED' }, detail: r.queued, apply: r.apply }, 'queued'); finish() })
          return
        }
        pending.push({ stage, r, at: this.d.clock.now() })
        const last = stage === receipt
        if (last || (stage === compute && !r.repeatable)) {
          const done = pending
          pending = []
          await settled(done)
          task = await this.group.run(() => { const t = this.commitAll(cur, done); if (last) finish(); return t })
          linked ||= done.some((d) => d.stage === fingerprint)
        } else task = { ...task, ...r.patch } as TaskRow // what the next stage reads; committed with the rest
      }
    } finally {
      this.d.chainTips.release(agent.id, taskId, linked)
    }
  }

  /**
   * Commits stages run but not yet committed, in order (inside the caller's transaction): their
   * extra writes, then one UPDATE of the task with all their fields and a timeline event each.
   */
  private commitAll(task: TaskRow, done: Done[]): TaskRow {
    const patch = this.applyAll(task, done)
    const events = eventsOf(done)
    const length = this.tasks.update(task.id, patch, events)
    const row = { ...task, ...patch } as TaskRow
    this.changed(task, row)
    this.publish(row.id, length, events, row)
    return row
  }

  /** The stages' extra writes, in order; returns all their task fields. */
  private applyAll(task: TaskRow, done: Done[]): TaskPatch {
    const patch: TaskPatch = {}
    for (const d of done) {
      Object.assign(patch, this.stagePatch(task.status, patch, d.stage, d.r, d.at))
      const extra = d.r.apply?.()
      if (extra) Object.assign(patch, extra)
    }
    return patch
  }

  /** A stage's fields: its result, its number, the time, and PROCESSING once past the debit. */
  private stagePatch(status: string, before: TaskPatch, stage: Stage, r: StageResult, at: number): TaskPatch {
    const patch: TaskPatch = { ...r.patch, stage: stage.n, updatedAt: at }
    if (stage.n < 8 && !patch.status && (before.status ?? status) !== 'PROCESSING' && stage.n >= 2) patch.status = 'PROCESSING'
    return patch
  }

  /** Called by the overflow queue when a parked task's compute finished (its job is queued by the commit that parks it). */
  resumeFromCompute(taskId: string, outcome: { result?: Pick<CompletionResult, 'output' | 'provider' | 'latencyMs' | 'usage'>; error?: { code: string; message: string } }): void {
    const task = this.task(taskId)
    if (!task || task.status !== 'QUEUED') return
    this.d.tx.write(() => {
      if (outcome.error) { this.commitFailure(task, compute, outcome.error); return }
      const r = outcome.result!
      const now = this.d.clock.now()
      this.commit(task, compute, {
        patch: { status: 'PROCESSING', ...computedPatch(r, task.model, this.d.stages.prices, now - Math.round(r.latencyMs), now) },
        detail: { provider: r.provider, latencyMs: Math.round(r.latencyMs), overflow: true },
      })
      this.d.jobs.enqueue('task.run', { taskId }, { dedupeKey: `task:${taskId}`, maxAttempts: 10 })
    })
  }

  /**
   * Tasks still QUEUED although their overflow job finished (the process stopped between recording
   * the job's outcome and resuming the task): resumed from the recorded outcome, at start.
   */
  resumeFinishedCompute(): number {
    const rows = this.tasks.queuedWithFinishedCompute()
    for (const r of rows) {
      const job = this.d.overflow.job(r.jobId)
      if (!job) continue
      this.resumeFromCompute(r.taskId, job.status === 'completed' && job.result
        ? { result: job.result }
        : { error: { code: job.errorCode ?? 'COMPUTE_FAILED', message: job.errorMessage ?? 'compute failed' } })
    }
    if (rows.length) this.d.log.warn({ resumed: rows.length }, 'resumed tasks whose overflow compute finished before a restart')
    return rows.length
  }

  /**
   * Fails the operator's held (PENDING_APPROVAL) and QUEUED tasks with `code`, refunding what they
   * were charged. Must run inside a transaction. Returns how many it failed.
   */
  failParked(operatorId: string, code: string, message: string): number {
    const ids = this.tasks.parkedIds(operatorId)
    for (const id of ids) {
      const task = this.task(id)!
      this.commitFailure(task, task.status === 'QUEUED' ? compute : policy, { code, message })
    }
    return ids.length
  }

  /**
   * Fails a task that has not reached compute with `fail` (a cancel: docs/pipeline.md,
   * "Cancelling a task"): one held for approval (PENDING_APPROVAL, at stage 1, nothing charged), or
   * one QUEUED whose overflow job the pump has not taken yet (the job leaves the queue and the
   * debit is refunded, once: the refund's ledger ref). Null when the task is past that point (its
   * compute started, or it finished). Must run inside a transaction.
   */
  cancelParked(taskId: string, fail: { code: string; message: string }): TaskRow | null {
    const task = this.task(taskId)
    if (task?.status === 'PENDING_APPROVAL') return this.commitFailure(task, policy, fail)
    if (task?.status === 'QUEUED' && task.computeJobId && this.d.overflow.cancelJob(task.computeJobId, fail.code, fail.message)) return this.commitFailure(task, compute, fail)
    return null
  }

  /**
   * An approved hold resumes at stage 2 (the debit) inside the caller's transaction, then stages 3–8
   * on the job. First it meets again the stage-1 checks that depend on the present (RESUME_RULES:
   * the kill-switch, the agent, the active guardrails): one that no longer passes fails the task at
   * stage 1 with its code (GUARDRAIL_BLOCKED, KILL_SWITCH_ACTIVE), uncharged. Not enough credits
   * fails it too (INSUFFICIENT_CREDITS). Either way the answer carries the reason.
   */
  resumeApproved(taskId: string): { task: TaskRow | null; error: string | null } {
    const held = this.task(taskId)
    if (!held || held.status !== 'PENDING_APPROVAL') return { task: held, error: `the task is ${held?.status ?? 'gone'}, not held` }
    const agent = this.d.agents.byId(held.agentId)!
    const refusal = resumeRefusal(this.ctx(held, agent))
    if (refusal) return { task: this.commitFailure(held, policy, refusal), error: refusal.message }
    let r: StageResult
    try {
      r = this.d.tx.write(() => debit.sync!(this.ctx(held, agent))) // a savepoint: nothing half-written on refusal
    } catch (e) {
      if (!(e instanceof ProblemError)) throw e
      return { task: this.commitFailure(held, debit, { code: e.code, message: e.detail }), error: e.detail }
    }
    if (r.fail) return { task: this.commitFailure(held, debit, r.fail), error: r.fail.message }
    const task = this.commit(held, debit, r)
    this.d.jobs.enqueue('task.run', { taskId }, { dedupeKey: `task:${taskId}`, maxAttempts: 10 })
    return { task, error: null }
  }

  /** Fails a held task (denied, expired) at stage 1; nothing was charged. Must run inside a transaction. */
  failHeld(taskId: string, code: string, message: string): TaskRow | null {
    const task = this.task(taskId)
    if (!task || task.status !== 'PENDING_APPROVAL') return null
    return this.commitFailure(task, policy, { code, message })
  }

  /**
   * Resolves once the task is terminal or parked (approval, overflow queue), or after `ms`: with the
   * task as committed when the pipeline's own event ended the wait (no need to read it again), and
   * its timeline when this process has all of it, otherwise null. `known` is the task as the caller
   * just read or wrote it.
   */
  waitFor(taskId: string, ms: number, known?: TaskRow): Promise<{ row: TaskRow; timeline: TimelineEvent[] | null } | null> {
    return this.until(taskId, ms, ENDS_WAIT, (s) => TERMINAL.has(s) || s === 'PENDING_APPROVAL' || s === 'QUEUED', known)
      .then((e) => (e?.row ? { row: e.row, timeline: e.timeline ?? null } : null))
  }

  /**
   * Resolves with the task once it is COMPLETED, FAILED or held for approval (a door's answer waits
   * through the overflow queue, unlike waitFor), or as it is after `ms` or on a full disk.
   */
  settle(taskId: string, ms: number): Promise<TaskRow | null> {
    return this.until(taskId, ms, SETTLES, (s) => TERMINAL.has(s) || s === 'PENDING_APPROVAL').then(() => this.task(taskId))
  }

  /**
   * Resolves with the event whose status is in `ends`, or with null after `ms`, at once when the
   * task's status already `stops` the wait (or there is no such task), or on a full disk: no stage
   * can commit until space is back, so the caller answers with the task as it is rather than hold
   * the request for space (docs/security.md, "A full disk").
   */
  private until(taskId: string, ms: number, ends: ReadonlySet<string>, stops: (status: string) => boolean, known?: TaskRow): Promise<TaskEvent | null> {
    return new Promise((resolve) => {
      const done = (e: TaskEvent | null = null) => { clearTimeout(t); this.events.off(taskId, on); offFull(); resolve(e) }
      const on = (e: TaskEvent) => { if (ends.has(e.status)) done(e) }
      const t = setTimeout(done, ms)
      this.events.on(taskId, on)
      const offFull = this.d.storage.onFull(() => done())
      const cur = known ?? this.task(taskId)
      if (!cur || stops(cur.status) || this.d.storage.full) done()
    })
  }

  /** Writes a stage's result; must run inside a transaction. */
  private commit(task: TaskRow, stage: Stage, r: StageResult, status = 'done'): TaskRow {
    const now = this.d.clock.now()
    const patch = this.stagePatch(task.status, {}, stage, r, now)
    const event: StoredEvent = { stage: stage.n, name: stage.name, status: stage.n === 8 ? 'completed' : status, detail: r.detail ?? null, at: now }
    // The stage's extra writes see the task with its fields (a hold's approval notifies with them);
    // the event goes with the last UPDATE.
    let last: TaskPatch = patch
    if (r.apply) {
      this.tasks.update(task.id, patch)
      last = r.apply() ?? {}
    }
    const length = this.tasks.update(task.id, last, [event])
    const row = { ...task, ...patch, ...last } as TaskRow
    this.changed(task, row)
    this.publish(task.id, length, [event])
    return row
  }

  /**
   * Fails the task; refunds its debit when no result exists yet. A task that never got past stage 1
   * (its debit not committed: refused, denied, expired, stopped while held) keeps only its prompt's
   * hash and length (refusedRequest). Must run inside a transaction.
   */
  private commitFailure(task: TaskRow, stage: Stage, fail: { code: string; message: string }): TaskRow {
    const now = this.d.clock.now()
    const refunded = !task.output && this.d.ledger.refund(task.operatorId, debitRef(task.id), 'task_refund', task.id)
    const patch: TaskPatch = {
      status: 'FAILED', failureCode: fail.code, failureMessage: fail.message, updatedAt: now, completedAt: now, creditsCharged: refunded ? 0 : task.creditsCharged,
      ...(task.stage < 2 && task.promptSha256 == null ? refusedRequest(task) : {}),
    }
    const event: StoredEvent = { stage: stage.n, name: stage.name, status: 'failed', detail: { code: fail.code, message: fail.message, refunded }, at: now }
    const length = this.tasks.update(task.id, patch, [event])
    if (task.agentId) {
      const agent = this.d.agents.byId(task.agentId)
      // Failures the agent is answerable for enter its behaviour metrics, so its ari (and trust level) can fall.
      const metrics = agent && AGENT_FAULTS.has(fail.code) ? JSON.stringify(observeFailure(agent.metrics)) : null
      this.tasks.recordAgentFailure(task.agentId, now, metrics)
    }
    const row = { ...task, ...patch } as TaskRow
    this.changed(task, row)
    this.publish(task.id, length, [event])
    return row
  }

  /**
   * Publishes events just appended to the task's timeline, once the caller's transaction is over.
   * `length` is the timeline's length with them: an event's id is its position. The last event
   * carries the row as committed (`row`) and, when it ends a submit's wait, the whole timeline.
   */
  private publish(taskId: string, length: number, events: StoredEvent[], row?: TaskRow): void {
    if (events.length === 0) return
    const first = length - events.length + 1
    const lastIndex = events.length - 1
    queueMicrotask(() => {
      const timeline = this.track(taskId, first, events)
      events.forEach((e, i) => this.events.emit(taskId, { id: first + i, taskId, ...e, ...(i === lastIndex ? { ...(row ? { row } : {}), ...(timeline ? { timeline } : {}) } : {}) }))
    })
  }

  /**
   * Keeps the timeline of a task this process saw from its stage 1 event on; returns it whole when
   * these events end a submit's wait (and forgets it). A timeline that does not read as one run of
   * the pipeline (ids not increasing, stages going back: events of a transaction rolled back after
   * they were published, whose ids were handed out again) is dropped, and the answer reads the
   * stored one instead.
   */
  private track(taskId: string, first: number, events: StoredEvent[]): TimelineEvent[] | null {
    let kept = this.timelines.get(taskId)
    if (!kept) {
      if (events[0]!.stage !== 1) return null // a task resumed here (approval, restart): its start is stored only
      if (this.timelines.size >= 10_000) this.timelines.clear() // never ended (a submit rolled back after its events went out): their answers read the stored timelines
      this.timelines.set(taskId, (kept = []))
    }
    for (const [i, e] of events.entries()) {
      const prev = kept[kept.length - 1]
      if (prev && (first + i <= prev.id || e.stage < prev.stage)) { this.timelines.delete(taskId); return null }
      kept.push({ id: first + i, stage: e.stage, name: e.name, status: e.status, detail: e.detail, at: e.at })
    }
    if (!ENDS_WAIT.has(events[events.length - 1]!.status)) return null
    this.timelines.delete(taskId)
    return kept
  }
}
