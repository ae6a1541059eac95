// The one SQLite database of the service: WAL, busy timeout, foreign keys, embedded migrations.
// Transactions are always synchronous callbacks (an async callback commits at its first await).
// Write transactions are BEGIN IMMEDIATE (`.immediate()`): a deferred one that reads first fails at
// once with SQLITE_BUSY, past the busy timeout, when a CLI command on the live data dir holds the
// write lock (test/unit/write-transactions.test.ts lists every call site).
import { Database } from 'bun:sqlite'
import { drizzle, type BunSQLiteDatabase } from 'drizzle-orm/bun-sqlite'
import { join } from 'node:path'
import * as schema from './schema'
import { journalEntries, sqlByTag } from './migrations'
import { isStorageFull } from './storage'
import { WAL_AUTOCHECKPOINT_PAGES } from './checkpointer'

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database }

export function openDatabase(path: string): Database {
  const sqlite = new Database(path, { create: true, strict: true })
  sqlite.run('PRAGMA journal_mode = WAL')
  sqlite.run('PRAGMA synchronous = NORMAL')
  sqlite.run('PRAGMA busy_timeout = 5000')
  sqlite.run('PRAGMA foreign_keys = ON')
  // Checkpoints on this connection (most of the copying is done ahead by the checkpoint worker,
  // src/db/checkpointer.ts) and a bigger page cache than the default 2 MB: 8 MB hold the hot pages
  // of the pipeline (recent tasks, the right edges of the indexes) and of the lists at a million
  // tasks; 32 MB only filled with pages the OS caches anyway, and added to the peak memory.
  sqlite.run(`PRAGMA wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES.alone}`) // .withWorker once the checkpoint worker runs
  sqlite.run('PRAGMA cache_size = -8000')
  sqlite.run('PRAGMA temp_store = MEMORY')
  return sqlite
}

/** drizzle's migrations table (drizzle-orm's SQLite migrator creates and reads the same one). */
const MIGRATIONS_TABLE = '"__drizzle_migrations"'

/**
 * Applies the embedded migrations that are newer than the last one recorded, in one transaction,
 * and returns how many it applied. The same bookkeeping as drizzle-orm's SQLite migrator (its table,
 * the sha256 of each file, the journal's `when` as created_at; test/unit/migrations.test.ts checks
 * both against each other), but each file runs as one SQLite call instead of one drizzle statement
 * object per statement: a fresh database is created in about half the time (docs/performance.md,
 * Start-up). BEGIN IMMEDIATE, and the last applied one is read inside the transaction, so two
 * processes starting on one data dir apply each migration once. With nothing to apply it writes
 * nothing, so a server with an up-to-date database starts on a full disk.
 */
export function migrate(db: Db | Database): number {
  const sqlite = db instanceof Database ? db : db.$client
  try {
    if (!sqlite.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'").get()) {
      sqlite.run(`CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at numeric)`)
    }
    const lastWhen = () => (sqlite.query(`SELECT created_at FROM ${MIGRATIONS_TABLE} ORDER BY created_at DESC LIMIT 1`).get() as { created_at: number } | null)?.created_at
    const last = lastWhen()
    if (last !== undefined && journalEntries.every((e) => Number(last) >= e.when)) return 0
    return sqlite.transaction(() => {
      const since = Number(lastWhen() ?? -Infinity) // again, inside the write lock
      let applied = 0
      for (const e of journalEntries) {
        if (e.when <= since) continue
        const text = sqlByTag[e.tag]
        if (text === undefined) throw new Error(`migration ${e.tag} is in the journal but not embedded (src/db/migrations.ts)`)
        sqlite.run(text) // drizzle-kit's `--> statement-breakpoint` markers are SQL comments
        sqlite.query(`INSERT INTO ${MIGRATIONS_TABLE} ("hash", "created_at") VALUES (?1, ?2)`).run(new Bun.CryptoHasher('sha256').update(text).digest('hex'), e.when)
        applied++
      }
      return applied
    }).immediate()
  } catch (e) {
    if (isStorageFull(e)) throw Object.assign(new Error('cannot apply database migrations: the disk is full (free some space and start again)', { cause: e }), { code: 'SQLITE_FULL' })
    throw e
  }
}

/**
 * Copies every committed page into the database file and empties the write-ahead log. On a full
 * disk the file cannot grow: the log stays (it is replayed at the next start) and this does nothing.
 */
export function truncateWal(sqlite: Database): void {
  try { sqlite.exec('PRAGMA wal_checkpoint(TRUNCATE)') } catch (e) { if (!isStorageFull(e)) throw e }
}

/** A consistent online copy of the database at `from` into the existing empty file `to` (VACUUM INTO; safe while serving). */
export function backupDatabase(from: string, to: string): void {
  const db = new Database(from)
  try {
    db.run('PRAGMA busy_timeout = 5000')
    db.query('VACUUM INTO ?1').run(to)
  } finally { db.close() }
}

/** Whether the database answers a trivial query (`/readyz`); never throws. */
export function databaseAnswers(sqlite: Database): boolean {
  try { sqlite.query('SELECT 1').get(); return true } catch { return false }
}

/** The storage monitor's probe on this database: a tiny committed write (throws while the disk is full). */
export function storageProbe(sqlite: Database): void {
  sqlite.query("INSERT INTO meta (key, value) VALUES ('storage.probe', ?1) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(new Date().toISOString())
}

export function openDb(dataDir: string): Db {
  const sqlite = openDatabase(join(dataDir, 'taskgate.db'))
  return drizzle({ client: sqlite, schema }) as Db
}
