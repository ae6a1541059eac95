// Durable jobs on the `jobs` table: enqueue with a due time, claim, run, retry with backoff.
// A job that was running when the process died is picked up again at start (handlers must be
// idempotent, e.g. a pipeline stage checks what it already committed). The scheduler is the same
// table: recurring work re-enqueues its next run, deduplicated by key, and reads the service clock
// (so the test clock drives it).
//
// A job may also run without a row of its own (enqueueInline): when the caller's own committed state
// already says the work is unfinished, and a restart resumes it from there (the pipeline's tasks in
// PROCESSING, through a startup hook). Such a job gets a row only if it fails: its retry.
//
// A full disk is not the job's fault: a handler that fails with a storage-full error, or whose
// outcome cannot be written, is parked in memory (its row stays 'running') and runs again, as
// the same attempt, once the storage monitor says space is back; nothing is claimed meanwhile.
// After a restart such a row is recovered like any other interrupted job.
//
// PostgreSQL mode with replicas (a ReplicaRegistry given; docs/scale-out.md, "Replicas"): a claim
// records its replica (`owner`), due jobs are claimed with FOR UPDATE SKIP LOCKED, and the jobs of
// a replica whose heartbeat is older than the lease go back to pending — checked at every heartbeat
// by every replica, not only at start. Every job has a row (no enqueueInline: work that ran without
// one could not be told from work a live replica runs), and a parked job runs again only if its row
// is still this replica's.
import type { Clock } from '../clock'
import type { Logger } from '../log'
import type { GroupCommitter } from '../db/group-commit'
import type { Transactor } from '../db/transactor'
import type { JobRepository, JobRow } from './repository'
import type { ReplicaRegistry } from './replicas'

export type { JobRow }
import { isStorageUnavailable, type StorageMonitor } from '../db/storage'

export type JobHandler = (payload: any, job: JobRow) => void | Promise<void>

export interface EnqueueOptions {
  runAt?: number; dedupeKey?: string; maxAttempts?: number
  /** Not even when a job of the key is running (resuming interrupted work at start: a live replica may be running it). */
  unlessRunning?: boolean
}

/**
 * A job without a row (negative id): started only if `committed()` holds once its transaction is
 * over; `abandoned()` is told otherwise.
 */
interface InlineJob extends JobRow { dedupeKey: string | null; committed: () => boolean; abandoned?: () => void }
const isInline = (job: JobRow): job is InlineJob => job.id < 0

/** The wait before a failed job's next attempt: 1 s after the first failure, doubling, at most a minute. */
const backoffMs = (attempts: number) => Math.min(60_000, 1000 * 2 ** (attempts - 1))

export class JobRunner {
  private handlers = new Map<string, JobHandler>()
  private timer: ReturnType<typeof setInterval> | undefined
  private inflight = new Map<number, Promise<void>>()
  private pumping = false
  private ready: JobRow[] = []
  private backlog = false
  private unsubscribe: (() => void) | undefined
  private idle: Promise<void> | null = null
  private resolveIdle: (() => void) | null = null
  private lastTickAt = 0
  private storage: StorageMonitor | null = null
  private offRecovered: (() => void) | undefined
  /** False between start() and the moment its own writes (recovery, the prune schedule) succeeded. */
  private startupDone = true
  /** Jobs stopped by a full disk: run again (or record their outcome) once storage is back. */
  private parked: { job: JobRow; run: () => Promise<void> }[] = []
  /** Jobs whose handler recorded them done in its own transaction (finishIn). */
  private finished = new Set<number>()
  /** Ids of the jobs without a row (enqueueInline): negative, so they never meet a row's id. */
  private inlineSeq = 0
  /** Run by start-up right after the interrupted rows are recovered, before anything is claimed (addStartupHook). */
  private startupHooks: (() => void)[] = []

  constructor(private repo: JobRepository, private tx: Transactor, private clock: Clock, private log: Logger, private concurrency = 64, private group: GroupCommitter | null = null,
    private replica: ReplicaRegistry | null = null) {
    this.register('jobs.prune', () => {
      const removed = this.repo.prune(this.clock.now() - 7 * 86_400_000)
      if (removed) this.log.info({ removed }, 'pruned finished jobs')
      this.enqueue('jobs.prune', {}, { runAt: this.clock.now() + 86_400_000, dedupeKey: 'jobs.prune' })
    })
  }

