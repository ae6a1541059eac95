// The compute tables: providers and their pool keys, the models' prices (model_prices), the
// overflow queue's jobs (compute_jobs) and their event logs (compute_job_events).
import { and, asc, count, eq, gt, lt, sql } from 'drizzle-orm'
import type { Db } from '../db'
import { computeJobEvents as ev, computeJobs as j, modelPrices, providerKeys, providers } from '../db/schema'
import { changes, prepareSql, setTo, preparedOnUse } from '../db/sql'

const p = sql.placeholder

export interface ProviderRow { id: string; name: string; kind: 'openai' | 'anthropic' | 'builtin'; baseUrl: string | null; models: string; createdAt: number }
/** A pool key as stored: `secret` sealed. */
export interface KeyRow { id: string; secret: string; first4: string; last4: string; rpm: number; concurrency: number }
export interface ComputeJobRow {
  id: string; operatorId: string; taskId: string | null; agentId: string | null; model: string; request: string; status: string; result: string | null
  errorCode: string | null; errorMessage: string | null; creditsCharged: number; createdAt: number
}
export interface QueueHead { id: string; operatorId: string; taskId: string | null; model: string; request: string; createdAt: number }
/** A new queued job; `request` as JSON text. */
export interface NewComputeJob { id: string; operatorId: string; taskId: string | null; agentId: string | null; model: string; request: string; creditsCharged: number; idempotencyKey: string | null; requestHash: string | null; createdAt: number }
export interface EventRow { id: number; event: string; data: string }
/** A model's price in USD per million tokens. */
export interface PriceRow { model: string; inputUsdPerMTok: number; outputUsdPerMTok: number; updatedAt: number }

export class ComputeRepository {
  private q

