// Copies committed WAL pages into the database files on a second thread (checkpointer.ts), so the
// main thread's commits do not stop for a checkpoint's writes and fsyncs. PASSIVE checkpoints never
// wait for a lock and never block a writer: they copy what no reader still needs and return.
// After each pass the worker also fsyncs the database and WAL files: the checkpoint a commit still
// runs when the log reaches SQLite's threshold (to restart it) syncs both files on the main thread,
// and it took 2-10 ms per fsync while this thread's copies and the commits' frames were unsynced
// (1-3 ms after; pipeline p99 at c=16 38-43 -> 33-35 ms). An extra fsync only adds durability.
import { Database } from 'bun:sqlite'
import { closeSync, fsyncSync, openSync } from 'node:fs'

declare const self: Worker
let dbs: Database[] = []
let fds: number[] = []
let timer: ReturnType<typeof setInterval> | undefined

self.onmessage = (e: MessageEvent) => {
  const m = e.data as { start?: { paths: string[]; intervalMs: number }; stop?: true }
  if (m.start) {
    dbs = m.start.paths.map((p) => new Database(p, { strict: true }))
    fds = m.start.paths.flatMap((p) => [p, `${p}-wal`]).flatMap((p) => { try { return [openSync(p, 'r')] } catch { return [] } })
    timer = setInterval(pass, m.start.intervalMs)
  }
  if (m.stop) {
    clearInterval(timer)
    for (const db of dbs) db.close()
    for (const fd of fds) closeSync(fd)
    dbs = []
    fds = []
    self.postMessage({ stopped: true })
  }
}

function pass(): void {
  for (const db of dbs) {
    // A full disk, or a database being closed, fails the pass: the next one tries again.
    try { db.query('PRAGMA wal_checkpoint(PASSIVE)').get() } catch { /* see above */ }
  }
  for (const fd of fds) { try { fsyncSync(fd) } catch { /* the next pass tries again */ } }
}
