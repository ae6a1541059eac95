// The tasks domain's data layer (docs/architecture.md, "Data layer"): this class, `list.ts` (the
// list pages, planned from the counters) and `counters.ts` (rebuilding and checking the counters
// the triggers keep). Nothing else of the tasks or the pipeline sees SQL. Queries are drizzle's,
// prepared once; a patch's UPDATE and a draft's INSERT are prepared once per set of columns.
// SQLite's own, for a second dialect to replace: the timeline append (APPEND), INDEXED BY
// (refusedBefore, list.ts), the counters' rebuild (counters.ts).
import { and, desc, eq, getTableColumns, inArray, isNull, lt, sql } from 'drizzle-orm'
import type { Db } from '../db'
import { isPostgres } from '../db/dialect'
import { agents, attestations, computeJobs, operators, taskAttestations, taskCounts, taskEvents, tasks } from '../db/schema'
import type { Hex } from 'viem'
import type { NewTask, StoredEvent, TaskPatch, TaskRow } from './types'
import { decodeTimeline, encodeEvents } from './row-encoding'
import { fromRecord, uidKey, type AttestationRecord } from '../chain/attestation-record'
import { preparedOnUse } from '../db/sql'

export type { StoredEvent } from './types'

/** A legacy timeline event (task_events, tasks finished before migration 0013) with its id there. */
export type LegacyEvent = StoredEvent & { id: number }

/** The columns of a task row in memory: all but the timeline (written with the events, read on its own). */
const { timeline: _timeline, ...columns } = getTableColumns(tasks)
export const TASK_COLUMNS = columns
const JSON_KEYS = new Set(Object.entries(TASK_COLUMNS).filter(([, c]) => c.columnType === 'SQLiteTextJson').map(([k]) => k))
/**
 * Fields a task row in memory carries that are not written to the tasks table: the signed receipt
 * is the block at `receiptCid` (1.7 KB a task, more than half of a finished row, written twice;
 * rows finished before still hold it in their column), the attestation is a row of `attestations`
 * (TaskRow). Reads: TaskService.detail.
 */
const NOT_WRITTEN = new Set(['receipt', 'attestation'])

const p = sql.placeholder
/**
 * A column's value in a cached statement. JSON columns take their text as encoded here (encode):
 * drizzle's own encoder would store a null as the text 'null'.
 */
const slot = (k: string) => (JSON_KEYS.has(k) ? sql`${p(k)}` : p(k))
const encode = (k: string, v: unknown) => (JSON_KEYS.has(k) && v !== null ? JSON.stringify(v) : v)

/** The keys of a draft or patch that are written, in a fixed order (one cached statement per set). */
const written = (row: object) => Object.keys(row).filter((k) => (row as Record<string, unknown>)[k] !== undefined && !NOT_WRITTEN.has(k)).sort()

/**
 * Appends events to the timeline: their JSON texts, joined by commas, go before the array's closing
 * bracket. The column only ever holds arrays this class wrote (minified, ending in ']'), so appending
 * needs no parse and re-serialisation of the whole timeline (json_insert took twice as long).
 */
const APPEND = sql`CASE WHEN ${tasks.timeline} IS NULL OR ${tasks.timeline} = '[]' THEN '[' || ${p('_events')} || ']' ELSE substr(${tasks.timeline}, 1, length(${tasks.timeline}) - 1) || ',' || ${p('_events')} || ']' END`

/** A cached statement of insert() or update(). */
interface Prepared { get(v: Record<string, unknown>): unknown; run(v: Record<string, unknown>): unknown }

export class TaskRepository {
  private q
  private statements = new Map<string, Prepared>()