  register(kind: string, handler: JobHandler): void { this.handlers.set(kind, handler) }

  /** Jobs running now. */
  get running(): number { return this.inflight.size }

  /** Jobs waiting to run and jobs that failed for good (the `taskgate_jobs_*` gauges). */
  counts(): { pending: number; failed: number } {
    return { pending: this.repo.count('pending'), failed: this.repo.count('failed') }
  }

  /**
   * Adds a job; with a dedupeKey, a second pending job of the same key is not created (returns null).
   * A job due now is claimed in the caller's transaction when the runner has room (one commit for
   * the row and its claim, not two) and starts once that transaction is over.
   */
  enqueue(kind: string, payload: unknown, o: EnqueueOptions = {}): number | null {
    const now = this.clock.now()
    const json = JSON.stringify(payload)
    const runAt = o.runAt ?? now
    const maxAttempts = o.maxAttempts ?? 5
    const dedupeKey = o.dedupeKey ?? null
    if (o.unlessRunning && dedupeKey !== null && this.repo.hasActive(dedupeKey)) return null
    if (runAt <= now && this.startupDone && !this.storage?.full && this.inflight.size + this.ready.length < this.concurrency) {
      if (dedupeKey !== null && this.repo.hasPending(dedupeKey)) return null // only a pending job holds its key
      const id = this.repo.insertRunning({ kind, payload: json, runAt, maxAttempts, dedupeKey, now }, this.replica?.id ?? null)
      this.ready.push({ id, kind, payload: json, status: 'running', runAt, attempts: 0, maxAttempts })
      if (this.ready.length === 1) queueMicrotask(() => this.startReady())
      return id
    }
    const id = this.repo.insert({ kind, payload: json, runAt, maxAttempts, dedupeKey, now })
    if (id !== null && runAt <= now) this.backlog = true // stays pending: pump() takes it when a job finishes
    return id
  }

  /**
   * Starts a job now without writing a row, when the caller's own committed state makes a restart
   * run it again (a hook given to addStartupHook enqueues it then): it starts once the caller's
   * transaction is over if `committed()` holds, and gets a row only if it fails (its retry, with
   * backoff, as any job). False when the runner has no room now (or is not started, or storage is
   * full): enqueue() it instead.
   */
  enqueueInline(kind: string, payload: unknown, o: Omit<EnqueueOptions, 'runAt'> & { committed: () => boolean; abandoned?: () => void }): boolean {
    if (this.replica || !this.timer || !this.startupDone || this.storage?.full || this.inflight.size + this.ready.length >= this.concurrency) return false
    const job: InlineJob = {
      id: --this.inlineSeq, kind, payload: JSON.stringify(payload), status: 'running', runAt: this.clock.now(), attempts: 0,
      maxAttempts: o.maxAttempts ?? 5, dedupeKey: o.dedupeKey ?? null, committed: o.committed, abandoned: o.abandoned,
    }
    this.ready.push(job)
    if (this.ready.length === 1) queueMicrotask(() => this.startReady())
    return true
  }

  /**
   * `hook` runs at start-up, right after the rows a stopped process left running are back to
   * pending and before any job is claimed: the place to enqueue the work a restart must resume
   * that ran without rows (enqueueInline). Enqueue with a dedupeKey there: a recovered row of the
   * same key keeps it from being enqueued twice.
   */
  addStartupHook(hook: () => void): void { this.startupHooks.push(hook) }

  /**
   * Starts the jobs enqueue() claimed, once their transaction is over. A job whose transaction was
   * rolled back has no row (or, its id having been handed out again, another job's row): it is skipped.
   */
  private startReady(): void {
    const batch = this.ready
    this.ready = []
    const started = new Set<number>()
    for (const job of batch) {
      if (isInline(job)) { if (job.committed()) this.launch(job); else job.abandoned?.(); continue }
      const cur = this.repo.claimed(job.id)
      if (!cur || cur.kind !== job.kind || cur.payload !== job.payload || started.has(job.id)) continue
      started.add(job.id)
      this.launch(job)
    }
  }

  /**
   * Marks a job done inside the handler's own last transaction, so its outcome commits with its
   * work instead of in a commit of its own. If that transaction fails the handler throws, and the
   * failure is recorded as usual.
   */
  finishIn(job: JobRow): void {
    if (isInline(job)) return // no row to mark
    this.repo.done(job.id, this.clock.now())
    this.finished.add(job.id)
  }

