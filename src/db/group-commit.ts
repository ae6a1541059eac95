// Group commit: writes from concurrent callers that arrive in the same event-loop turn share one
// transaction (each in its own savepoint, so one failure does not undo the others). Every
// caller's promise resolves only after the shared COMMIT, so "committed before the next step"
// still holds; under load the pipeline's many small per-stage commits become a few larger ones.
import type { Transactor } from './transactor'

interface Pending { fn: () => unknown; resolve: (v: unknown) => void; reject: (e: unknown) => void; after?: (() => void)[] }

export class GroupCommitter {
  private queue: Pending[] = []
  /** The caller whose callback is running (inside flush), for afterCommit. */
  private current: Pending | null = null

  constructor(private tx: Transactor) {}

  run<T>(fn: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (v: unknown) => void, reject })
      if (this.queue.length === 1) setImmediate(() => this.flush())
    })
  }

  /**
   * Called from inside a caller's callback: `cb` runs once that caller's writes are committed, right
   * after the COMMIT and before any caller's promise resolves (so before the microtasks its
   * callback queued); never if they are not. Register at the callback's top level (a nested
   * transaction of its own that rolls back while the callback goes on does not cancel it). False
   * outside a callback: nothing is registered, the caller must find out otherwise.
   */
  afterCommit(cb: () => void): boolean {
    if (!this.current) return false
    ;(this.current.after ??= []).push(cb)
    return true
  }

  /** Runs a caller's callback in a transaction (a savepoint inside the batch's) as the current caller. */
  private runOne(p: Pending): unknown {
    this.current = p
    try { return this.tx.write(p.fn) } finally { this.current = null }
  }

  /** A committed caller's afterCommit callbacks; one that throws does not keep the others or any promise from settling. */
  private committed(p: Pending): void {
    for (const cb of p.after ?? []) {
      try { cb() } catch (e) { queueMicrotask(() => { throw e }) }
    }
  }

  private flush(): void {
    const batch = this.queue
    this.queue = []
    if (batch.length === 1) { // alone (a lone task): its own transaction, no savepoint to open and release
      const p = batch[0]!
      let value: unknown
      try { value = this.runOne(p) } catch (e) { p.reject(e); return }
      this.committed(p)
      p.resolve(value)
      return
    }
    const results: { ok: boolean; value: unknown }[] = []
    let aborted: { error: unknown } | null = null
    try {
      this.tx.write(() => {
        for (const p of batch) {
          try { results.push({ ok: true, value: this.runOne(p) }) } // savepoint per caller
          catch (e) {
            p.after = undefined // its writes were undone
            // Some errors (SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM on SQLite; a lost connection on
            // PostgreSQL) roll back the whole transaction, not just the savepoint: the callers before
            // this one lost their writes too, and the ones after it would run outside a transaction.
            // Abort the batch instead.
            if (!this.tx.inTransaction()) { aborted = { error: e }; throw e }
            results.push({ ok: false, value: e })
          }
        }
      })
    } catch (e) {
      const abort = aborted as { error: unknown } | null // set inside the callback
      const error = abort ? abort.error : e
      for (const p of batch) p.reject(error) // the transaction was rolled back (or its COMMIT failed): nothing was written
      return
    }
    for (const p of batch) this.committed(p)
    batch.forEach((p, i) => (results[i]!.ok ? p.resolve(results[i]!.value) : p.reject(results[i]!.value)))
  }
}