  constructor(private db: Db) {
    const id = eq(tasks.id, p('id'))
    this.q = preparedOnUse({
      byId: () => db.select(TASK_COLUMNS).from(tasks).where(id).prepare(),
      exists: () => db.select({ x: sql<number>`1` }).from(tasks).where(id).prepare(),
      timeline: () => db.select({
        t: tasks.timeline, verificationScore: tasks.verificationScore, verificationStatus: tasks.verificationStatus, ipfsCid: tasks.ipfsCid, attestationUid: tasks.attestationUid, receiptCid: tasks.receiptCid,
      }).from(tasks).where(id).prepare(),
      legacyEvents: () => db.select({ id: taskEvents.id, stage: taskEvents.stage, name: taskEvents.name, status: taskEvents.status, detail: taskEvents.detail, at: taskEvents.at })
        .from(taskEvents).where(eq(taskEvents.taskId, p('id'))).orderBy(taskEvents.id).prepare(),
      byIdempotencyKey: () => db.select({ id: tasks.id, requestHash: tasks.requestHash }).from(tasks)
        .where(and(eq(tasks.operatorId, p('operatorId')), eq(tasks.idempotencyKey, p('key')))).prepare(),
      // The WHERE of tasks_refused_idx, which holds only these rows (the planner would otherwise read
      // every FAILED task from tasks_status_idx, the failures that are kept included): literals, not
      // parameters, so the planner sees that the partial index applies.
      refused: () => db.select({ id: sql<string>`${tasks.id}` }).from(isPostgres(db) ? tasks : sql`${tasks} INDEXED BY tasks_refused_idx`)
        .where(and(sql`${tasks.status} = 'FAILED' AND ${tasks.stage} <= 1`, lt(tasks.completedAt, p('before')))).orderBy(tasks.completedAt).limit(p('limit')).prepare(),
      delete: () => db.delete(tasks).where(id).prepare(),
      deleteEvents: () => db.delete(taskEvents).where(eq(taskEvents.taskId, p('id'))).prepare(),
      byProof: () => db.select({ id: tasks.id }).from(tasks).where(eq(tasks.verificationProof, p('proof'))).limit(1).prepare(),
      history: () => db.select({ id: tasks.id, taskType: tasks.taskType, verificationStatus: tasks.verificationStatus, verificationScore: tasks.verificationScore, completedAt: tasks.completedAt })
        .from(tasks).where(and(eq(tasks.agentId, p('agentId')), sql`${tasks.status} = 'COMPLETED'`)).orderBy(desc(tasks.createdAt)).limit(p('limit')).prepare(),
      // From the counters the task triggers keep (migration 0006), not a scan of the tasks table.
      counts: () => db.select({ status: taskCounts.status, n: sql<number>`sum(${taskCounts.n})` }).from(taskCounts).where(eq(taskCounts.kind, 0))
        .groupBy(taskCounts.status).having(sql`sum(${taskCounts.n}) > 0`).prepare(),
      processing: () => db.select({ id: tasks.id }).from(tasks).where(sql`${tasks.status} = 'PROCESSING'`).prepare(),
      parked: () => db.select({ id: tasks.id }).from(tasks).where(and(eq(tasks.operatorId, p('operatorId')), inArray(tasks.status, ['PENDING_APPROVAL', 'QUEUED']))).prepare(),
      finishedCompute: () => db.select({ taskId: tasks.id, jobId: computeJobs.id }).from(tasks).innerJoin(computeJobs, eq(computeJobs.id, tasks.computeJobId))
        .where(and(sql`${tasks.status} = 'QUEUED'`, inArray(computeJobs.status, ['completed', 'failed']))).prepare(),
      operatorPage: () => db.select(TASK_COLUMNS).from(tasks)
        .where(and(eq(tasks.operatorId, p('operatorId')), sql`(${tasks.createdAt} > ${p('createdAt')} OR (${tasks.createdAt} = ${p('createdAt')} AND ${tasks.id} > ${p('id')}))`))
        .orderBy(tasks.createdAt, tasks.id).limit(p('limit')).prepare(),
      agentFailed: () => db.update(agents).set({ failedTasks: sql`${agents.failedTasks} + 1`, lastActiveAt: sql`${p('at')}`, metrics: sql`coalesce(${p('metrics')}, ${agents.metrics})` })
        .where(eq(agents.id, p('agentId'))).prepare(),
      agentCompleted: () => db.update(agents).set({
        stateRoot: sql`${p('stateRoot')}`, metrics: sql`${p('metrics')}`, totalTasks: sql`${agents.totalTasks} + 1`,
        verifiedTasks: sql`${agents.verifiedTasks} + ${p('verified')}`, lastActiveAt: sql`${p('at')}`,
      }).where(eq(agents.id, p('agentId'))).prepare(),
      insertAttestation: () => db.insert(taskAttestations).values({ uid: p('uid'), taskId: p('taskId'), signature: p('signature'), signer: p('signer'), chainId: p('chainId') })
        .onConflictDoNothing().prepare(),
      attestation: () => db.select({ taskId: taskAttestations.taskId, signature: taskAttestations.signature, signer: taskAttestations.signer, chainId: taskAttestations.chainId })
        .from(taskAttestations).where(eq(taskAttestations.uid, p('uid'))).prepare(),
      legacyAttestation: () => db.select({ attestation: attestations.attestation, taskId: attestations.taskId }).from(attestations).where(eq(attestations.uid, p('uid'))).prepare(),
      firstTask: () => db.update(operators).set({ firstTaskAt: sql`${p('at')}` }).where(and(eq(operators.id, p('operatorId')), isNull(operators.firstTaskAt))).prepare(),
    })
  }

