// The webhook tables: the outbox's deliveries and the generations of the derived signing secrets.
import { and, count, desc, eq, lt, ne, sql } from 'drizzle-orm'
import type { Db } from '../db'
import { webhookDeliveries as d, webhookSecrets } from '../db/schema'
import { changes, setTo, preparedOnUse } from '../db/sql'

export interface DeliveryRow {
  id: string; operatorId: string; event: string; url: string; body: string; status: string; attempts: number
  lastStatus: number | null; lastError: string | null; nextAttemptAt: number | null; createdAt: number
  /** The A2A push config it is POSTed for (its token and content type are read at each attempt); null for approval webhooks. */
  pushConfigId: string | null
}
export interface NewDelivery { id: string; operatorId: string; approvalId: string | null; pushConfigId: string | null; event: string; url: string; body: string; now: number }
export interface DeliveryOutcome { status: string; attempts: number; lastStatus: number | null; lastError: string | null; nextAttemptAt: number | null; now: number }

const p = sql.placeholder
const cols = {
  id: d.id, operatorId: d.operatorId, event: d.event, url: d.url, body: d.body, status: d.status, attempts: d.attempts,
  lastStatus: d.lastStatus, lastError: d.lastError, nextAttemptAt: d.nextAttemptAt, createdAt: d.createdAt, pushConfigId: d.pushConfigId,
}

export class WebhookRepository {
  private q

  constructor(db: Db) {
    this.q = preparedOnUse({
      insert: () => db.insert(d).values({
        id: p('id'), operatorId: p('operatorId'), approvalId: p('approvalId'), pushConfigId: p('pushConfigId'), event: p('event'), url: p('url'), body: p('body'),
        status: 'pending', attempts: 0, nextAttemptAt: p('now'), createdAt: p('now'), updatedAt: p('now'),
      }).prepare(),
      get: () => db.select(cols).from(d).where(eq(d.id, p('id'))).prepare(),
      page: () => db.select(cols).from(d).where(eq(d.operatorId, p('operatorId'))).orderBy(desc(d.createdAt), desc(d.id)).limit(p('limit')).offset(p('offset')).prepare(),
      count: () => db.select({ n: count() }).from(d).where(eq(d.operatorId, p('operatorId'))).prepare(),
      pending: () => db.select({ id: d.id, nextAttemptAt: d.nextAttemptAt }).from(d).where(eq(d.status, 'pending')).prepare(),
      record: () => db.update(d).set({ status: setTo('status'), attempts: setTo('attempts'), lastStatus: setTo('lastStatus'), lastError: setTo('lastError'), nextAttemptAt: setTo('nextAttemptAt'), updatedAt: setTo('now') })
        .where(eq(d.id, p('id'))).prepare(),
      prune: () => db.delete(d).where(and(lt(d.createdAt, p('before')), ne(d.status, 'pending'))).prepare(),
      generation: () => db.select({ generation: webhookSecrets.generation }).from(webhookSecrets).where(eq(webhookSecrets.operatorId, p('operatorId'))).prepare(),
      bump: () => db.insert(webhookSecrets).values({ operatorId: p('operatorId'), generation: 1, updatedAt: p('now') })
        .onConflictDoUpdate({ target: webhookSecrets.operatorId, set: { generation: sql`${webhookSecrets.generation} + 1`, updatedAt: sql`excluded.updated_at` } })
        .returning({ generation: webhookSecrets.generation }).prepare(),
    })
  }

  insert(r: NewDelivery): void { this.q.insert.run({ ...r }) }
  get(id: string): DeliveryRow | null { return this.q.get.get({ id }) ?? null }
  /** An operator's deliveries, newest first. */
  page(operatorId: string, limit: number, offset: number): DeliveryRow[] { return this.q.page.all({ operatorId, limit, offset }) }
  count(operatorId: string): number { return this.q.count.get({ operatorId })!.n }
  pending(): { id: string; nextAttemptAt: number | null }[] { return this.q.pending.all() }
  record(id: string, o: DeliveryOutcome): void { this.q.record.run({ id, ...o }) }
  /** Deletes the deliveries created before `before` that are over; returns how many. */
  prune(before: number): number { return changes(this.q.prune.run({ before })) }

  /** The generation of the operator's derived secret (0: never rotated). */
  generation(operatorId: string): number { return this.q.generation.get({ operatorId })?.generation ?? 0 }
  /** Moves the operator's derived secret to its next generation and returns it. */
  nextGeneration(operatorId: string, now: number): number { return this.q.bump.get({ operatorId, now })!.generation }
}
