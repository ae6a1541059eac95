// Background checkpoints. SQLite's automatic checkpoint runs inside the commit that crosses the
// threshold: the committing thread copies thousands of WAL pages into the database file and
// fsyncs it, holding up every request for tens of milliseconds (a third of the pipeline's p99 at
// c=16). A worker thread with its own connections runs PASSIVE checkpoints every `intervalMs`
// instead, so when a commit crosses the threshold nearly every page is already copied: what is
// left for it is the tail, one fsync, and the WAL's restart from its beginning (which only a
// writer can do, so the WAL stays bounded by the threshold). Without a worker, SQLite's own
// automatic checkpoint does it all, as before.
//
// The worker (a second JavaScript VM, ~3 MB) starts once there is write load: when a write-ahead
// log has grown by `startBytes` since start (checked every `intervalMs`, one stat call per log), or
// at once when a log is already that large (a busy process that did not stop cleanly). An idle
// gateway does not carry it.
import type { Database } from 'bun:sqlite'
import { statSync } from 'node:fs'
import { workerUrl } from '../lib/worker-url'

/**
 * SQLite's automatic checkpoint threshold on the serving connections (PRAGMA wal_autocheckpoint,
 * in pages; 4 KiB each). The checkpoint a commit runs at the threshold is the one left on the main
 * thread: it copies the frames the worker has not copied yet, fsyncs both files (2–15 ms each under
 * load) and restarts the log, holding up every request meanwhile. Under sustained load the worker's
 * PASSIVE passes never leave the log fully copied at the moment a write begins, which is the only
 * other time SQLite restarts it, so the log grows to the threshold. At 10,000 pages that stall came
 * 2–3 times a second under the bench's c=16 load and made its p99 (25–28 → 19–21 ms at 50,000); the
 * price is a log file of up to ~200 MB per database under sustained load (it is reused, not
 * truncated; an idle or lightly loaded gateway restarts it long before). Without a worker (not
 * started yet, turned off, or failed) the commits copy every page themselves: SQLite's 10,000 keeps
 * each of those checkpoints short.
 */
export const WAL_AUTOCHECKPOINT_PAGES = { withWorker: 50_000, alone: 10_000 } as const

const walSize = (db: string): number => statSync(`${db}-wal`, { throwIfNoEntry: false })?.size ?? 0

export class Checkpointer {
  private worker: Worker | null = null
  private watch: ReturnType<typeof setInterval> | null = null
  private paths: string[]

  /** `dbs`: each database's path and this process's serving connection to it (whose threshold it sets). */
  constructor(private dbs: { path: string; conn: Pick<Database, 'run'> }[], private intervalMs = 100, private onFail: (reason: string) => void = () => {},
    private startBytes = 256 * 1024) {
    this.paths = dbs.map((d) => d.path)
  }

  /** SQLite's automatic checkpoint threshold on the serving connections (WAL_AUTOCHECKPOINT_PAGES). */
  private setThreshold(pages: number): void {
    for (const { conn } of this.dbs) { try { conn.run(`PRAGMA wal_autocheckpoint = ${pages}`) } catch { /* closed at stop */ } }
  }

  /** Watches the logs; the worker starts with the write load (above). */
  start(): void {
    const base = this.paths.map(walSize)
    if (base.some((n) => n >= this.startBytes)) { this.spawn(); return }
    this.watch = setInterval(() => { if (this.paths.some((p, i) => walSize(p) - base[i]! >= this.startBytes)) this.spawn() }, this.intervalMs)
    this.watch.unref?.()
  }

  private spawn(): void {
    this.clearWatch()
    try {
      const w = new Worker(workerUrl('db/checkpoint-worker.ts'), { smol: true }) // small heap: it only runs PRAGMAs
      w.onerror = () => { // the commits' own automatic checkpoints carry on
        this.worker = null
        this.setThreshold(WAL_AUTOCHECKPOINT_PAGES.alone)
        this.onFail('the checkpoint worker failed')
      }
      w.postMessage({ start: { paths: this.paths, intervalMs: this.intervalMs } })
      ;(w as Worker & { unref(): void }).unref()
      this.worker = w
      this.setThreshold(WAL_AUTOCHECKPOINT_PAGES.withWorker)
    } catch (e) { this.onFail(e instanceof Error ? e.message : String(e)) }
  }

  private clearWatch(): void {
    if (this.watch) clearInterval(this.watch)
    this.watch = null
  }

  get running(): boolean { return this.worker !== null }

  /** Stops the passes and closes the worker's connections (before the final checkpoint at stop). */
  async stop(): Promise<void> {
    this.clearWatch()
    const w = this.worker
    if (!w) return
    this.worker = null
    this.setThreshold(WAL_AUTOCHECKPOINT_PAGES.alone)
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, 2000)
      w.onmessage = () => { clearTimeout(t); resolve() }
      w.postMessage({ stop: true })
    })
    w.terminate()
  }
}
