// The A2A door's table: push notification configs (docs/doors.md, "A2A", "Push notifications").
import { and, asc, count, eq, isNotNull, isNull, lt, sql } from 'drizzle-orm'
import type { Db } from '../db'
import { a2aPushConfigs as c } from '../db/schema'
import { changes, preparedOnUse, setTo } from '../db/sql'

/** A stored config; the token and the credentials stay sealed (src/secrets.ts) until a delivery or the owner's read needs them. */
export type PushConfigRow = typeof c.$inferSelect

const p = sql.placeholder

export class A2aRepository {
  private q

  constructor(db: Db) {
    this.q = preparedOnUse({
      insert: () => db.insert(c).values({
        id: p('id'), taskId: p('taskId'), configId: p('configId'), operatorId: p('operatorId'), agentId: p('agentId'), url: p('url'),
        tokenSealed: p('tokenSealed'), authScheme: p('authScheme'), authCredentialsSealed: p('authCredentialsSealed'),
        protocolVersion: p('protocolVersion'), createdAt: p('createdAt'), doneAt: p('doneAt'),
      }).prepare(),
      get: () => db.select().from(c).where(eq(c.id, p('id'))).prepare(),
      byConfigId: () => db.select().from(c).where(and(eq(c.taskId, p('taskId')), eq(c.configId, p('configId')))).prepare(),
      forTask: () => db.select().from(c).where(eq(c.taskId, p('taskId'))).orderBy(asc(c.createdAt), asc(c.id)).prepare(),
      countForTask: () => db.select({ n: count() }).from(c).where(eq(c.taskId, p('taskId'))).prepare(),
      countLive: () => db.select({ n: count() }).from(c).where(and(eq(c.operatorId, p('operatorId')), isNull(c.doneAt))).prepare(),
      remove: () => db.delete(c).where(eq(c.id, p('id'))).prepare(),
      markDone: () => db.update(c).set({ doneAt: setTo('now') }).where(and(eq(c.taskId, p('taskId')), isNull(c.doneAt))).prepare(),
      forOperator: () => db.select().from(c).where(eq(c.operatorId, p('operatorId'))).orderBy(asc(c.createdAt), asc(c.id)).prepare(),
      prune: () => db.delete(c).where(and(isNotNull(c.doneAt), lt(c.doneAt, p('before')))).prepare(),
    })
  }

  insert(r: PushConfigRow): void { this.q.insert.run({ ...r }) }
  get(id: string): PushConfigRow | null { return this.q.get.get({ id }) ?? null }
  /** The task's config with the client's id `configId`. */
  byConfigId(taskId: string, configId: string): PushConfigRow | null { return this.q.byConfigId.get({ taskId, configId }) ?? null }
  /** The task's configs, oldest first. */
  forTask(taskId: string): PushConfigRow[] { return this.q.forTask.all({ taskId }) }
  countForTask(taskId: string): number { return this.q.countForTask.get({ taskId })!.n }
  /** The operator's configs of unfinished tasks. */
  countLive(operatorId: string): number { return this.q.countLive.get({ operatorId })!.n }
  /** Deletes one config; whether it existed. */
  remove(id: string): boolean { return changes(this.q.remove.run({ id })) > 0 }
  /** The task finished: its configs are done (nothing more is sent). */
  markDone(taskId: string, now: number): void { this.q.markDone.run({ taskId, now }) }
  /** Every config of the operator's tasks, oldest first (the data export). */
  forOperator(operatorId: string): PushConfigRow[] { return this.q.forOperator.all({ operatorId }) }
  /** Deletes the configs of tasks that finished before `before`; returns how many. */
  prune(before: number): number { return changes(this.q.prune.run({ before })) }
}
