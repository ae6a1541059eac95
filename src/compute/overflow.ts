// Overflow queue: compute work that found the key pool full waits here, durably, and runs FIFO per
// operator and model (a job never waits behind one for another, saturated model) and round-robin
// across operators as capacity frees up. Each job has an event log
// (queued, running, completed | failed) that the SSE status stream replays and follows.
//
// A job left running by a process that stopped goes back to the queue: at start on SQLite (one
// process); with replicas on PostgreSQL (`staleAfterMs`), a running job older than a provider call
// can take plus the lease is one whose replica died, whichever replica finds it.
import type { Clock } from '../clock'
import { conflict, notFound } from '../http/errors'
import { eventStream, type StreamGuard } from '../http/sse'
import { newId } from '../lib/ids'
import type { Logger } from '../log'
import { isStorageUnavailable, type StorageMonitor } from '../db/storage'
import { ComputeFailed, type ComputeService } from './service'
import type { CompletionRequest, CompletionResult } from './types'
import type { Transactor } from '../db/transactor'
import type { ComputeRepository } from './repository'

export interface JobEvent { id: number; event: string; data: Record<string, unknown> }
export type JobDoneHook = (job: { id: string; operatorId: string; taskId: string | null }, outcome: { result?: CompletionResult; error?: { code: string; message: string } }) => void | Promise<void>

const TERMINAL = new Set(['completed', 'failed'])

export class OverflowQueue {
  private listeners = new Map<string, Set<(e: JobEvent) => void>>()
  private lastServed = new Map<string, number>()
  private pumping = false
  /**
   * False once pump() found no queued job, until something queues one (enqueue, requeue, start-up
   * recovery): every freed pool slot calls pump(), and a gateway whose queue is empty then skips
   * the query for the queue's heads.
   */
  private maybeQueued = true
  private timer: ReturnType<typeof setInterval> | undefined
  private running = new Set<Promise<void>>()
  private storage: StorageMonitor | null = null
  private offRecovered: (() => void) | undefined
  /** False between start() and its recovery write (nothing is started before: recovery would re-queue it). */
  private startupDone = true
  /** Steps a full disk stopped (re-queue a job, record an outcome, resume its task): retried once space is back. */
  private stalled: (() => void | Promise<void>)[] = []
  /** The streams of queued jobs whose door streams (CompletionRequest.onDelta), by job id: in memory only, so a restart runs them unstreamed. */
  private streams = new Map<string, (text: string) => void>()

  /** Replicas: when running jobs were last checked for a dead replica's. */
  private staleCheckedAt = 0

  constructor(private repo: ComputeRepository, private tx: Transactor, private clock: Clock, private log: Logger, private compute: ComputeService, private onDone: JobDoneHook,
    private staleAfterMs: number | null = null) {
    compute.onCapacity(() => this.pump())
  }

  /** Re-queues jobs a stopped process left running and starts pumping; a full disk defers both until space is back. */
  /** Jobs waiting for a key (the `taskgate_compute_queue_depth` gauge). */
  queuedCount(): number { return this.repo.queuedCount() }

  start(storage: StorageMonitor | null = null): void {
    this.storage = storage
    this.offRecovered = storage?.onRecovered(() => this.resume())
    this.startupDone = false
    this.timer = setInterval(() => this.resume(), 500)
    this.timer.unref?.()
    this.resume()
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    this.offRecovered?.()
    this.stalled = [] // their jobs are 'running' (re-queued at the next start) or already recorded
    await Promise.allSettled([...this.running])
  }

  /** The timer's (and storage recovery's) round: start-up recovery once, stalled steps, then pump(). */
  private resume(): void {
    if (this.storage?.full) return
    if (!this.startupDone) {
      try {
        const n = this.staleAfterMs === null ? this.repo.recover() : this.repo.recover(this.clock.now() - this.staleAfterMs)
        this.maybeQueued = true
        if (n) this.log.warn({ recovered: n }, 'compute jobs re-queued after restart')
        this.startupDone = true
      } catch (e) {
        if (!isStorageUnavailable(e)) throw e
        this.storageFull(e)
        this.log.warn('compute queue start-up deferred until storage is available')
        return
      }
    }
    if (this.staleAfterMs !== null && Date.now() - this.staleCheckedAt >= this.staleAfterMs / 3) this.requeueStale()
    const stalled = this.stalled
    this.stalled = []
    for (const step of stalled) this.track(this.attempt(step))
    this.pump()
  }

