// Pioneer points' tables (docs/architecture.md, "Data layer"): the events, and each operator's
// total, which triggers on the events keep (migration 0009).
import { desc, eq, sql } from 'drizzle-orm'
import type { Db } from '../db'
import { pioneerEvents, pioneerTotals } from '../db/schema'
import { preparedOnUse } from '../db/sql'

const p = sql.placeholder

export class PioneerRepository {
  private q

  constructor(db: Db) {
    const e = pioneerEvents
    this.q = preparedOnUse({
      award: () => db.insert(e).values({ operatorId: p('operatorId'), kind: p('kind'), points: p('points'), ref: p('ref'), createdAt: p('createdAt') })
        .onConflictDoNothing({ target: e.ref }).returning({ id: e.id }).prepare(),
      total: () => db.select({ n: pioneerTotals.points }).from(pioneerTotals).where(eq(pioneerTotals.operatorId, p('operatorId'))).prepare(),
      list: () => db.select({ id: e.id, kind: e.kind, points: e.points, ref: e.ref, createdAt: e.createdAt }).from(e)
        .where(eq(e.operatorId, p('operatorId'))).orderBy(desc(e.id)).limit(p('limit')).prepare(),
    })
  }

  /** Records the event unless one with its ref exists; whether it was recorded. */
  award(e: { operatorId: string; kind: string; points: number; ref: string; createdAt: number }): boolean { return this.q.award.get(e) !== undefined }

  total(operatorId: string): number { return this.q.total.get({ operatorId })?.n ?? 0 }

  /** The operator's events, newest first. */
  events(operatorId: string, limit: number): { id: number; kind: string; points: number; ref: string; createdAt: number }[] { return this.q.list.all({ operatorId, limit }) }
}