  private launch(job: JobRow, run = () => this.runOne(job)): void {
    const p = run().finally(() => {
      this.inflight.delete(job.id)
      if (this.backlog) this.pump()
      if (this.inflight.size === 0 && this.resolveIdle) { const r = this.resolveIdle; this.idle = null; this.resolveIdle = null; r() }
    })
    this.inflight.set(job.id, p)
  }

  /**
   * Recovers rows a stopped process left running, schedules the prune and starts polling. With a
   * storage monitor, a full disk defers the first two (and all job starts) until space is back.
   */
  start(pollMs = 250, storage: StorageMonitor | null = null): void {
    if (this.timer) return
    if (storage) {
      this.storage = storage
      this.offRecovered = storage.onRecovered(() => void this.drain())
    }
    this.startupDone = false
    // Every heartbeat: the jobs of replicas gone silent are pending again, and this one may claim them.
    this.replica?.start(() => { if (this.recoverOrphans()) void this.drain() })
    this.startup()
    this.unsubscribe = this.clock.onAdvance(() => this.drain())
    this.timer = setInterval(() => void this.drain(), pollMs)
    this.timer.unref?.()
    void this.drain()
  }

  /** start()'s own writes; true once they are done. Nothing is claimed before (recovery would reset it). */
  private startup(): boolean {
    if (this.startupDone) return true
    try {
      this.tx.write(() => {
        const recovered = this.replica ? this.repo.recoverOrphans(this.clock.now(), this.replica.liveSince(), this.replica.id) : this.repo.recover(this.clock.now())
        if (recovered) this.log.warn({ recovered }, 'resuming jobs that were running when the process stopped')
        for (const hook of this.startupHooks) hook()
      })
      this.enqueue('jobs.prune', {}, { runAt: this.clock.now() + 60_000, dedupeKey: 'jobs.prune' })
      this.startupDone = true
    } catch (e) {
      if (!isStorageUnavailable(e)) throw e
      if (!this.storage) this.log.warn({ err: e instanceof Error ? e.message : String(e) }, 'job runner start-up deferred: storage is full')
      else this.storage.markFull(e)
    }
    return this.startupDone
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
    this.unsubscribe?.()
    this.offRecovered?.()
    this.parked = [] // their rows stay 'running': the next start (or, with replicas, another replica) recovers them
    await Promise.allSettled([...this.inflight.values()])
    this.replica?.stop()
  }

  /** Replicas: the running jobs of replicas gone silent back to pending; how many. */
  private recoverOrphans(): number {
    if (!this.replica || !this.startupDone) return 0
    try {
      const n = this.repo.recoverOrphans(this.clock.now(), this.replica.liveSince())
      if (n) this.log.warn({ recovered: n }, 'claiming again the jobs of a replica that stopped answering')
      return n
    } catch (e) {
      if (!isStorageUnavailable(e)) throw e
      return 0
    }
  }

  /** True when the runner has looked for work within the last few seconds. */
  healthy(): boolean { return this.timer !== undefined && Date.now() - this.lastTickAt < 5000 }

  /**
   * Starts every due job (up to `concurrency` at once) and resolves when nothing due is left
   * running. Concurrent callers share the same work.
   */
  drain(): Promise<void> {
    this.lastTickAt = Date.now()
    if (!this.storage?.full && this.startup()) {
      if (this.ready.length && !this.tx.inTransaction()) this.startReady() // claimed by enqueue(), not started yet
      this.resumeParked()
      this.pump()
    }
    if (this.inflight.size === 0) return Promise.resolve()
    return (this.idle ??= new Promise<void>((r) => { this.resolveIdle = r }))
  }

