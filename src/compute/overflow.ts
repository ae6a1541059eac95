// Overflow queue: compute work that found the key pool full waits here, durably, and runs FIFO per
// operator and round-robin across operators as capacity frees up. Each job has an event log
// (queued, running, completed | failed) that the SSE status stream replays and follows.
import type { Database } from 'bun:sqlite'
import type { Clock } from '../clock'
import { notFound } from '../http/errors'
import { newId } from '../lib/ids'
import type { Logger } from '../log'
import { ComputeFailed, type ComputeService } from './service'
import type { CompletionRequest, CompletionResult } from './types'

export interface JobEvent { id: number; event: string; data: Record<string, unknown> }
export type JobDoneHook = (job: { id: string; operatorId: string; taskId: string | null }, outcome: { result?: CompletionResult; error?: { code: string; message: string } }) => void | Promise<void>

const TERMINAL = new Set(['completed', 'failed'])

export class OverflowQueue {
  private listeners = new Map<string, Set<(e: JobEvent) => void>>()
  private lastServed = new Map<string, number>()
  private pumping = false
  private timer: ReturnType<typeof setInterval> | undefined
  private running = new Set<Promise<void>>()
  private q

  constructor(private db: Database, private clock: Clock, private log: Logger, private compute: ComputeService, private onDone: JobDoneHook) {
    this.q = {
      insert: db.prepare("INSERT INTO compute_jobs (id, operator_id, task_id, model, request, status, credits_charged, created_at) VALUES (?1, ?2, ?3, ?4, ?5, 'queued', ?6, ?7)"),
      event: db.prepare('INSERT INTO compute_job_events (job_id, event, data, at) VALUES (?1, ?2, ?3, ?4) RETURNING id'),
      get: db.prepare('SELECT id, operator_id AS operatorId, task_id AS taskId, model, request, status, result, error_code AS errorCode, error_message AS errorMessage, credits_charged AS creditsCharged, created_at AS createdAt FROM compute_jobs WHERE id = ?1'),
      heads: db.prepare("SELECT id, operator_id AS operatorId, task_id AS taskId, model, request, created_at AS createdAt FROM compute_jobs c WHERE status = 'queued' AND created_at = (SELECT min(created_at) FROM compute_jobs WHERE status = 'queued' AND operator_id = c.operator_id) ORDER BY created_at, id"),
      position: db.prepare("SELECT count(*) AS n FROM compute_jobs WHERE status = 'queued' AND (created_at < ?1 OR (created_at = ?1 AND id < ?2))"),
      setRunning: db.prepare("UPDATE compute_jobs SET status = 'running', started_at = ?2 WHERE id = ?1 AND status = 'queued'"),
      setQueued: db.prepare("UPDATE compute_jobs SET status = 'queued' WHERE id = ?1"),
      finish: db.prepare('UPDATE compute_jobs SET status = ?2, result = ?3, error_code = ?4, error_message = ?5, finished_at = ?6 WHERE id = ?1'),
      events: db.prepare('SELECT id, event, data FROM compute_job_events WHERE job_id = ?1 AND id > ?2 ORDER BY id'),
      recover: db.prepare("UPDATE compute_jobs SET status = 'queued', started_at = NULL WHERE status = 'running'"),
    }
    compute.onCapacity(() => this.pump())
  }

  start(): void {
    const n = this.q.recover.run().changes
    if (n) this.log.warn({ recovered: n }, 'compute jobs re-queued after restart')
    this.timer = setInterval(() => this.pump(), 500)
    this.timer.unref?.()
    this.pump()
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    await Promise.allSettled([...this.running])
  }

  /** Queues a job (inside the caller's transaction when there is one) and returns its id. */
  enqueue(operatorId: string, request: CompletionRequest, o: { taskId?: string | null; creditsCharged?: number; id?: string } = {}): { id: string; position: number } {
    const id = o.id ?? newId('job')
    const now = this.clock.now()
    this.q.insert.run(id, operatorId, o.taskId ?? null, request.model, JSON.stringify(request), o.creditsCharged ?? 0, now)
    const position = (this.q.position.get(now, id) as { n: number }).n + 1
    this.emit(id, 'queued', { position })
    queueMicrotask(() => this.pump())
    return { id, position }
  }

  job(id: string) {
    const row = this.q.get.get(id) as Record<string, any> | null
    if (!row) return null
    return { ...row, request: JSON.parse(row.request), result: row.result ? JSON.parse(row.result) : null } as {
      id: string; operatorId: string; taskId: string | null; model: string; request: CompletionRequest; status: string
      result: CompletionResult | null; errorCode: string | null; errorMessage: string | null; creditsCharged: number; createdAt: number
    }
  }

  /** Runs queued jobs while the pool has capacity: the oldest job of the least recently served operator first. */
  pump(): void {
    if (this.pumping) return
    this.pumping = true
    try {
      for (;;) {
        const all = this.q.heads.all() as { id: string; operatorId: string; taskId: string | null; model: string; request: string }[]
        for (const orphan of all.filter((h) => !this.compute.resolveModel(h.model))) this.abandon(orphan)
        const heads = all.filter((h) => this.compute.hasCapacity(h.model))
        if (heads.length === 0) return
        heads.sort((a, b) => (this.lastServed.get(a.operatorId) ?? 0) - (this.lastServed.get(b.operatorId) ?? 0))
        const next = heads[0]!
        if (this.q.setRunning.run(next.id, this.clock.now()).changes === 0) continue
        this.lastServed.set(next.operatorId, performance.now())
        const p = this.run(next.id, next.operatorId, next.taskId, JSON.parse(next.request)).finally(() => this.running.delete(p))
        this.running.add(p)
      }
    } finally {
      this.pumping = false
    }
  }