  exists(id: string): boolean { return this.q.exists.get({ id }) !== undefined }

  get(id: string): TaskRow | null { return (this.q.byId.get({ id }) as TaskRow | undefined) ?? null }

  /**
   * Inserts a task (columns not given take their defaults) with its first timeline events and
   * returns the stored row (RETURNING: no second read).
   */
  insert(row: NewTask, events: StoredEvent[] = []): TaskRow {
    const keys = written(row)
    const withEvents = events.length > 0
    const stmt = this.cached(`insert:${keys.join(',')}:${withEvents}`, () => {
      const values: Record<string, unknown> = Object.fromEntries(keys.map((k) => [k, slot(k)]))
      if (withEvents) values.timeline = p('_timeline')
      return this.db.insert(tasks).values(values as typeof tasks.$inferInsert).returning(TASK_COLUMNS).prepare()
    })
    const values = this.values(row, keys)
    if (withEvents) values._timeline = `[${encodeEvents(events, row)}]` // src/tasks/row-encoding.ts
    return stmt.get(values) as TaskRow
  }

  /**
   * Applies a patch and appends timeline events, in one prepared UPDATE per distinct set of columns
   * (with or without events). Returns the timeline's length after it (0 without events).
   */
  update(id: string, patch: TaskPatch, events: StoredEvent[] = []): number {
    const keys = written(patch)
    const withEvents = events.length > 0
    if (keys.length === 0 && !withEvents) return 0
    const stmt = this.cached(`update:${keys.join(',')}:${withEvents}`, () => {
      const set: Record<string, unknown> = Object.fromEntries(keys.map((k) => [k, slot(k)]))
      if (withEvents) set.timeline = APPEND
      const q = this.db.update(tasks).set(set as Partial<typeof tasks.$inferInsert>).where(eq(tasks.id, p('_id')))
      return (withEvents ? q.returning({ n: isPostgres(this.db) ? sql<number>`json_array_length(CAST(${tasks.timeline} AS json))` : sql<number>`json_array_length(${tasks.timeline})` }) : q).prepare()
    })
    const values = this.values(patch as Record<string, unknown>, keys)
    values._id = id
    if (!withEvents) { stmt.run(values); return 0 }
    values._events = encodeEvents(events, patch)
    return (stmt.get(values) as { n: number } | undefined)?.n ?? 0
  }

  /** The stored timeline of a task: null when it has none in its row (finished before migration 0013). */
  timeline(id: string): StoredEvent[] | null {
    const row = this.q.timeline.get({ id })
    return row?.t ? decodeTimeline(row.t, row) : null
  }


  /** The events a task that finished before migration 0013 kept in task_events, in order. */
  legacyEvents(taskId: string): LegacyEvent[] {
    return this.q.legacyEvents.all({ id: taskId })
  }

  /** The operator's task with this Idempotency-Key, and the hash of the request it was made with. */
  byIdempotencyKey(operatorId: string, key: string): { id: string; requestHash: string | null } | null {
    return this.q.byIdempotencyKey.get({ operatorId, key }) ?? null
  }

  /** The id of the task whose verification proof this is (lower-case hex), or null. */
  idByVerificationProof(proof: string): string | null {
    return this.q.byProof.get({ proof })?.id ?? null
  }

