// A test's direct look into a server's database, on either backend: the SQLite file of its data
// dir, or (the PostgreSQL run, TASKGATE_TEST_POSTGRES) the data dir's database on the test cluster.
// Statements are written once, with SQLite's `?1` / `?` parameters, in SQL both dialects read.
import { Database } from 'bun:sqlite'
import { join } from 'node:path'
import { drizzle } from 'drizzle-orm/bun-sqlite'
import type { Db } from '../../src/db'
import * as schema from '../../src/db/schema'
import { PgConnection } from '../../src/db/pg/connection'
import { syncPgDrizzle } from '../../src/db/pg/drizzle'
import { pgEncoders, pgTablesFrom } from '../../src/db/pg/tables'
import { databaseFor, TEST_POSTGRES } from './postgres'

type Row = Record<string, any>
export interface TestStatement { get(...args: unknown[]): Row | null; all(...args: unknown[]): Row[]; run(...args: unknown[]): { changes: number } }
export interface TestDb {
  readonly dialect: 'sqlite' | 'postgres'
  query(text: string): TestStatement
  run(text: string, ...args: unknown[]): { changes: number }
  /** drizzle on this connection, for a repository of the server's own (reading stored forms as it does). */
  readonly db: Db
  /** SQLite: the connection itself, for SQLite's own tools (src/tasks/counters.ts). */
  readonly sqlite?: Database
  close(): void
}

/** `?1`, `?2` and bare `?` as PostgreSQL's `$n`. */
const pgParams = (text: string) => { let n = 0; return text.replace(/\?(\d+)?/g, (_, d) => `$${d ?? ++n}`) }

/** A connection to the data dir's database: `file` is taskgate.db (the default) or ipfs.db (on PostgreSQL, both are the one database). */
export async function openTestDb(dataDir: string, o: { file?: 'taskgate.db' | 'ipfs.db'; readonly?: boolean; /** a PostgreSQL database of the test's own */ url?: string } = {}): Promise<TestDb> {
  if (!TEST_POSTGRES && !o.url) {
    const db = new Database(join(dataDir, o.file ?? 'taskgate.db'), o.readonly ? { readonly: true } : {})
    return {
      dialect: 'sqlite',
      query: (text) => { const q = db.query(text); return { get: (...a) => q.get(...(a as never[])) as Row | null, all: (...a) => q.all(...(a as never[])) as Row[], run: (...a) => q.run(...(a as never[])) } },
      run: (text, ...a) => db.query(text).run(...(a as never[])),
      db: drizzle({ client: db, schema }) as Db,
      sqlite: db,
      close: () => db.close(),
    }
  }
  const conn = new PgConnection(o.url ?? await databaseFor(dataDir))
  const run = (text: string, a: unknown[]) => conn.query<Row>(pgParams(text), a.map((v) => (typeof v === 'boolean' ? Number(v) : v)))
  return {
    dialect: 'postgres',
    query: (text) => ({ get: (...a) => run(text, a).rows[0] ?? null, all: (...a) => run(text, a).rows, run: (...a) => ({ changes: run(text, a).count }) }),
    run: (text, ...a) => ({ changes: run(text, a).count }),
    db: syncPgDrizzle(conn, pgEncoders(schema, pgTablesFrom(schema)) as never) as unknown as Db,
    close: () => conn.close(),
  }
}

/** Runs `fn` on the data dir's database and closes it. */
export async function withTestDb<T>(dataDir: string, fn: (db: TestDb) => T | Promise<T>, o: { file?: 'taskgate.db' | 'ipfs.db'; readonly?: boolean } = {}): Promise<T> {
  const db = await openTestDb(dataDir, o)
  try { return await fn(db) } finally { db.close() }
}

/**
 * Moves the test clock of a stopped server on by `ms`, as if that much time passed while it was
 * down: its persisted offset (meta 'clock.offsetMs', src/clock.ts) grows.
 */
export async function advanceStoppedClock(dataDir: string, ms: number): Promise<void> {
  await withTestDb(dataDir, (db) => {
    const row = db.query("SELECT value FROM meta WHERE key = 'clock.offsetMs'").get() as { value: string } | null
    db.run("INSERT INTO meta (key, value) VALUES ('clock.offsetMs', ?1) ON CONFLICT(key) DO UPDATE SET value = excluded.value", String(Number(row?.value ?? 0) + ms))
  })
}