  /** Replicas: running jobs a dead replica left (older than staleAfterMs) back to the queue. */
  private requeueStale(): void {
    this.staleCheckedAt = Date.now()
    try {
      const n = this.repo.recover(this.clock.now() - this.staleAfterMs!)
      if (n) { this.maybeQueued = true; this.log.warn({ recovered: n }, 'compute jobs of a replica that stopped answering re-queued') }
    } catch (e) {
      if (!isStorageUnavailable(e)) throw e
    }
  }

  /**
   * Queues a job (inside the caller's transaction when there is one) and returns its id. `agentId`
   * is the agent the job runs for (agent-bound keys read only their own agent's jobs);
   * `idempotencyKey` + `requestHash` make a retried request answer this job (see replay()).
   */
  enqueue(operatorId: string, request: CompletionRequest, o: { taskId?: string | null; agentId?: string | null; creditsCharged?: number; id?: string; idempotencyKey?: string | null; requestHash?: string | null; onDelta?: (text: string) => void } = {}): { id: string; position: number } {
    const id = o.id ?? newId('job')
    const now = this.clock.now()
    const { onDelta: _, ...stored } = request
    this.repo.insertJob({
      id, operatorId, taskId: o.taskId ?? null, agentId: o.agentId ?? null, model: request.model, request: JSON.stringify(stored), creditsCharged: o.creditsCharged ?? 0,
      idempotencyKey: o.idempotencyKey ?? null, requestHash: o.requestHash ?? null, createdAt: now,
    })
    const position = this.repo.ahead(request.model, now, id) + 1
    if (o.onDelta) this.streams.set(id, o.onDelta)
    this.emit(id, 'queued', { position })
    this.maybeQueued = true
    queueMicrotask(() => this.pump())
    return { id, position }
  }

  /**
   * A direct compute request's write, in one transaction: `check` (refusals that may have changed
   * meanwhile), then the job its Idempotency-Key already names (a concurrent twin that won), else
   * `charge` and the new job.
   */
  submit(operatorId: string, request: CompletionRequest, o: { id: string; agentId: string | null; creditsCharged: number; idempotencyKey: string | null; requestHash: string },
    steps: { check(): void; charge(): void }): { job: { jobId: string; position: number }; replayed: boolean } {
    return this.tx.write(() => {
      steps.check()
      if (o.idempotencyKey) {
        const prior = this.replay(operatorId, o.idempotencyKey, o.requestHash)
        if (prior) return { job: prior, replayed: true }
      }
      steps.charge()
      const job = this.enqueue(operatorId, request, { ...o, requestHash: o.idempotencyKey ? o.requestHash : null })
      return { job: { jobId: job.id, position: job.position }, replayed: false }
    })
  }

  /**
   * Fails every still-queued job of the operator (e.g. the kill-switch) inside the caller's
   * transaction and returns them; the caller refunds them or fails their tasks.
   */
  cancelQueued(operatorId: string, code: string, message: string): { id: string; taskId: string | null }[] {
    const rows = this.repo.cancelQueued(operatorId, code, message, this.clock.now())
    for (const r of rows) { this.streams.delete(r.id); this.emit(r.id, 'failed', { code, message }) }
    return rows
  }

  /**
   * Takes one job out of the queue (failed with `code`) inside the caller's transaction, if the pump
   * has not taken it yet; false once it runs or ran. The caller fails its task or refunds it (a
   * cancelled task: TaskService.cancel).
   */
  cancelJob(id: string, code: string, message: string): boolean {
    if (!this.repo.cancelJob(id, code, message, this.clock.now())) return false
    this.streams.delete(id)
    this.emit(id, 'failed', { code, message })
    return true
  }

