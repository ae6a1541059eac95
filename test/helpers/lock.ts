// Another process that holds SQLite's write lock on a data dir's database for a while, the way a
// CLI command (operator create, key revoke) does next to a live server: it writes a row in an
// IMMEDIATE transaction, waits, then commits.
import { join } from 'node:path'

/** Resolves once the other process holds the lock; `committed` resolves with its exit code after it commits. */
export async function holdWriteLock(dataDir: string, ms: number): Promise<{ committed: Promise<number> }> {
  const holder = Bun.spawn([process.execPath, '-e', `
    const { Database } = require('bun:sqlite')
    const db = new Database(${JSON.stringify(join(dataDir, 'taskgate.db'))})
    db.run('PRAGMA busy_timeout = 5000')
    db.run('BEGIN IMMEDIATE')
    db.run("INSERT INTO meta (key, value) VALUES ('test.writer', 'held') ON CONFLICT(key) DO UPDATE SET value = excluded.value || '+'")
    console.log('locked')
    setTimeout(() => { db.run('COMMIT'); process.exit(0) }, ${ms})
  `], { stdout: 'pipe', stderr: 'inherit' })
  const first = await holder.stdout.getReader().read()
  if (!new TextDecoder().decode(first.value).includes('locked')) throw new Error('the lock holder did not start')
  return { committed: holder.exited }
}
