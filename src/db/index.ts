// The one SQLite database of the service: WAL, busy timeout, foreign keys, embedded migrations.
// Transactions are always synchronous callbacks (an async callback commits at its first await).
import { Database } from 'bun:sqlite'
import { drizzle, type BunSQLiteDatabase } from 'drizzle-orm/bun-sqlite'
import { join } from 'node:path'
import * as schema from './schema'
import { journalEntries, sqlByTag } from './migrations'
import { isStorageFull } from './storage'

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database }

export function openDatabase(path: string): Database {
  const sqlite = new Database(path, { create: true, strict: true })
  sqlite.run('PRAGMA journal_mode = WAL')
  sqlite.run('PRAGMA synchronous = NORMAL')
  sqlite.run('PRAGMA busy_timeout = 5000')
  sqlite.run('PRAGMA foreign_keys = ON')
  // Fewer, larger checkpoints (most of the copying is done ahead by the checkpoint worker,
  // src/db/checkpointer.ts) and a bigger page cache than the default 2 MB: 8 MB hold the hot pages
  // of the pipeline (recent tasks, the right edges of the indexes) and of the lists at a million
  // tasks; 32 MB only filled with pages the OS caches anyway, and added to the peak memory.
  sqlite.run('PRAGMA wal_autocheckpoint = 10000')
  sqlite.run('PRAGMA cache_size = -8000')
  sqlite.run('PRAGMA temp_store = MEMORY')
  return sqlite
}

export function migrate(db: Db): number {
  const migrations = journalEntries.map((e) => {
    const text = sqlByTag[e.tag]
    if (text === undefined) throw new Error(`migration ${e.tag} is in the journal but not embedded (src/db/migrations.ts)`)
    return {
      sql: text.split('--> statement-breakpoint'),
      bps: e.breakpoints,
      folderMillis: e.when,
      hash: new Bun.CryptoHasher('sha256').update(text).digest('hex'),
    }
  })
  const before = countApplied(db.$client)
  // Same code path as drizzle-orm/bun-sqlite/migrator, fed from embedded files. With nothing to
  // apply it writes nothing, so a server with an up-to-date database starts on a full disk.
  try {
    ;(db as unknown as { dialect: { migrate: Function }; session: unknown }).dialect.migrate(migrations, (db as unknown as { session: unknown }).session, { migrationsFolder: '(embedded)' })
  } catch (e) {
    if (isStorageFull(e)) throw Object.assign(new Error('cannot apply database migrations: the disk is full (free some space and start again)', { cause: e }), { code: 'SQLITE_FULL' })
    throw e
  }
  return countApplied(db.$client) - before
}

/** The storage monitor's probe on this database: a tiny committed write (throws while the disk is full). */
export function storageProbe(sqlite: Database): void {
  sqlite.query("INSERT INTO meta (key, value) VALUES ('storage.probe', ?1) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(new Date().toISOString())
}

function countApplied(sqlite: Database): number {
  const t = sqlite.query("SELECT name FROM sqlite_master WHERE type='table' AND name='__drizzle_migrations'").get()
  if (!t) return 0
  return (sqlite.query('SELECT count(*) AS n FROM __drizzle_migrations').get() as { n: number }).n
}

export function openDb(dataDir: string): Db {
  const sqlite = openDatabase(join(dataDir, 'taskgate.db'))
  return drizzle({ client: sqlite, schema }) as Db
}
