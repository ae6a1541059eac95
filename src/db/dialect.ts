// Which database a drizzle `Db` runs on, for the few statements each dialect says its own way
// (docs/architecture.md, "Data layer"). Repositories are written once against the schema
// (src/db/schema.ts); on PostgreSQL their `db` is drizzle's PostgreSQL builder on the synchronous
// connection (src/db/pg/drizzle.ts), and `$client` is that connection.
import { sql, type AnyColumn, type SQL } from 'drizzle-orm'
import type { Db } from './index'
import { PgConnection } from './pg/connection'

export type Dialect = 'sqlite' | 'postgres'

export const dialectOf = (db: Db): Dialect => ((db.$client as unknown) instanceof PgConnection ? 'postgres' : 'sqlite')

export const isPostgres = (db: Db): boolean => dialectOf(db) === 'postgres'

/**
 * A select that locks its rows until the write transaction ends: FOR UPDATE on PostgreSQL (two
 * replicas read-and-set one row in turn); on SQLite the query as it is (its write transaction
 * already holds the database). drizzle's SQLite builder has no `.for()`, hence the cast.
 */
export function forUpdate<Q>(db: Db, query: Q): Q {
  return isPostgres(db) ? (query as unknown as { for(strength: 'update'): Q }).for('update') : query
}

/**
 * The last tie-breaker of an ORDER BY over rows written in one millisecond: insertion order on
 * SQLite (rowid); PostgreSQL keeps none, so there the row's primary key (a stable, if arbitrary, order).
 */
export const insertionOrder = (db: Db, primaryKey: AnyColumn): SQL => (isPostgres(db) ? sql`${primaryKey}` : sql`rowid`)