  job(id: string) {
    const row = this.repo.job(id)
    if (!row) return null
    return { ...row, request: JSON.parse(row.request), result: row.result ? JSON.parse(row.result) : null } as {
      id: string; operatorId: string; taskId: string | null; agentId: string | null; model: string; request: CompletionRequest; status: string
      result: CompletionResult | null; errorCode: string | null; errorMessage: string | null; creditsCharged: number; createdAt: number
    }
  }

  /**
   * The job an operator's Idempotency-Key already names, with the 202 body it was first answered
   * with: null for a new key; 409 IDEMPOTENCY_KEY_REUSED when the key came with another request.
   */
  replay(operatorId: string, idempotencyKey: string, requestHash: string): { jobId: string; status: 'queued'; position: number } | null {
    const prior = this.repo.byIdempotencyKey(operatorId, idempotencyKey)
    if (!prior) return null
    if (prior.requestHash !== requestHash) throw conflict('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was used with a different request body')
    const first = this.repo.firstEvent(prior.id, 'queued')
    const position = first ? Number(JSON.parse(first).position ?? 1) : 1
    return { jobId: prior.id, status: 'queued', position }
  }

  /**
   * Runs queued jobs while the pool has capacity: among the oldest jobs of each (operator, model)
   * whose model has capacity, the one of the least recently served operator first.
   */
  pump(): void {
    if (this.pumping || !this.maybeQueued || !this.startupDone || this.storage?.full) return
    this.pumping = true
    try {
      for (;;) {
        const all = this.repo.heads()
        if (all.length === 0) { this.maybeQueued = false; return }
        for (const orphan of all.filter((h) => !this.compute.resolveModel(h.model))) this.abandon(orphan)
        const heads = all.filter((h) => this.compute.hasCapacity(h.model))
        if (heads.length === 0) return
        heads.sort((a, b) => (this.lastServed.get(a.operatorId) ?? 0) - (this.lastServed.get(b.operatorId) ?? 0))
        const next = heads[0]!
        if (!this.repo.setRunning(next.id, this.clock.now())) continue
        this.lastServed.set(next.operatorId, performance.now())
        const p = this.run(next.id, next.operatorId, next.taskId, JSON.parse(next.request)).finally(() => this.running.delete(p))
        this.running.add(p)
      }
    } catch (e) {
      if (!isStorageUnavailable(e)) throw e
      this.storageFull(e) // what was not started stays queued
    } finally {
      this.pumping = false
    }
  }

  /** A job whose model no provider serves any more (provider removed) fails; its hook refunds. */
  private abandon(job: { id: string; operatorId: string; taskId: string | null; model: string }): void {
    if (!this.repo.setRunning(job.id, this.clock.now())) return
    this.streams.delete(job.id)
    const error = { code: 'COMPUTE_FAILED', message: `no provider serves model ${job.model} any more` }
    this.track(this.attempt(async () => {
      this.record(job.id, { error })
      await this.attempt(() => this.onDone(job, { error }), job.id)
    }, job.id))
  }

  private async run(id: string, operatorId: string, taskId: string | null, request: CompletionRequest): Promise<void> {
    let outcome: { result?: CompletionResult; error?: { code: string; message: string } }
    try {
      this.emit(id, 'running', {})
      const onDelta = this.streams.get(id)
      const r = await this.compute.tryRun(onDelta ? { ...request, onDelta } : request)
      if (r === 'busy') { // capacity vanished between the check and the call: back in line
        await this.attempt(() => this.requeue(id), id)
        return
      }
      outcome = { result: r }
      this.streams.delete(id)
    } catch (e) {
      // A full disk before the call: back in line once space is back.
      if (isStorageUnavailable(e)) { this.stall(e, () => this.requeue(id), id); return }
      this.streams.delete(id)
      const message = e instanceof ComputeFailed ? e.message : 'compute failed'
      outcome = { error: { code: 'COMPUTE_FAILED', message } }
    }
    // A full disk keeps the outcome in memory: it is recorded, and its task resumed, once space is back.
    await this.attempt(async () => {
      this.record(id, outcome)
      await this.attempt(() => this.onDone({ id, operatorId, taskId }, outcome), id)
    }, id)
  }