  /** A job whose model no provider serves any more (provider removed) fails; its hook refunds. */
  private abandon(job: { id: string; operatorId: string; taskId: string | null; model: string }): void {
    if (this.q.setRunning.run(job.id, this.clock.now()).changes === 0) return
    const error = { code: 'COMPUTE_FAILED', message: `no provider serves model ${job.model} any more` }
    this.db.transaction(() => {
      this.q.finish.run(job.id, 'failed', null, error.code, error.message, this.clock.now())
      this.emit(job.id, 'failed', error)
    })()
    const p = Promise.resolve(this.onDone(job, { error })).catch((e) => this.log.error({ jobId: job.id, err: (e as Error).message }, 'compute job hook failed'))
    this.running.add(p)
    void p.finally(() => this.running.delete(p))
  }

  private async run(id: string, operatorId: string, taskId: string | null, request: CompletionRequest): Promise<void> {
    let outcome: { result?: CompletionResult; error?: { code: string; message: string } }
    try {
      this.emit(id, 'running', {})
      const r = await this.compute.tryRun(request)
      if (r === 'busy') { // capacity vanished between the check and the call: back in line
        this.q.setQueued.run(id)
        this.emit(id, 'queued', { position: 1 })
        return
      }
      outcome = { result: r }
      this.db.transaction(() => {
        this.q.finish.run(id, 'completed', JSON.stringify(r), null, null, this.clock.now())
        this.emit(id, 'completed', { result: { output: r.output, model: r.model, provider: r.provider, usage: r.usage, latencyMs: Math.round(r.latencyMs) } })
      })()
    } catch (e) {
      const message = e instanceof ComputeFailed ? e.message : 'compute failed'
      outcome = { error: { code: 'COMPUTE_FAILED', message } }
      this.db.transaction(() => {
        this.q.finish.run(id, 'failed', null, 'COMPUTE_FAILED', message, this.clock.now())
        this.emit(id, 'failed', { code: 'COMPUTE_FAILED', message })
      })()
    }
    try { await this.onDone({ id, operatorId, taskId }, outcome) } catch (e) { this.log.error({ jobId: id, err: (e as Error).message }, 'compute job hook failed') }
  }

  private emit(jobId: string, event: string, data: Record<string, unknown>): void {
    const row = this.q.event.get(jobId, event, JSON.stringify(data), this.clock.now()) as { id: number }
    const e = { id: row.id, event, data }
    queueMicrotask(() => { for (const fn of this.listeners.get(jobId) ?? []) fn(e) })
  }

  /**
   * The SSE stream of a job: replays events after `lastEventId`, then follows live ones, a
   * `: ping` comment every `pingMs`, and ends after the terminal event.
   */
  stream(jobId: string, lastEventId: number, signal: AbortSignal, pingMs = 15_000): ReadableStream<Uint8Array> {
    if (!this.q.get.get(jobId)) throw notFound('compute job')
    const enc = new TextEncoder()
    let cleanup = () => {}
    return new ReadableStream<Uint8Array>({
      start: (controller) => {
        let closed = false
        let lastSent = lastEventId
        const send = (e: JobEvent) => {
          if (closed || e.id <= lastSent) return
          lastSent = e.id
          controller.enqueue(enc.encode(`id: ${e.id}\nevent: ${e.event}\ndata: ${JSON.stringify({ jobId, status: e.event, ...e.data })}\n\n`))
          if (TERMINAL.has(e.event)) close()
        }
        const close = () => {
          if (closed) return
          closed = true
          cleanup()
          try { controller.close() } catch { /* already closed */ }
        }
        const set = this.listeners.get(jobId) ?? new Set()
        this.listeners.set(jobId, set)
        set.add(send)
        const ping = setInterval(() => { if (!closed) controller.enqueue(enc.encode(': ping\n\n')) }, pingMs)
        const onAbort = () => close()
        signal.addEventListener('abort', onAbort)
        cleanup = () => {
          clearInterval(ping)
          set.delete(send)
          if (set.size === 0) this.listeners.delete(jobId)
          signal.removeEventListener('abort', onAbort)
        }
        controller.enqueue(enc.encode('retry: 2000\n\n'))
        const past = this.q.events.all(jobId, lastEventId) as { id: number; event: string; data: string }[]
        for (const e of past) send({ id: e.id, event: e.event, data: JSON.parse(e.data) })
        // A client resuming after the end gets the terminal event again.
        if (!closed && past.length === 0) {
          const all = this.q.events.all(jobId, 0) as { id: number; event: string; data: string }[]
          const last = all[all.length - 1]
          if (last && TERMINAL.has(last.event)) { lastSent = last.id - 1; send({ id: last.id, event: last.event, data: JSON.parse(last.data) }) }
        }
      },
      cancel: () => cleanup(),
    })
  }
}
