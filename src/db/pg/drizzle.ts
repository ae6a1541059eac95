// drizzle's PostgreSQL query builder on PgConnection (./connection.ts), synchronous like
// drizzle's bun:sqlite driver: a prepared query answers get(), all(), values() and run() at once,
// so a repository's statements read the same on both dialects (docs/architecture.md, "Data
// layer"). Rows of a select with fields are read as arrays and mapped by drizzle (its column
// types: bigint { mode: 'number' } → number, boolean → boolean); other statements answer objects.
// Transactions are not drizzle's here: the data layer's Transactor opens them on the connection.
import { entityKind, fillPlaceholders, is, Param, type DriverValueEncoder, type Query } from 'drizzle-orm'
import { PgDatabase, PgDialect, PgPreparedQuery, PgSession, type PgQueryResultHKT, type PreparedQueryConfig } from 'drizzle-orm/pg-core'
import type { SelectedFieldsOrdered } from 'drizzle-orm/pg-core/query-builders/select.types'
import * as drizzleUtils from 'drizzle-orm/utils'
import type { PgConnection } from './connection'

type Values = Record<string, unknown>
type Mapper = (rows: unknown[][]) => unknown
/** drizzle's row mapper, which each of its drivers uses; internal, so not in its published types. */
const mapResultRow = (drizzleUtils as unknown as { mapResultRow: (fields: SelectedFieldsOrdered, row: unknown[], joins: undefined) => unknown }).mapResultRow

/** Columns of the schema whose values PostgreSQL stores otherwise, and the encoder of their PostgreSQL twin (src/db/pg/tables.ts). */
export type Encoders = Map<unknown, DriverValueEncoder<unknown, unknown>>

export class SyncPgQuery extends PgPreparedQuery<PreparedQueryConfig> {
  static override readonly [entityKind]: string = 'TaskGateSyncPgQuery'
  private params: unknown[]

  constructor(private conn: PgConnection, private q: Query, private fields: SelectedFieldsOrdered | undefined, private mapper: Mapper | undefined, encoders: Encoders) {
    super(q, undefined, undefined, undefined)
    // A placeholder bound to such a column is encoded as its twin would (the verification record as JSON text).
    this.params = encoders.size ? q.params.map((p) => (is(p, Param) && encoders.has(p.encoder) ? new Param(p.value, encoders.get(p.encoder)) : p)) : q.params
  }

  private args(v?: Values): unknown[] { return fillPlaceholders(this.params, v ?? {}) }

  all(v?: Values): unknown[] {
    if (!this.fields && !this.mapper) return this.conn.query(this.q.sql, this.args(v)).rows
    const rows = this.conn.values(this.q.sql, this.args(v)).rows
    return (this.mapper ? this.mapper(rows) : rows.map((r) => mapResultRow(this.fields!, r, undefined))) as unknown[]
  }

  get(v?: Values): unknown { return this.all(v)[0] }

  values(v?: Values): unknown[][] { return this.conn.values(this.q.sql, this.args(v)).rows }

  /** The statement's effect: the rows it changed (bun:sqlite's `changes`). */
  run(v?: Values): { changes: number } { return { changes: this.conn.query(this.q.sql, this.args(v)).count } }

  // drizzle's own callers (db.execute, relational queries) await this: a value is fine to await.
  override execute(v?: Values): Promise<unknown> { return this.all(v) as never }

  /** @internal */
  isResponseInArrayMode(): boolean { return false }
}

class SyncPgSession extends PgSession<PgQueryResultHKT, Record<string, never>, Record<string, never>> {
  static override readonly [entityKind]: string = 'TaskGateSyncPgSession'

  constructor(private conn: PgConnection, dialect: PgDialect, private encoders: Encoders) { super(dialect) }

  prepareQuery(query: Query, fields: SelectedFieldsOrdered | undefined, _name: string | undefined, _arrayMode: boolean, mapper?: Mapper): SyncPgQuery {
    return new SyncPgQuery(this.conn, query, fields, mapper, this.encoders)
  }

  override transaction(): never { throw new Error('transactions go through the Transactor (src/db/transactor.ts)') }
}

/**
 * A drizzle database for PostgreSQL whose prepared queries run synchronously on `conn` (also its
 * `$client`, as bun:sqlite's connection is the SQLite database's; src/db/dialect.ts).
 */
export function syncPgDrizzle(conn: PgConnection, encoders: Encoders = new Map()): PgDatabase<PgQueryResultHKT> & { $client: PgConnection } {
  const dialect = new PgDialect()
  const db = new PgDatabase(dialect, new SyncPgSession(conn, dialect, encoders) as never, undefined) as PgDatabase<PgQueryResultHKT> & { $client: PgConnection }
  db.$client = conn
  return db
}
