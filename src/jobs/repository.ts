// The `jobs` table: durable jobs and the scheduler's rows (src/jobs/runner.ts).
import { and, asc, count, eq, inArray, lt, lte, sql } from 'drizzle-orm'
import type { Db } from '../db'
import { jobs, replicas } from '../db/schema'
import { changes, prepareSql, setTo, preparedOnUse } from '../db/sql'

const p = sql.placeholder

export interface JobRow {
  id: number; kind: string; payload: string; status: string; runAt: number; attempts: number; maxAttempts: number
}

export interface NewJob { kind: string; payload: string; runAt: number; maxAttempts: number; dedupeKey: string | null; now: number }

export class JobRepository {
  private q

  constructor(db: Db) {
    // Only a pending job holds its dedupe key (the partial unique index jobs_dedupe_pending_uq).
    const onPendingTwin = sql`ON CONFLICT(${sql.identifier('dedupe_key')}) WHERE ${sql.identifier('status')} = 'pending' DO NOTHING`
    this.q = preparedOnUse({
      insert: () => prepareSql<{ id: number }>(db, sql`INSERT INTO ${jobs} (kind, payload, status, run_at, max_attempts, dedupe_key, created_at, updated_at)
        VALUES (${p('kind')}, ${p('payload')}, 'pending', ${p('runAt')}, ${p('maxAttempts')}, ${p('dedupeKey')}, ${p('now')}, ${p('now')}) ${onPendingTwin} RETURNING id`),
      // A job claimed as it is enqueued is written running at once: one INSERT instead of an INSERT
      // and the claim's UPDATE, and no entry in the pending-only dedupe index to add and remove.
      insertRunning: () => db.insert(jobs).values({
        kind: p('kind'), payload: setTo('payload'), status: 'running', runAt: p('runAt'), maxAttempts: p('maxAttempts'), dedupeKey: p('dedupeKey'),
        attempts: 1, createdAt: p('now'), updatedAt: p('now'), owner: p('owner'),
      }).returning({ id: jobs.id }).prepare(),
      // A pending job of the key, or (PostgreSQL mode, at start) one a live replica runs: a resumed task is not run twice.
      activeTwin: () => db.select({ x: sql<number>`1` }).from(jobs).where(and(eq(jobs.dedupeKey, p('dedupeKey')), inArray(jobs.status, ['pending', 'running']))).limit(1).prepare(),
      // The retry of a job that ran without a row: pending, with its first attempt counted.
      insertRetry: () => prepareSql(db, sql`INSERT INTO ${jobs} (kind, payload, status, run_at, max_attempts, dedupe_key, attempts, last_error, created_at, updated_at)
        VALUES (${p('kind')}, ${p('payload')}, 'pending', ${p('runAt')}, ${p('maxAttempts')}, ${p('dedupeKey')}, ${p('attempts')}, ${p('lastError')}, ${p('now')}, ${p('now')}) ${onPendingTwin}`),
      pendingTwin: () => db.select({ x: sql<number>`1` }).from(jobs).where(and(eq(jobs.dedupeKey, p('dedupeKey')), eq(jobs.status, 'pending'))).prepare(),
      due: () => db.select({ id: jobs.id, kind: jobs.kind, payload: sql<string>`${jobs.payload}`, status: jobs.status, runAt: jobs.runAt, attempts: jobs.attempts, maxAttempts: jobs.maxAttempts })
        .from(jobs).where(and(eq(jobs.status, 'pending'), lte(jobs.runAt, p('now')))).orderBy(asc(jobs.runAt), asc(jobs.id)).limit(p('limit')).prepare(),
      claim: () => db.update(jobs).set({ status: 'running', attempts: sql`${jobs.attempts} + 1`, updatedAt: setTo('now'), owner: setTo('owner') })
        .where(and(eq(jobs.id, p('id')), eq(jobs.status, 'pending'))).prepare(),
      // PostgreSQL mode: due jobs claimed in one statement, rows another replica is claiming skipped (not waited for).
      claimDue: () => prepareSql<JobRow>(db, sql`UPDATE ${jobs} SET status = 'running', attempts = attempts + 1, updated_at = ${p('now')}, owner = ${p('owner')}
        WHERE id IN (SELECT id FROM ${jobs} WHERE status = 'pending' AND run_at <= ${p('now')} ORDER BY run_at, id LIMIT ${p('limit')} FOR UPDATE SKIP LOCKED)
        RETURNING id, kind, payload, status, run_at AS "runAt", attempts - 1 AS attempts, max_attempts AS "maxAttempts"`),
      // PostgreSQL mode: whether a running job is still this replica's (not claimed again after its lease ran out).
      mine: () => db.select({ x: sql<number>`1` }).from(jobs).where(and(eq(jobs.id, p('id')), eq(jobs.status, 'running'), eq(jobs.owner, p('owner')))).prepare(),
      claimed: () => db.select({ kind: jobs.kind, payload: sql<string>`${jobs.payload}` }).from(jobs).where(and(eq(jobs.id, p('id')), eq(jobs.status, 'running'))).prepare(),
      done: () => db.update(jobs).set({ status: 'done', updatedAt: setTo('now') }).where(eq(jobs.id, p('id'))).prepare(),
      retry: () => db.update(jobs).set({ status: 'pending', runAt: setTo('runAt'), lastError: setTo('lastError'), updatedAt: setTo('now') }).where(eq(jobs.id, p('id'))).prepare(),
      fail: () => db.update(jobs).set({ status: 'failed', lastError: setTo('lastError'), updatedAt: setTo('now') }).where(eq(jobs.id, p('id'))).prepare(),
      recover: () => db.update(jobs).set({
        status: sql`CASE WHEN ${jobs.attempts} >= ${jobs.maxAttempts} THEN 'failed' ELSE 'pending' END`,
        lastError: sql`CASE WHEN ${jobs.attempts} >= ${jobs.maxAttempts} THEN 'interrupted on its last attempt' ELSE ${jobs.lastError} END`,
        updatedAt: setTo('now'),
      }).where(eq(jobs.status, 'running')).prepare(),
      // PostgreSQL mode: the running jobs of replicas whose heartbeat is older than `liveSince` (or of none).
      recoverOrphans: () => db.update(jobs).set({
        status: sql`CASE WHEN ${jobs.attempts} >= ${jobs.maxAttempts} THEN 'failed' ELSE 'pending' END`,
        lastError: sql`CASE WHEN ${jobs.attempts} >= ${jobs.maxAttempts} THEN 'interrupted on its last attempt' ELSE ${jobs.lastError} END`,
        updatedAt: setTo('now'), owner: null,
      }).where(and(eq(jobs.status, 'running'), sql`(${jobs.owner} IS NULL OR ${jobs.owner} = ${p('restarted')} OR ${jobs.owner} NOT IN (SELECT ${replicas.id} FROM ${replicas} WHERE ${replicas.heartbeatAt} >= ${p('liveSince')}))`)).prepare(),
      prune: () => db.delete(jobs).where(and(inArray(jobs.status, ['done', 'failed']), lt(jobs.updatedAt, p('before')))).prepare(),
      count: () => db.select({ n: count() }).from(jobs).where(eq(jobs.status, p('status'))).prepare(),
    })
  }

