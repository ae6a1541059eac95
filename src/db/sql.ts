// Prepared statements from drizzle's typed `sql` template, for the queries its query builder cannot
// say (docs/architecture.md, "Data layer"): an ON CONFLICT target with a WHERE, correlated
// subqueries, json functions, INDEXED BY. Tables and columns interpolate as names, values as
// parameters, `sql.placeholder(name)` as a named value given at each call. Rows come back as the
// driver returns them (column aliases name the fields).
import type { SQLQueryBindings, Statement } from 'bun:sqlite'
import { fillPlaceholders, sql, type SQL } from 'drizzle-orm'
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core'
import { PgDialect } from 'drizzle-orm/pg-core'
import type { Database } from 'bun:sqlite'
import type { Db } from './index'
import { PgConnection } from './pg/connection'

const dialect = new SQLiteSyncDialect()
const pgDialect = new PgDialect()

export interface PreparedSql<Row> {
  get(values?: Record<string, unknown>): Row | undefined
  all(values?: Record<string, unknown>): Row[]
  /** Rows as arrays of column values, in the select list's order. */
  values(values?: Record<string, unknown>): unknown[][]
  iterate(values?: Record<string, unknown>): IterableIterator<Row>
  run(values?: Record<string, unknown>): { changes: number }
}

/**
 * Prepares `query` once on `db`'s connection (a drizzle `Db`, or ipfs.db's connection). On
 * PostgreSQL (src/db/dialect.ts) the statement is sent as it is at each call: the server plans it.
 */
export function prepareSql<Row = Record<string, unknown>>(db: Db | Database, query: SQL): PreparedSql<Row> {
  const conn = '$client' in db ? db.$client as Database | PgConnection : db
  if (conn instanceof PgConnection) return preparePg<Row>(conn, query)
  const q = dialect.sqlToQuery(query)
  const stmt: Statement = conn.prepare(q.sql)
  const args = (v?: Record<string, unknown>) => fillPlaceholders(q.params, v ?? {}) as SQLQueryBindings[]
  return {
    get: (v) => (stmt.get(...args(v)) as Row | null) ?? undefined,
    all: (v) => stmt.all(...args(v)) as Row[],
    values: (v) => stmt.values(...args(v)) as unknown[][],
    iterate: (v) => stmt.iterate(...args(v)) as IterableIterator<Row>,
    run: (v) => stmt.run(...args(v)),
  }
}

function preparePg<Row>(conn: PgConnection, query: SQL): PreparedSql<Row> {
  const q = pgDialect.sqlToQuery(query)
  const args = (v?: Record<string, unknown>) => fillPlaceholders(q.params, v ?? {})
  return {
    get: (v) => conn.query<Row>(q.sql, args(v)).rows[0],
    all: (v) => conn.query<Row>(q.sql, args(v)).rows,
    values: (v) => conn.values(q.sql, args(v)).rows,
    iterate: (v) => conn.query<Row>(q.sql, args(v)).rows[Symbol.iterator](),
    run: (v) => ({ changes: conn.query(q.sql, args(v)).count }),
  }
}

/** A named value in an UPDATE's SET (drizzle's types take no placeholder there; the statement is the same). */
export const setTo = (name: string): SQL => sql`${sql.placeholder(name)}`

/** Rows a prepared write changed (bun:sqlite's result, which drizzle's bun-sqlite types leave as void). */
export const changes = (result: unknown): number => (result as { changes: number }).changes

/**
 * A repository's statements, each built and prepared at its first use rather than all at start-up:
 * building a drizzle query runs ~0.4 ms of not yet compiled JavaScript, and a server has ~200 of
 * them, most of which a given run never needs (docs/architecture.md, "Data layer").
 */
export function preparedOnUse<T extends Record<string, () => unknown>>(makers: T): { readonly [K in keyof T]: ReturnType<T[K]> } {
  const out = {} as Record<string, unknown>
  for (const key of Object.keys(makers)) {
    Object.defineProperty(out, key, {
      configurable: true,
      enumerable: true,
      get() {
        const value = makers[key]!()
        Object.defineProperty(out, key, { value, enumerable: true })
        return value
      },
    })
  }
  return out as { readonly [K in keyof T]: ReturnType<T[K]> }
}
