// A small read-through cache for the hottest point lookups (API key → key row, operator by id, an
// agent's identity). Every SQLite read costs a WAL read lock (two fcntl calls); a submit needed
// four such reads of rows that almost never change.
// Correctness:
//  - a write to a table the cache depends on, on this process's connection, invalidates it at
//    once: TEMP triggers count the writes per table in a TEMP table (in memory, read without a WAL
//    lock), so a revoke or a status change through the API is seen by the very next request, and
//    the pipeline's writes to other tables no longer empty it every task;
//  - only rows read outside a transaction (committed) are kept: a count moved by a transaction
//    that is rolled back goes back to where it was, and must not meet a row that was never
//    committed;
//  - writes by another process (the CLI on a live data dir) are seen after at most `ttlMs`.
import type { Database, Statement } from 'bun:sqlite'
import type { Db } from './index'
import { isPostgres } from './dialect'

const WRITES = 'temp.taskgate_table_writes'

/**
 * A table whose writes a cache depends on: all of them, or (`columns`) its INSERTs, DELETEs and
 * the UPDATEs of those columns only, counted under `as`.
 */
export type Watched = string | { table: string; columns: readonly string[]; as: string }

const NAME = /^[a-z_]+$/

/**
 * Counts the writes to `watched` made through this connection (TEMP triggers, which live as long
 * as the connection); idempotent. Returns the statement that reads their sum.
 */
export function watchWrites(db: Database, watched: readonly Watched[]): Statement {
  db.run(`CREATE TEMP TABLE IF NOT EXISTS ${WRITES.slice(5)} (name TEXT PRIMARY KEY, n INTEGER NOT NULL)`)
  const names: string[] = []
  for (const w of watched) {
    const { table, columns, as } = typeof w === 'string' ? { table: w, columns: null, as: w } : w
    if (![table, as, ...(columns ?? [])].every((x) => NAME.test(x))) throw new Error(`not a table or column name: ${JSON.stringify(w)}`)
    names.push(as)
    db.query(`INSERT OR IGNORE INTO ${WRITES} (name, n) VALUES (?1, 0)`).run(as)
    const bump = `BEGIN UPDATE ${WRITES} SET n = n + 1 WHERE name = '${as}'; END`
    db.run(`CREATE TEMP TRIGGER IF NOT EXISTS taskgate_writes_${as}_insert AFTER INSERT ON main.${table} ${bump}`)
    db.run(`CREATE TEMP TRIGGER IF NOT EXISTS taskgate_writes_${as}_delete AFTER DELETE ON main.${table} ${bump}`)
    db.run(`CREATE TEMP TRIGGER IF NOT EXISTS taskgate_writes_${as}_update AFTER UPDATE${columns ? ` OF ${columns.join(', ')}` : ''} ON main.${table} ${bump}`)
  }
  return db.prepare(`SELECT sum(n) AS n FROM ${WRITES} WHERE name IN (${names.map((t) => `'${t}'`).join(', ')})`)
}

export class ReadCache<V> {
  private entries = new Map<string, { value: V; at: number }>()
  private generation = -1
  private writes: Statement
  private changes: Statement
  private lastChanges = -1

  /** `tables`: every table (or the columns of one) a cached value is read from. `now`: a monotonic clock in ms (tests give their own). */
  constructor(private db: Database, tables: readonly Watched[], private ttlMs = 1000, private maxEntries = 50_000, private now = () => performance.now()) {
    this.writes = watchWrites(db, tables)
    this.changes = db.prepare('SELECT total_changes() AS c')
  }

  get(key: string, load: () => V): V {
    // total_changes() (any write through this connection, a few tens of ns) first: while it stands
    // still, so do the watched tables, and the write counts need no read.
    const changes = (this.changes.get() as { c: number }).c
    let valid = changes === this.lastChanges
    if (!valid) {
      const gen = (this.writes.get() as { n: number }).n
      // Inside a transaction the counts may still go back (a rollback): compared, never recorded.
      if (this.db.inTransaction) valid = gen === this.generation
      else {
        this.lastChanges = changes
        if (gen !== this.generation) { this.entries.clear(); this.generation = gen }
        valid = true
      }
    }
    const now = this.now()
    if (valid) {
      const hit = this.entries.get(key)
      if (hit && now - hit.at < this.ttlMs) return hit.value
    }
    const value = load()
    if (!valid || this.db.inTransaction) return value // possibly uncommitted: not kept
    if (this.entries.size >= this.maxEntries) this.entries.clear()
    this.entries.set(key, { value, at: now })
    return value
  }
}

/** What a repository caches through: a ReadCache on SQLite. */
export interface RowCache<V> { get(key: string, load: () => V): V }

/**
 * A ReadCache over `db`'s connection on SQLite; on PostgreSQL none (every read goes to the
 * database): replicas write the same rows, and no TEMP trigger sees another replica's writes, so a
 * revoked key or a suspended operator is refused by every replica at once.
 */
export function readCacheOn<V>(db: Db, tables: readonly Watched[]): RowCache<V> {
  return isPostgres(db) ? { get: (_key, load) => load() } : new ReadCache<V>(db.$client, tables)
}