  /** Writes a job's outcome and its terminal event. */
  private record(id: string, outcome: { result?: CompletionResult; error?: { code: string; message: string } }): void {
    this.tx.write(() => {
      const r = outcome.result
      if (r) {
        this.repo.finish(id, 'completed', JSON.stringify(r), null, null, this.clock.now())
        this.emit(id, 'completed', { result: { output: r.output, model: r.model, provider: r.provider, usage: r.usage, latencyMs: Math.round(r.latencyMs) } })
      } else {
        const { code, message } = outcome.error!
        this.repo.finish(id, 'failed', null, code, message, this.clock.now())
        this.emit(id, 'failed', { code, message })
      }
    })
  }

  private requeue(id: string): void {
    this.tx.write(() => {
      this.repo.setQueued(id)
      this.maybeQueued = true
      this.emit(id, 'queued', { position: 1 })
    })
  }

  /** Runs a step; a full disk stalls it until storage is back, other errors are logged. */
  private async attempt(step: () => void | Promise<void>, jobId?: string): Promise<void> {
    try {
      await step()
    } catch (e) {
      if (isStorageUnavailable(e)) this.stall(e, step, jobId)
      else this.log.error({ jobId, err: (e as Error).message }, 'compute job hook failed')
    }
  }

  private stall(error: unknown, step: () => void | Promise<void>, jobId?: string): void {
    this.stalled.push(step)
    this.storageFull(error)
    this.log.warn({ jobId }, 'compute job waits for storage to be available')
  }

  private storageFull(error: unknown): void {
    if (this.storage) this.storage.markFull(error)
    else this.log.warn({ err: (error as Error).message }, 'storage is full')
  }

  private track(p: Promise<void>): void {
    this.running.add(p)
    void p.finally(() => this.running.delete(p))
  }

  private emit(jobId: string, event: string, data: Record<string, unknown>): void {
    const e = { id: this.repo.appendEvent(jobId, event, JSON.stringify(data), this.clock.now()), event, data }
    queueMicrotask(() => { for (const fn of this.listeners.get(jobId) ?? []) fn(e) })
  }

  /**
   * The SSE stream of a job: replays events after `lastEventId`, then follows live ones, a
   * `: ping` comment every `pingMs`, and ends after the terminal event, when the client leaves or
   * when the guard's credential stops being valid.
   */
  stream(jobId: string, lastEventId: number, guard: StreamGuard, pingMs = 15_000): ReadableStream<Uint8Array> {
    if (!this.repo.job(jobId)) throw notFound('compute job')
    return eventStream({
      guard, pingMs, retryMs: 2000,
      open: (sink) => {
        let lastSent = lastEventId
        const send = (e: JobEvent) => {
          if (sink.closed || e.id <= lastSent) return
          lastSent = e.id
          sink.send({ id: e.id, event: e.event, data: { jobId, status: e.event, ...e.data } })
          if (TERMINAL.has(e.event)) sink.close()
        }
        const set = this.listeners.get(jobId) ?? new Set()
        this.listeners.set(jobId, set)
        set.add(send)
        const past = this.repo.events(jobId, lastEventId)
        for (const e of past) send({ id: e.id, event: e.event, data: JSON.parse(e.data) })
        // A client resuming after the end gets the terminal event again.
        if (!sink.closed && past.length === 0) {
          const all = this.repo.events(jobId, 0)
          const last = all[all.length - 1]
          if (last && TERMINAL.has(last.event)) { lastSent = last.id - 1; send({ id: last.id, event: last.event, data: JSON.parse(last.data) }) }
        }
        return () => {
          set.delete(send)
          if (set.size === 0 && this.listeners.get(jobId) === set) this.listeners.delete(jobId)
        }
      },
    })
  }
}
