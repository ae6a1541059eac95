// The rate limiters' windows in the database (PostgreSQL mode; docs/scale-out.md, "Replicas"): the
// replicas of one database count every request together, so a limit holds across them exactly as
// on one box. Each change reads the key's row locked, decides, and writes it back in one
// transaction (four round trips, ~0.4 ms on loopback); SQLite mode keeps the windows in memory.
import { and, eq, lte, sql } from 'drizzle-orm'
import type { Db } from '../db'
import { forUpdate } from '../db/dialect'
import { rateWindows as t } from '../db/schema'
import { preparedOnUse } from '../db/sql'
import type { Transactor } from '../db/transactor'
import type { Window, WindowStore } from './ratelimit'

const p = sql.placeholder

export class RateWindowRepository {
  private q

  constructor(db: Db) {
    this.q = preparedOnUse({
      get: () => db.select({ start: t.start, prev: t.prev, curr: t.curr }).from(t).where(eq(t.key, p('key'))).prepare(),
      locked: () => forUpdate(db, db.select({ start: t.start, prev: t.prev, curr: t.curr }).from(t).where(eq(t.key, p('key')))).prepare(),
      put: () => db.insert(t).values({ key: p('key'), start: p('start'), prev: p('prev'), curr: p('curr') })
        .onConflictDoUpdate({ target: t.key, set: { start: sql`excluded.start`, prev: sql`excluded.prev`, curr: sql`excluded.curr` } }).prepare(),
      delete: () => db.delete(t).where(eq(t.key, p('key'))).prepare(),
      sweep: () => db.delete(t).where(and(sql`substr(${t.key}, 1, ${p('length')}) = ${p('prefix')}`, lte(t.start, p('before')))).prepare(),
    })
  }

  get(key: string): Window | undefined { return this.q.get.get({ key }) }
  /** The row, locked until the transaction ends (PostgreSQL). */
  locked(key: string): Window | undefined { return this.q.locked.get({ key }) }
  put(key: string, w: Window): void { this.q.put.run({ key, ...w }) }
  delete(key: string): void { this.q.delete.run({ key }) }
  /** Deletes the windows under `prefix` that started at or before `before`. */
  sweep(prefix: string, before: number): void { this.q.sweep.run({ prefix, length: prefix.length, before }) }
}

/** One limiter's windows in the table, its keys under `name:`. */
export class DbWindows implements WindowStore {
  constructor(private name: string, private repo: RateWindowRepository, private tx: Transactor) {}

  update<T>(key: string, fn: (w: Window | undefined) => { window: Window | null; answer: T }): T {
    const k = `${this.name}:${key}`
    return this.tx.write(() => {
      const stored = this.repo.locked(k)
      const { window, answer } = fn(stored)
      if (window) this.repo.put(k, window)
      else if (stored) this.repo.delete(k)
      return answer
    })
  }

  get(key: string): Window | undefined { return this.repo.get(`${this.name}:${key}`) }

  sweep(before: number): void { this.repo.sweep(`${this.name}:`, before) }
}
