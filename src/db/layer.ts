// The service's database, whichever it is (docs/architecture.md, "Data layer"): <dataDir>/taskgate.db
// on SQLite (the default), or PostgreSQL when TASKGATE_DATABASE_URL is set (docs/scale-out.md).
// Everything above it — repositories, services, the server, the CLI — takes the drizzle `db`, the
// Transactor and this handle's few operations, and does not ask which one it is.
import type { Database } from 'bun:sqlite'
import * as schema from './schema'
import { databaseAnswers, truncateWal, type Db } from './index'
import { openMigrated } from './template'
import { SqliteTransactor, type Transactor } from './transactor'
import type { Dialect } from './dialect'
import { PgConnection } from './pg/connection'
import { syncPgDrizzle } from './pg/drizzle'
import { migratePg } from './pg/migrate'
import { pgEncoders, pgTablesFrom } from './pg/tables'
import { PgTransactor } from './pg/transactor'

export interface DataLayer {
  readonly dialect: Dialect
  readonly db: Db
  readonly tx: Transactor
  /** Migrations applied at opening. */
  readonly applied: number
  /** SQLite: the connection (checkpoints, the storage probe); null on PostgreSQL. */
  readonly sqlite: Database | null
  /** Whether the database answers a trivial query (`/readyz`); never throws. */
  answers(): boolean
  /** A trivial query that throws what the database's fault is (the storage monitor's probe in PostgreSQL mode). */
  ping(): void
  /** Where the database lives, for logs and messages (never a password). */
  readonly where: string
  /** Closes the connection (SQLite: after emptying the write-ahead log into the file). */
  close(): void
}

export interface OpenOptions { dataDir: string; databaseUrl: string; databaseTimeoutMs?: number }

/** Opens the configured database with every migration applied. */
export function openDataLayer(o: OpenOptions): DataLayer {
  return o.databaseUrl ? openPostgres(o.databaseUrl, o.databaseTimeoutMs ?? 1000) : openSqlite(o.dataDir)
}

function openSqlite(dataDir: string): DataLayer {
  const { db, fromTemplate, applied } = openMigrated(dataDir) // a new data dir starts from the binary's migrated empty database
  const sqlite = db.$client
  // Migrations' pages go to the database file now (not to whoever commits next), and the log starts
  // empty: the checkpoint worker starts with the write load that follows (src/db/checkpointer.ts).
  if (applied) truncateWal(sqlite)
  return {
    dialect: 'sqlite', db, tx: new SqliteTransactor(sqlite), applied: fromTemplate + applied, sqlite,
    where: `${dataDir}/taskgate.db`,
    answers: () => databaseAnswers(sqlite),
    ping: () => { sqlite.query('SELECT 1').get() },
    close: () => { truncateWal(sqlite); sqlite.close() },
  }
}

/** The URL without its password, for messages. */
export const redactedUrl = (url: string): string => {
  try { const u = new URL(url); if (u.password) u.password = '***'; return u.toString() } catch { return 'postgres://…' }
}

function openPostgres(url: string, timeoutMs: number): DataLayer {
  const conn = new PgConnection(url, { timeoutMs })
  const applied = migratePg(conn)
  const db = syncPgDrizzle(conn, pgEncoders(schema, pgTablesFrom(schema)) as never) as unknown as Db
  return {
    dialect: 'postgres', db, tx: new PgTransactor(conn), applied, sqlite: null,
    where: redactedUrl(url),
    answers: () => { try { conn.query('SELECT 1'); return true } catch { return false } },
    ping: () => { conn.query('SELECT 1') },
    close: () => conn.close(),
  }
}