  constructor(db: Db) {
    const queued = eq(j.status, 'queued')
    this.q = preparedOnUse({
      hasBuiltin: () => db.select({ x: sql<number>`1` }).from(providers).where(eq(providers.kind, 'builtin')).prepare(),
      providers: () => db.select({ id: providers.id, name: providers.name, kind: providers.kind, baseUrl: providers.baseUrl, models: sql<string>`${providers.models}`, createdAt: providers.createdAt })
        .from(providers).orderBy(asc(providers.createdAt)).prepare(),
      keysOf: () => db.select({ id: providerKeys.id, secret: providerKeys.secret, first4: providerKeys.first4, last4: providerKeys.last4, rpm: providerKeys.rpm, concurrency: providerKeys.concurrency })
        .from(providerKeys).where(eq(providerKeys.providerId, p('providerId'))).orderBy(asc(providerKeys.createdAt), asc(providerKeys.position)).prepare(),
      named: () => db.select({ x: sql<number>`1` }).from(providers).where(eq(providers.name, p('name'))).prepare(),
      insertProvider: () => db.insert(providers).values({ id: p('id'), name: p('name'), kind: p('kind'), baseUrl: p('baseUrl'), models: setTo('models'), createdAt: p('createdAt') }).prepare(),
      insertKey: () => db.insert(providerKeys).values({
        id: p('id'), providerId: p('providerId'), secret: p('secret'), first4: p('first4'), last4: p('last4'), rpm: p('rpm'), concurrency: p('concurrency'), createdAt: p('createdAt'), position: p('position'),
      }).prepare(),
      deleteProvider: () => db.delete(providers).where(eq(providers.id, p('id'))).prepare(),
      prices: () => db.select().from(modelPrices).orderBy(asc(modelPrices.model)).prepare(),
      setPrice: () => db.insert(modelPrices).values({ model: p('model'), inputUsdPerMTok: p('inputUsdPerMTok'), outputUsdPerMTok: p('outputUsdPerMTok'), updatedAt: p('updatedAt') })
        .onConflictDoUpdate({ target: modelPrices.model, set: { inputUsdPerMTok: sql`excluded.input_usd_per_mtok`, outputUsdPerMTok: sql`excluded.output_usd_per_mtok`, updatedAt: sql`excluded.updated_at` } }).prepare(),
      deletePrice: () => db.delete(modelPrices).where(eq(modelPrices.model, p('model'))).prepare(),

      queuedCount: () => db.select({ n: count() }).from(j).where(queued).prepare(),
      insertJob: () => db.insert(j).values({
        id: p('id'), operatorId: p('operatorId'), taskId: p('taskId'), agentId: p('agentId'), model: p('model'), request: setTo('request'), status: 'queued',
        creditsCharged: p('creditsCharged'), idempotencyKey: p('idempotencyKey'), requestHash: p('requestHash'), createdAt: p('createdAt'),
      }).prepare(),
      event: () => db.insert(ev).values({ jobId: p('jobId'), event: p('event'), data: setTo('data'), at: p('at') }).returning({ id: ev.id }).prepare(),
      job: () => db.select({
        id: j.id, operatorId: j.operatorId, taskId: j.taskId, agentId: j.agentId, model: j.model, request: sql<string>`${j.request}`, status: j.status,
        result: sql<string | null>`${j.result}`, errorCode: j.errorCode, errorMessage: j.errorMessage, creditsCharged: j.creditsCharged, createdAt: j.createdAt,
      }).from(j).where(eq(j.id, p('id'))).prepare(),
      // The oldest queued job of each (operator, model): index compute_jobs(status, operator_id, model, created_at).
      heads: () => prepareSql<QueueHead>(db, sql`SELECT id, operator_id AS "operatorId", task_id AS "taskId", model, request, created_at AS "createdAt" FROM ${j} c
        WHERE status = 'queued' AND created_at = (SELECT min(created_at) FROM ${j} WHERE status = 'queued' AND operator_id = c.operator_id AND model = c.model)
        ORDER BY created_at, id`),
      // Jobs ahead of this one for the same model (jobs for other models do not hold it up).
      position: () => db.select({ n: count() }).from(j)
        .where(and(queued, eq(j.model, p('model')), sql`(${j.createdAt} < ${p('createdAt')} OR (${j.createdAt} = ${p('createdAt')} AND ${j.id} < ${p('id')}))`)).prepare(),
      byIdempotencyKey: () => db.select({ id: j.id, requestHash: j.requestHash }).from(j).where(and(eq(j.operatorId, p('operatorId')), eq(j.idempotencyKey, p('key')))).prepare(),
      firstEvent: () => db.select({ data: sql<string>`${ev.data}` }).from(ev).where(and(eq(ev.jobId, p('jobId')), eq(ev.event, p('event')))).orderBy(asc(ev.id)).limit(1).prepare(),
      setRunning: () => db.update(j).set({ status: 'running', startedAt: setTo('now') }).where(and(eq(j.id, p('id')), queued)).prepare(),
      setQueued: () => db.update(j).set({ status: 'queued' }).where(eq(j.id, p('id'))).prepare(),
      finish: () => db.update(j).set({ status: setTo('status'), result: setTo('result'), errorCode: setTo('errorCode'), errorMessage: setTo('errorMessage'), finishedAt: setTo('now') })
        .where(eq(j.id, p('id'))).prepare(),
      events: () => db.select({ id: ev.id, event: ev.event, data: sql<string>`${ev.data}` }).from(ev).where(and(eq(ev.jobId, p('jobId')), gt(ev.id, p('after')))).orderBy(asc(ev.id)).prepare(),
      recover: () => db.update(j).set({ status: 'queued', startedAt: null }).where(eq(j.status, 'running')).prepare(),
      recoverStartedBefore: () => db.update(j).set({ status: 'queued', startedAt: null }).where(and(eq(j.status, 'running'), lt(j.startedAt, p('before')))).prepare(),
      cancelQueued: () => db.update(j).set({ status: 'failed', errorCode: setTo('code'), errorMessage: setTo('message'), finishedAt: setTo('now') })
        .where(and(eq(j.operatorId, p('operatorId')), queued)).returning({ id: j.id, taskId: j.taskId }).prepare(),
      cancelJob: () => db.update(j).set({ status: 'failed', errorCode: setTo('code'), errorMessage: setTo('message'), finishedAt: setTo('now') })
        .where(and(eq(j.id, p('id')), queued)).prepare(),
    })
  }

