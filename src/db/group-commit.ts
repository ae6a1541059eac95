// Group commit: writes from concurrent callers that arrive in the same event-loop turn share one
// SQLite transaction (each in its own savepoint, so one failure does not undo the others). Every
// caller's promise resolves only after the shared COMMIT, so "committed before the next step"
// still holds; under load the pipeline's many small per-stage commits become a few larger ones.
import type { Database } from 'bun:sqlite'

interface Pending { fn: () => unknown; resolve: (v: unknown) => void; reject: (e: unknown) => void }

export class GroupCommitter {
  private queue: Pending[] = []

  constructor(private db: Database) {}

  run<T>(fn: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, resolve: resolve as (v: unknown) => void, reject })
      if (this.queue.length === 1) setImmediate(() => this.flush())
    })
  }

  private flush(): void {
    const batch = this.queue
    this.queue = []
    if (batch.length === 1) { // alone (a lone task): its own transaction, no savepoint to open and release
      const p = batch[0]!
      let value: unknown
      try { value = this.db.transaction(p.fn)() } catch (e) { p.reject(e); return }
      p.resolve(value)
      return
    }
    const results: { ok: boolean; value: unknown }[] = []
    let aborted: { error: unknown } | null = null
    try {
      this.db.transaction(() => {
        for (const p of batch) {
          try { results.push({ ok: true, value: this.db.transaction(p.fn)() }) } // savepoint per caller
          catch (e) {
            // Some errors (SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM) make SQLite roll back the whole
            // transaction, not just the savepoint: the callers before this one lost their writes too,
            // and the ones after it would run in autocommit mode. Abort the batch instead.
            if (!this.db.inTransaction) { aborted = { error: e }; throw e }
            results.push({ ok: false, value: e })
          }
        }
      })()
    } catch (e) {
      const abort = aborted as { error: unknown } | null // set inside the callback
      const error = abort ? abort.error : e
      for (const p of batch) p.reject(error) // the transaction was rolled back (or its COMMIT failed): nothing was written
      return
    }
    batch.forEach((p, i) => (results[i]!.ok ? p.resolve(results[i]!.value) : p.reject(results[i]!.value)))
  }
}