  /** A new pending job; null when a pending job holds its dedupe key. */
  insert(j: NewJob): number | null { return this.q.insert.get({ ...j })?.id ?? null }
  /** A new job, claimed (running, its first attempt counted) by `owner` (PostgreSQL mode's replica; null on SQLite). */
  insertRunning(j: NewJob, owner: string | null = null): number { return this.q.insertRunning.get({ ...j, owner })!.id }
  /** Whether a job of the key is pending or running. */
  hasActive(dedupeKey: string): boolean { return this.q.activeTwin.get({ dedupeKey }) !== undefined }
  /** The row of a job that ran without one and failed: pending its retry (nothing when a pending twin holds its key). */
  insertRetry(j: NewJob & { attempts: number; lastError: string }): void { this.q.insertRetry.run({ ...j }) }
  hasPending(dedupeKey: string): boolean { return this.q.pendingTwin.get({ dedupeKey }) !== undefined }
  /** Pending jobs due at `now`, oldest due first. */
  due(now: number, limit: number): JobRow[] { return this.q.due.all({ now, limit }) }
  /** Claims a pending job; false when another runner took it. */
  claim(id: number, now: number, owner: string | null = null): boolean { return changes(this.q.claim.run({ id, now, owner })) > 0 }
  /** PostgreSQL mode: claims up to `limit` due jobs for `owner`, oldest due first, skipping rows other replicas hold. */
  claimDue(now: number, limit: number, owner: string): JobRow[] { return this.q.claimDue.all({ now, limit, owner }) }
  /** PostgreSQL mode: whether the job still runs under `owner`. */
  isMine(id: number, owner: string): boolean { return this.q.mine.get({ id, owner }) !== undefined }
  /**
   * PostgreSQL mode: running jobs of dead replicas pending again (or failed on their last attempt),
   * and of `restarted` (a replica starting again: nothing of its own runs yet). Returns how many.
   */
  recoverOrphans(now: number, liveSince: number, restarted: string | null = null): number { return changes(this.q.recoverOrphans.run({ now, liveSince, restarted })) }
  /** The kind and payload of a running job, or null. */
  claimed(id: number): { kind: string; payload: string } | null { return this.q.claimed.get({ id }) ?? null }
  done(id: number, now: number): void { this.q.done.run({ id, now }) }
  retry(id: number, runAt: number, lastError: string, now: number): void { this.q.retry.run({ id, runAt, lastError, now }) }
  fail(id: number, lastError: string, now: number): void { this.q.fail.run({ id, lastError, now }) }
  /** Rows a stopped process left running: pending again, or failed on their last attempt. Returns how many. */
  recover(now: number): number { return changes(this.q.recover.run({ now })) }
  /** Deletes finished jobs last written before `before`; returns how many. */
  prune(before: number): number { return changes(this.q.prune.run({ before })) }
  count(status: 'pending' | 'failed'): number { return this.q.count.get({ status })!.n }
}
