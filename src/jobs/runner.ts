// Durable jobs on the `jobs` table: enqueue with a due time, claim, run, retry with backoff.
// A job that was running when the process died is picked up again at start (handlers must be
// idempotent, e.g. a pipeline stage checks what it already committed). The scheduler is the same
// table: recurring work re-enqueues its next run, deduplicated by key, and reads the service clock
// (so the test clock drives it).
import type { Database } from 'bun:sqlite'
import type { Clock } from '../clock'
import type { Logger } from '../log'

export interface JobRow {
  id: number; kind: string; payload: string; status: string; runAt: number; attempts: number; maxAttempts: number
}
export type JobHandler = (payload: any, job: JobRow) => void | Promise<void>

export interface EnqueueOptions { runAt?: number; dedupeKey?: string; maxAttempts?: number }

export class JobRunner {
  private handlers = new Map<string, JobHandler>()
  private timer: ReturnType<typeof setInterval> | undefined
  private running: Promise<void> | null = null
  private lastTickAt = 0
  private stmts

  constructor(sqlite: Database, private clock: Clock, private log: Logger, private batch = 32) {
    this.stmts = {
      insert: sqlite.prepare(`INSERT INTO jobs (kind, payload, status, run_at, max_attempts, dedupe_key, created_at, updated_at)
        VALUES (?1, ?2, 'pending', ?3, ?4, ?5, ?6, ?6) ON CONFLICT(dedupe_key) DO NOTHING RETURNING id`),
      due: sqlite.prepare(`SELECT id, kind, payload, status, run_at AS runAt, attempts, max_attempts AS maxAttempts FROM jobs
        WHERE status = 'pending' AND run_at <= ?1 ORDER BY run_at, id LIMIT ?2`),
      claim: sqlite.prepare(`UPDATE jobs SET status = 'running', attempts = attempts + 1, updated_at = ?2 WHERE id = ?1 AND status = 'pending'`),
      done: sqlite.prepare(`UPDATE jobs SET status = 'done', dedupe_key = NULL, updated_at = ?2 WHERE id = ?1`),
      retry: sqlite.prepare(`UPDATE jobs SET status = 'pending', run_at = ?2, last_error = ?3, updated_at = ?4 WHERE id = ?1`),
      fail: sqlite.prepare(`UPDATE jobs SET status = 'failed', dedupe_key = NULL, last_error = ?2, updated_at = ?3 WHERE id = ?1`),
      recover: sqlite.prepare(`UPDATE jobs SET status = 'pending', updated_at = ?1 WHERE status = 'running'`),
      prune: sqlite.prepare(`DELETE FROM jobs WHERE status IN ('done', 'failed') AND updated_at < ?1`),
    }
    this.register('jobs.prune', () => {
      const removed = this.stmts.prune.run(this.clock.now() - 7 * 86_400_000).changes
      if (removed) this.log.info({ removed }, 'pruned finished jobs')
      this.enqueue('jobs.prune', {}, { runAt: this.clock.now() + 86_400_000, dedupeKey: 'jobs.prune' })
    })
  }

  register(kind: string, handler: JobHandler): void { this.handlers.set(kind, handler) }

  /** Adds a job; with a dedupeKey, a second pending job of the same key is not created (returns null). */
  enqueue(kind: string, payload: unknown, o: EnqueueOptions = {}): number | null {
    const now = this.clock.now()
    const row = this.stmts.insert.get(kind, JSON.stringify(payload), o.runAt ?? now, o.maxAttempts ?? 5, o.dedupeKey ?? null, now) as { id: number } | null
    if (row && (o.runAt ?? now) <= now) queueMicrotask(() => void this.drain())
    return row?.id ?? null
  }

  start(pollMs = 250): void {
    const recovered = this.stmts.recover.run(this.clock.now()).changes
    if (recovered) this.log.warn({ recovered }, 'resuming jobs that were running when the process stopped')
    this.enqueue('jobs.prune', {}, { runAt: this.clock.now() + 60_000, dedupeKey: 'jobs.prune' })
    this.clock.onAdvance(() => this.drain())
    this.timer = setInterval(() => void this.drain(), pollMs)
    this.timer.unref?.()
    void this.drain()
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
    await this.running
  }

  /** True when the runner has looked for work within the last few seconds. */
  healthy(): boolean { return this.timer !== undefined && Date.now() - this.lastTickAt < 5000 }

  /** Runs every job that is due now; concurrent callers share one pass. */
  drain(): Promise<void> {
    if (this.running) return this.running.then(() => (this.hasDue() ? this.drain() : undefined))
    this.running = this.pass().finally(() => { this.running = null })
    return this.running
  }

  private hasDue(): boolean { return (this.stmts.due.all(this.clock.now(), 1) as JobRow[]).length > 0 }

  private async pass(): Promise<void> {
    this.lastTickAt = Date.now()
    for (;;) {
      const due = this.stmts.due.all(this.clock.now(), this.batch) as JobRow[]
      if (due.length === 0) return
      for (const job of due) await this.runOne(job)
    }
  }

  private async runOne(job: JobRow): Promise<void> {
    if (this.stmts.claim.run(job.id, this.clock.now()).changes === 0) return
    const handler = this.handlers.get(job.kind)
    try {
      if (!handler) throw new Error(`no handler for job kind ${job.kind}`)
      await handler(JSON.parse(job.payload), { ...job, attempts: job.attempts + 1 })
      this.stmts.done.run(job.id, this.clock.now())
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e)
      const attempts = job.attempts + 1
      if (attempts >= job.maxAttempts) {
        this.stmts.fail.run(job.id, msg, this.clock.now())
        this.log.error({ jobId: job.id, kind: job.kind, attempts, err: msg }, 'job failed permanently')
      } else {
        const backoff = Math.min(60_000, 1000 * 2 ** (attempts - 1))
        this.stmts.retry.run(job.id, this.clock.now() + backoff, msg, this.clock.now())
        this.log.warn({ jobId: job.id, kind: job.kind, attempts, err: msg }, 'job failed; will retry')
      }
    }
  }
}
