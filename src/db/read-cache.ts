// A small read-through cache for the hottest point lookups (API key → key row, operator by id).
// Every SQLite read costs a WAL read lock (two fcntl calls); an authenticated task needed three
// such reads of rows that almost never change.
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

const WRITES = 'temp.taskgate_table_writes'

/**
 * Counts every INSERT, UPDATE and DELETE on `tables` made through this connection (TEMP triggers,
 * which live as long as the connection); idempotent. Returns the statement that reads their sum.
 */
export function watchWrites(db: Database, tables: readonly string[]): Statement {
  db.run(`CREATE TEMP TABLE IF NOT EXISTS ${WRITES.slice(5)} (name TEXT PRIMARY KEY, n INTEGER NOT NULL)`)
  for (const t of tables) {
    if (!/^[a-z_]+$/.test(t)) throw new Error(`not a table name: ${t}`)
    db.query(`INSERT OR IGNORE INTO ${WRITES} (name, n) VALUES (?1, 0)`).run(t)
    for (const op of ['INSERT', 'UPDATE', 'DELETE']) {
      db.run(`CREATE TEMP TRIGGER IF NOT EXISTS taskgate_writes_${t}_${op.toLowerCase()} AFTER ${op} ON main.${t} BEGIN UPDATE ${WRITES} SET n = n + 1 WHERE name = '${t}'; END`)
    }
  }
  return db.prepare(`SELECT sum(n) AS n FROM ${WRITES} WHERE name IN (${tables.map((t) => `'${t}'`).join(', ')})`)
}

export class ReadCache<V> {
  private entries = new Map<string, { value: V; at: number }>()
  private generation = -1
  private writes: Statement
  private changes: Statement
  private lastChanges = -1

  /** `tables`: every table a cached value is read from. `now`: a monotonic clock in ms (tests give their own). */
  constructor(private db: Database, tables: readonly string[], private ttlMs = 1000, private maxEntries = 50_000, private now = () => performance.now()) {
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
