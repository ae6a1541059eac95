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
    const results: { ok: boolean; value: unknown }[] = []
    try {
      this.db.transaction(() => {
        for (const p of batch) {
          try { results.push({ ok: true, value: this.db.transaction(p.fn)() }) } // savepoint per caller
          catch (e) { results.push({ ok: false, value: e }) }
        }
      })()
    } catch (e) {
      for (const p of batch) p.reject(e) // the COMMIT itself failed: nothing was written
      return
    }
    batch.forEach((p, i) => (results[i]!.ok ? p.resolve(results[i]!.value) : p.reject(results[i]!.value)))
  }
}
