// Background checkpoints. SQLite's automatic checkpoint runs inside the commit that crosses the
// threshold: the committing thread copies thousands of WAL pages into the database file and
// fsyncs it, holding up every request for tens of milliseconds (a third of the pipeline's p99 at
// c=16). A worker thread with its own connections runs PASSIVE checkpoints every `intervalMs`
// instead, so when a commit crosses the threshold nearly every page is already copied: what is
// left for it is the tail, one fsync, and the WAL's restart from its beginning (which only a
// writer can do, so the WAL stays bounded by the threshold). Without a worker, SQLite's own
// automatic checkpoint does it all, as before.
import { workerUrl } from '../lib/worker-url'

export class Checkpointer {
  private worker: Worker | null = null

  constructor(private paths: string[], private intervalMs = 100) {}

  start(): boolean {
    try {
      const w = new Worker(workerUrl('db/checkpoint-worker.ts'))
      w.onerror = () => { this.worker = null } // the commits' own automatic checkpoints carry on
      w.postMessage({ start: { paths: this.paths, intervalMs: this.intervalMs } })
      ;(w as Worker & { unref(): void }).unref()
      this.worker = w
      return true
    } catch { return false }
  }

  get running(): boolean { return this.worker !== null }

  /** Stops the passes and closes the worker's connections (before the final checkpoint at stop). */
  async stop(): Promise<void> {
    const w = this.worker
    if (!w) return
    this.worker = null
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, 2000)
      w.onmessage = () => { clearTimeout(t); resolve() }
      w.postMessage({ stop: true })
    })
    w.terminate()
  }
}