  private pump(): void {
    if (this.pumping || !this.startupDone || this.storage?.full) return
    this.pumping = true
    try {
      while (this.replica && this.inflight.size < this.concurrency) {
        const claimed = this.repo.claimDue(this.clock.now(), this.concurrency - this.inflight.size, this.replica.id)
        for (const job of claimed) this.launch(job)
        if (claimed.length === 0) break
      }
      while (!this.replica && this.inflight.size < this.concurrency) {
        const due = this.repo.due(this.clock.now(), this.concurrency - this.inflight.size)
        if (due.length === 0) break
        let started = 0
        for (const job of due) {
          if (this.inflight.size >= this.concurrency) break
          if (!this.repo.claim(job.id, this.clock.now())) continue
          started++
          this.launch(job)
        }
        if (started === 0) break
      }
      this.backlog = this.inflight.size >= this.concurrency
    } catch (e) {
      if (!isStorageUnavailable(e)) throw e
      this.storageFull(e) // what was not claimed stays pending
    } finally {
      this.pumping = false
    }
  }

  private async runOne(job: JobRow): Promise<void> {
    await Promise.resolve() // run the handler outside pump()'s loop
    const handler = this.handlers.get(job.kind)
    let failure: { error: unknown } | null = null
    try {
      if (!handler) throw new Error(`no handler for job kind ${job.kind}`)
      await handler(JSON.parse(job.payload), { ...job, attempts: job.attempts + 1 })
    } catch (e) {
      failure = { error: e }
    }
    if (failure && isStorageUnavailable(failure.error)) {
      // The disk, not the job: it runs again, as the same attempt (the row keeps its count), once storage is back.
      this.park(job, failure.error, () => this.runOne(job))
      return
    }
    await this.settle(job, failure)
  }

  /** Records a finished run: done, retry with backoff, or failed for good. */
  private async settle(job: JobRow, failure: { error: unknown } | null): Promise<void> {
    const finished = this.finished.delete(job.id)
    if (!failure && (finished || isInline(job))) return // recorded in the handler's own commit, or nothing to record
    try {
      if (!failure) {
        // Marking done may share a commit with others: if it is lost in a crash the job runs again,
        // and handlers are idempotent.
        if (this.group) await this.group.run(() => this.repo.done(job.id, this.clock.now()))
        else this.repo.done(job.id, this.clock.now())
        return
      }
      const e = failure.error
      const msg = e instanceof Error ? e.message : String(e)
      const attempts = job.attempts + 1
      if (isInline(job)) { // its first attempt failed: from now on a row, pending its retry
        if (attempts >= job.maxAttempts) this.log.error({ kind: job.kind, attempts, err: msg }, 'job failed permanently')
        else {
          this.repo.insertRetry({ kind: job.kind, payload: job.payload, runAt: this.clock.now() + backoffMs(attempts), maxAttempts: job.maxAttempts, dedupeKey: job.dedupeKey, attempts, lastError: msg, now: this.clock.now() })
          this.log.warn({ kind: job.kind, attempts, err: msg }, 'job failed; will retry')
        }
        return
      }
      if (attempts >= job.maxAttempts) {
        this.repo.fail(job.id, msg, this.clock.now())
        this.log.error({ jobId: job.id, kind: job.kind, attempts, err: msg }, 'job failed permanently')
      } else {
        this.repo.retry(job.id, this.clock.now() + backoffMs(attempts), msg, this.clock.now())
        this.log.warn({ jobId: job.id, kind: job.kind, attempts, err: msg }, 'job failed; will retry')
      }
    } catch (e) {
      // The outcome is known but could not be written: with a full disk, write it once space is back;
      // otherwise the row stays 'running' and the next start runs the job again.
      if (isStorageUnavailable(e)) this.park(job, e, () => this.settle(job, failure))
      else this.log.error({ jobId: job.id, kind: job.kind, err: e instanceof Error ? e.message : String(e) }, 'could not record the outcome of a job')
    }
  }

  private park(job: JobRow, error: unknown, run: () => Promise<void>): void {
    this.parked.push({ job, run })
    this.storageFull(error)
    this.log.warn({ jobId: job.id, kind: job.kind }, 'job waits for storage to be available')
  }

  private resumeParked(): void {
    if (this.parked.length === 0) return
    const parked = this.parked
    this.parked = []
    for (const p of parked) {
      // Replicas: a job parked for longer than the lease may have been claimed again by another.
      if (this.replica && !isInline(p.job) && !this.repo.isMine(p.job.id, this.replica.id)) continue
      this.launch(p.job, p.run)
    }
  }

  private storageFull(error: unknown): void {
    if (this.storage) this.storage.markFull(error)
    else this.log.warn({ err: error instanceof Error ? error.message : String(error) }, 'storage is full')
  }
}
