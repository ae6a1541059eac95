// Copies committed WAL pages into the database files on a second thread (checkpointer.ts), so the
// main thread's commits do not stop for a checkpoint's writes and fsyncs. PASSIVE checkpoints never
// wait for a lock and never block a writer: they copy what no reader still needs and return.
import { Database } from 'bun:sqlite'

declare const self: Worker
let dbs: Database[] = []
let timer: ReturnType<typeof setInterval> | undefined

self.onmessage = (e: MessageEvent) => {
  const m = e.data as { start?: { paths: string[]; intervalMs: number }; stop?: true }
  if (m.start) {
    dbs = m.start.paths.map((p) => new Database(p, { strict: true }))
    timer = setInterval(pass, m.start.intervalMs)
  }
  if (m.stop) {
    clearInterval(timer)
    for (const db of dbs) db.close()
    dbs = []
    self.postMessage({ stopped: true })
  }
}

function pass(): void {
  for (const db of dbs) {
    // A full disk, or a database being closed, fails the pass: the next one tries again.
    try { db.query('PRAGMA wal_checkpoint(PASSIVE)').get() } catch { /* see above */ }
  }
}