  /** An agent's latest completed tasks, newest first, with their verification. */
  verificationHistory(agentId: string, limit: number) {
    return this.q.history.all({ agentId, limit }).map((r) => ({
      taskId: r.id, taskType: r.taskType, verificationStatus: r.verificationStatus, verificationScore: r.verificationScore,
      completedAt: r.completedAt ? new Date(r.completedAt).toISOString() : null,
    }))
  }

  /** Tasks by status (the `taskgate_tasks` gauge). */
  countsByStatus(): { status: string; n: number }[] { return this.q.counts.all() }

  /** The operator's tasks after `after` in (createdAt, id) order, up to `limit` (the data export's pages). */
  operatorTasksAfter(operatorId: string, after: { createdAt: number; id: string }, limit: number): TaskRow[] {
    return this.q.operatorPage.all({ operatorId, createdAt: after.createdAt, id: after.id, limit }) as TaskRow[]
  }

  /** Ids of the tasks in PROCESSING (a stopped process left them running). */
  processingIds(): string[] { return this.q.processing.all().map((r) => r.id) }

  /** Ids of the operator's held (PENDING_APPROVAL) and QUEUED tasks. */
  parkedIds(operatorId: string): string[] { return this.q.parked.all({ operatorId }).map((r) => r.id) }

  /** Tasks still QUEUED although their overflow job finished, with that job. */
  queuedWithFinishedCompute(): { taskId: string; jobId: string }[] { return this.q.finishedCompute.all() }

  /**
   * Up to `limit` tasks that failed before their debit (status FAILED at stage 0 or 1: refused, or
   * held and then not run) and did so before `before`, oldest first. Such a task has no ledger
   * entry, no result, no receipt and no link in its agent's chain.
   */
  refusedBefore(before: number, limit: number): string[] {
    return this.q.refused.all({ before, limit }).map((r) => r.id)
  }

  /**
   * Deletes a task with the events it kept in task_events (before migration 0013); the triggers on
   * tasks take it out of the counters and rollups. Runs in the caller's transaction.
   */
  delete(id: string): void {
    this.q.deleteEvents.run({ id })
    this.q.delete.run({ id })
  }

  /** A failed task the agent ran: its failure count, last activity and (when given, as JSON) its metrics. */
  recordAgentFailure(agentId: string, at: number, metrics: string | null): void {
    this.q.agentFailed.run({ agentId, at, metrics })
  }

  /** A completed task of the agent (stage 6): the new state root, its metrics (as JSON) and counters. */
  recordAgentCompletion(agentId: string, c: { stateRoot: string; metrics: string; verified: 0 | 1; at: number }): void {
    this.q.agentCompleted.run({ agentId, ...c })
  }

  /** The operator's first completed task, once: a time already set stays. */
  setFirstTaskAt(operatorId: string, at: number): void { this.q.firstTask.run({ operatorId, at }) }

  /** Stores a task's EAS attestation as its record (src/chain/attestation-record.ts) unless its UID is stored. */
  insertAttestation(uid: Hex, taskId: string, record: AttestationRecord): void {
    this.q.insertAttestation.run({ uid: uidKey(uid), taskId, ...record })
  }

  /**
   * A stored EAS attestation by UID (lower-case hex) and its task, or null: rebuilt from its record
   * and its task row (src/chain/attestation-record.ts), or, made before migration 0015, as stored.
   */
  attestation(uid: string): { attestation: Record<string, any>; taskId: string } | null {
    const rec = this.q.attestation.get({ uid: uidKey(uid as Hex) })
    if (rec) {
      const task = this.get(rec.taskId)
      return task ? { attestation: fromRecord(uid as Hex, rec, task), taskId: rec.taskId } : null
    }
    const row = this.q.legacyAttestation.get({ uid })
    return row ? { attestation: row.attestation as Record<string, any>, taskId: row.taskId } : null
  }

  private values(row: Record<string, unknown>, keys: string[]): Record<string, unknown> {
    const out: Record<string, unknown> = {}
    for (const k of keys) out[k] = encode(k, row[k])
    return out
  }

  private cached(sig: string, make: () => Prepared): Prepared {
    let s = this.statements.get(sig)
    if (!s) this.statements.set(sig, (s = make()))
    return s
  }
}
