// The operators table (docs/architecture.md, "Data layer"). Lookups by id, which every
// authenticated request makes, go through a read cache that any write to the table clears.
import { asc, count, eq, sql } from 'drizzle-orm'
import type { Db } from '../db'
import { readCacheOn, type RowCache } from '../db/read-cache'
import { operators } from '../db/schema'
import { preparedOnUse, setTo } from '../db/sql'

export type OperatorRow = typeof operators.$inferSelect
export type OperatorStatus = OperatorRow['status']
export type OperatorInsert = Pick<OperatorRow, 'id' | 'login' | 'passwordHash' | 'githubId' | 'email' | 'displayName' | 'tier' | 'role' | 'flags' | 'createdAt' | 'updatedAt'>

const p = sql.placeholder

export class OperatorRepository {
  private cached: RowCache<OperatorRow | undefined>
  private q

  constructor(db: Db) {
    this.cached = readCacheOn(db, ['operators'])
    this.q = preparedOnUse({
      byId: () => db.select().from(operators).where(eq(operators.id, p('id'))).prepare(),
      byLogin: () => db.select().from(operators).where(eq(operators.login, p('login'))).prepare(),
      byGithubId: () => db.select().from(operators).where(eq(operators.githubId, p('githubId'))).prepare(),
      admins: () => db.select({ n: count() }).from(operators).where(eq(operators.role, 'admin')).prepare(),
      list: () => db.select().from(operators).orderBy(asc(operators.createdAt)).prepare(),
      insert: () => db.insert(operators).values({
        id: p('id'), login: p('login'), passwordHash: p('passwordHash'), githubId: p('githubId'), email: p('email'), displayName: p('displayName'),
        tier: p('tier'), role: p('role'), flags: p('flags'), createdAt: p('createdAt'), updatedAt: p('updatedAt'),
      }).returning().prepare(),
      update: () => db.update(operators).set({ tier: setTo('tier'), tierOverride: setTo('tierOverride'), status: setTo('status'), updatedAt: setTo('updatedAt') })
        .where(eq(operators.id, p('id'))).returning().prepare(),
      bumpTokenVersion: () => db.update(operators).set({ tokenVersion: sql`${operators.tokenVersion} + 1`, updatedAt: setTo('now') }).where(eq(operators.id, p('id'))).prepare(),
    })
  }

  /** The operator, read through the cache (src/db/read-cache.ts). */
  byId(id: string): OperatorRow | undefined { return this.cached.get(id, () => this.q.byId.get({ id })) }

  byLogin(login: string): OperatorRow | undefined { return this.q.byLogin.get({ login }) }

  byGithubId(githubId: string): OperatorRow | undefined { return this.q.byGithubId.get({ githubId }) }

  countAdmins(): number { return this.q.admins.get()!.n }

  list(): OperatorRow[] { return this.q.list.all() }

  insert(row: OperatorInsert): OperatorRow { return this.q.insert.get(row)! }

  bumpTokenVersion(id: string, now: number): void { this.q.bumpTokenVersion.run({ id, now }) }

  /** Sets the tier, tier override and status; the row after, or undefined when there is none. */
  update(id: string, set: Pick<OperatorRow, 'tier' | 'tierOverride' | 'status' | 'updatedAt'>): OperatorRow | undefined {
    return this.q.update.get({ id, ...set })
  }
}
