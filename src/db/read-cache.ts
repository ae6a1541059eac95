// A small read-through cache for the hottest point lookups (API key → key row, operator by id).
// Every SQLite read costs a WAL read lock (~4 µs); an authenticated request needs two.
// Correctness:
//  - any write on this process's connection invalidates everything at once (SQLite's
//    total_changes() moves), so a revoke or a status change through the API is seen by the very
//    next request;
//  - writes by another process (the CLI on a live data dir) are seen after at most `ttlMs`.
import type { Database, Statement } from 'bun:sqlite'

export class ReadCache<V> {
  private entries = new Map<string, { value: V; at: number }>()
  private generation = -1
  private changes: Statement

  constructor(db: Database, private ttlMs = 1000, private maxEntries = 50_000) {
    this.changes = db.prepare('SELECT total_changes() AS c')
  }

  get(key: string, load: () => V): V {
    const gen = (this.changes.get() as { c: number }).c
    if (gen !== this.generation) { this.entries.clear(); this.generation = gen }
    const now = performance.now()
    const hit = this.entries.get(key)
    if (hit && now - hit.at < this.ttlMs) return hit.value
    const value = load()
    if (this.entries.size >= this.maxEntries) this.entries.clear()
    this.entries.set(key, { value, at: now })
    return value
  }
}