  hasBuiltinProvider(): boolean { return this.q.hasBuiltin.get() !== undefined }
  /** Providers, oldest first; `models` as JSON text. */
  providers(): ProviderRow[] { return this.q.providers.all() }
  /** A provider's pool keys in the order they were added. */
  keysOf(providerId: string): KeyRow[] { return this.q.keysOf.all({ providerId }) }
  providerNamed(name: string): boolean { return this.q.named.get({ name }) !== undefined }
  insertProvider(r: { id: string; name: string; kind: string; baseUrl: string | null; models: string[]; createdAt: number }): void {
    this.q.insertProvider.run({ ...r, models: JSON.stringify(r.models) })
  }
  insertKey(r: KeyRow & { providerId: string; createdAt: number; position: number }): void { this.q.insertKey.run({ ...r }) }
  deleteProvider(id: string): void { this.q.deleteProvider.run({ id }) }

  /** Every model's price, by model name. */
  prices(): PriceRow[] { return this.q.prices.all() }
  setPrice(r: PriceRow): void { this.q.setPrice.run({ ...r }) }
  /** Removes a model's price; false when it had none. */
  deletePrice(model: string): boolean { return changes(this.q.deletePrice.run({ model })) > 0 }

  queuedCount(): number { return this.q.queuedCount.get()!.n }
  insertJob(r: NewComputeJob): void { this.q.insertJob.run({ ...r }) }
  /** Appends an event (`data` as JSON text) to a job's log; returns its id. */
  appendEvent(jobId: string, event: string, data: string, at: number): number { return this.q.event.get({ jobId, event, data, at })!.id }
  job(id: string): ComputeJobRow | null { return this.q.job.get({ id }) ?? null }
  /** The oldest queued job of each (operator, model), oldest first. */
  heads(): QueueHead[] { return this.q.heads.all() }
  /** Queued jobs for `model` ahead of the job (`createdAt`, `id`). */
  ahead(model: string, createdAt: number, id: string): number { return this.q.position.get({ model, createdAt, id })!.n }
  byIdempotencyKey(operatorId: string, key: string): { id: string; requestHash: string | null } | null { return this.q.byIdempotencyKey.get({ operatorId, key }) ?? null }
  /** The data (JSON text) of a job's first `event`. */
  firstEvent(jobId: string, event: string): string | null { return this.q.firstEvent.get({ jobId, event })?.data ?? null }
  /** Takes a queued job; false when it was not queued. */
  setRunning(id: string, now: number): boolean { return changes(this.q.setRunning.run({ id, now })) > 0 }
  setQueued(id: string): void { this.q.setQueued.run({ id }) }
  /** Records a job's outcome (`result` as JSON text). */
  finish(id: string, status: 'completed' | 'failed', result: string | null, errorCode: string | null, errorMessage: string | null, now: number): void {
    this.q.finish.run({ id, status, result, errorCode, errorMessage, now })
  }
  /** A job's events after `after`, oldest first (`data` as JSON text). */
  events(jobId: string, after: number): EventRow[] { return this.q.events.all({ jobId, after }) }
  /** Jobs a stopped process left running, queued again; returns how many. */
  /** Running jobs back to the queue: all of them, or those started before `before`. Returns how many. */
  recover(before?: number): number { return changes(before === undefined ? this.q.recover.run() : this.q.recoverStartedBefore.run({ before })) }
  /** Fails every queued job of the operator and returns them. */
  cancelQueued(operatorId: string, code: string, message: string, now: number): { id: string; taskId: string | null }[] {
    return this.q.cancelQueued.all({ operatorId, code, message, now })
  }
  /** Fails one job if it is still queued (not yet taken by the pump); false when it was not. */
  cancelJob(id: string, code: string, message: string, now: number): boolean {
    return changes(this.q.cancelJob.run({ id, code, message, now })) > 0
  }
}
