// Raw, prepared access to the tasks table for the pipeline's hot path. The pipeline reads and
// updates a task around ten times; drizzle's query builder cost ~0.2 ms per call there. Column
// names and JSON columns come from the drizzle table definition, so the schema stays in one place.
import type { Database, Statement } from 'bun:sqlite'
import { getTableColumns } from 'drizzle-orm'
import type { Hex } from 'viem'
import { fromRecord, uidKey, type AttestationRecord } from '../chain/attestation-record'
import { tasks } from '../db/schema'
import { decodeTimeline, encodeEvents, encodeVerification, jsonText } from './row-encoding'
import type { NewTask, TaskPatch, TaskRow } from './types'

/** The columns of a task row in memory: all but the timeline (written with the events, read on its own). */
const COLUMNS = Object.entries(getTableColumns(tasks)).filter(([key]) => key !== 'timeline').map(([key, col]) => ({ key, name: col.name, json: col.columnType.includes('Json') }))
/**
 * Fields a task row in memory carries that are not written to the tasks table: the signed receipt
 * is the block at `receiptCid` (1.7 KB a task, more than half of a finished row, written twice;
 * rows finished before still hold it in their column), the attestation is a row of `attestations`
 * (TaskRow). Reads: TaskService.detail.
 */
const NOT_WRITTEN = new Set(['receipt', 'attestation'])
const BY_KEY = new Map(COLUMNS.map((c) => [c.key, c]))
const JSON_KEYS = COLUMNS.filter((c) => c.json).map((c) => c.key)
const TASK_COLUMNS = COLUMNS.map((c) => `${c.name} AS ${c.key}`).join(', ')
export const TASK_SELECT = `SELECT ${TASK_COLUMNS} FROM tasks`

/** A timeline event as a task row stores it (tasks.timeline); its id is its position, from 1. */
export interface StoredEvent { stage: number; name: string; status: string; detail: Record<string, unknown> | null; at: number }

export function fromRow(row: Record<string, unknown>): TaskRow {
  for (const k of JSON_KEYS) if (row[k] != null) row[k] = JSON.parse(jsonText(row[k] as string | Uint8Array))
  return row as unknown as TaskRow
}

export class TaskStore {
  private byId: Statement
  private statements = new Map<string, Statement>()

  private existsStmt: Statement
  private timelineStmt: Statement
  private refusedStmt: Statement
  private deleteStmt: Statement
  private deleteEventsStmt: Statement
  private byProofStmt: Statement
  private historyStmt: Statement
  private attestationStmt: Statement
  private legacyAttestationStmt: Statement
  private countsStmt: Statement

  constructor(private db: Database) {
    this.byId = db.prepare(`${TASK_SELECT} WHERE id = ?1`)
    this.existsStmt = db.prepare('SELECT 1 AS x FROM tasks WHERE id = ?1')
    this.timelineStmt = db.prepare('SELECT timeline AS t, verification_score AS verificationScore, verification_status AS verificationStatus, ipfs_cid AS ipfsCid, attestation_uid AS attestationUid, receipt_cid AS receiptCid FROM tasks WHERE id = ?1')
    // The WHERE of tasks_refused_idx, which holds only these rows (the planner would otherwise read
    // every FAILED task from tasks_status_idx, the failures that are kept included).
    this.refusedStmt = db.prepare("SELECT id FROM tasks INDEXED BY tasks_refused_idx WHERE status = 'FAILED' AND stage <= 1 AND completed_at < ?1 ORDER BY completed_at LIMIT ?2")
    this.deleteStmt = db.prepare('DELETE FROM tasks WHERE id = ?1')
    this.deleteEventsStmt = db.prepare('DELETE FROM task_events WHERE task_id = ?1')
    this.byProofStmt = db.prepare('SELECT id FROM tasks WHERE verification_proof = ?1 LIMIT 1')
    this.historyStmt = db.prepare("SELECT id, task_type, verification_status, verification_score, completed_at FROM tasks WHERE agent_id = ?1 AND status = 'COMPLETED' ORDER BY created_at DESC LIMIT ?2")
    this.attestationStmt = db.prepare('SELECT task_id, signature, signer, chain_id AS chainId FROM task_attestations WHERE uid = ?1')
    this.legacyAttestationStmt = db.prepare('SELECT attestation, task_id FROM attestations WHERE uid = ?1')
    // From the counters the task triggers keep (migration 0006), not a scan of the tasks table.
    this.countsStmt = db.prepare('SELECT status, sum(n) AS n FROM task_counts WHERE kind = 0 GROUP BY status HAVING sum(n) > 0')
  }

  /** The id of the task whose verification proof this is (lower-case hex), or null. */
  idByVerificationProof(proof: string): string | null {
    return (this.byProofStmt.get(proof) as { id: string } | null)?.id ?? null
  }

  /** An agent's latest completed tasks, newest first, with their verification. */
  verificationHistory(agentId: string, limit: number) {
    return (this.historyStmt.all(agentId, limit) as { id: string; task_type: string; verification_status: string | null; verification_score: number | null; completed_at: number | null }[])
      .map((r) => ({ taskId: r.id, taskType: r.task_type, verificationStatus: r.verification_status, verificationScore: r.verification_score, completedAt: r.completed_at ? new Date(r.completed_at).toISOString() : null }))
  }

  /**
   * A stored EAS attestation by UID (lower-case hex) and its task, or null: rebuilt from its record
   * and its task row (src/chain/attestation-record.ts), or, made before migration 0015, as stored.
   */
  attestation(uid: string): { attestation: Record<string, any>; taskId: string } | null {
    const rec = this.attestationStmt.get(uidKey(uid as Hex)) as (AttestationRecord & { task_id: string }) | null
    if (rec) {
      const task = this.get(rec.task_id)
      return task ? { attestation: fromRecord(uid as Hex, rec, task), taskId: rec.task_id } : null
    }
    const row = this.legacyAttestationStmt.get(uid) as { attestation: string; task_id: string } | null
    return row ? { attestation: JSON.parse(row.attestation), taskId: row.task_id } : null
  }

  /** Tasks by status (the `taskgate_tasks` gauge). */
  countsByStatus(): { status: string; n: number }[] {
    return this.countsStmt.all() as { status: string; n: number }[]
  }

  exists(id: string): boolean { return this.existsStmt.get(id) !== null }

  get(id: string): TaskRow | null {
    const row = this.byId.get(id) as Record<string, unknown> | null
    return row ? fromRow(row) : null
  }

  /** Full rows matching a WHERE clause built by the caller from fixed column names (values are bound). */
  select(where: string, args: (string | number)[], orderLimit: string): TaskRow[] {
    return (this.db.query(`${TASK_SELECT} WHERE ${where} ${orderLimit}`).all(...args) as Record<string, unknown>[]).map(fromRow)
  }

  /**
   * Inserts a task (columns not given take their defaults) with its first timeline events and
   * returns the stored row (RETURNING: no second read).
   */
  insert(row: NewTask, events: StoredEvent[] = []): TaskRow {
    const keys = Object.keys(row).filter((k) => (row as Record<string, unknown>)[k] !== undefined && !NOT_WRITTEN.has(k)).sort()
    const sig = `insert:${keys.join(',')}:${events.length > 0}`
    let stmt = this.statements.get(sig)
    if (!stmt) {
      const names = keys.map((k) => BY_KEY.get(k)!.name)
      if (events.length > 0) names.push('timeline')
      stmt = this.db.prepare(`INSERT INTO tasks (${names.join(', ')}) VALUES (${names.map((_, i) => `?${i + 1}`).join(', ')}) RETURNING ${TASK_COLUMNS}`)
      this.statements.set(sig, stmt)
    }
    const values = this.values(row, keys)
    if (events.length > 0) values.push(`[${encodeEvents(events, row)}]`)
    return fromRow(stmt.get(...values) as Record<string, unknown>)
  }

  private values(row: Record<string, unknown>, keys: string[]): (string | number | Uint8Array | null)[] {
    return keys.map((k) => {
      const v = row[k]
      if (k === 'verification' && v != null) return encodeVerification(JSON.stringify(v)) // src/tasks/row-encoding.ts
      return BY_KEY.get(k)!.json && v !== null ? JSON.stringify(v) : (v as string | number | null)
    })
  }

  /**
   * Applies a patch and appends timeline events, in one prepared UPDATE per distinct set of columns
   * (with or without events). Returns the timeline's length after it (0 without events).
   */
  update(id: string, patch: TaskPatch, events: StoredEvent[] = []): number {
    const keys = Object.keys(patch).filter((k) => (patch as Record<string, unknown>)[k] !== undefined && !NOT_WRITTEN.has(k)).sort()
    if (keys.length === 0 && events.length === 0) return 0
    const sig = `${keys.join(',')}:${events.length > 0}`
    let stmt = this.statements.get(sig)
    if (!stmt) {
      const sets = keys.map((k, i) => `${BY_KEY.get(k)!.name} = ?${i + 2}`)
      if (events.length > 0) {
        // The events, as JSON texts joined by commas, go before the array's closing bracket: the
        // column only ever holds arrays this class wrote (minified, ending in ']'), so appending
        // needs no parse and re-serialisation of the whole timeline (json_insert took twice as long).
        const p = `?${keys.length + 2}`
        sets.push(`timeline = CASE WHEN timeline IS NULL OR timeline = '[]' THEN '[' || ${p} || ']' ELSE substr(timeline, 1, length(timeline) - 1) || ',' || ${p} || ']' END`)
      }
      stmt = this.db.prepare(`UPDATE tasks SET ${sets.join(', ')} WHERE id = ?1${events.length > 0 ? ' RETURNING json_array_length(timeline) AS n' : ''}`)
      this.statements.set(sig, stmt)
    }
    const args = [id, ...this.values(patch as Record<string, unknown>, keys)]
    if (events.length === 0) { stmt.run(...args); return 0 }
    args.push(encodeEvents(events, patch))
    return (stmt.get(...args) as { n: number } | null)?.n ?? 0
  }

  /**
   * Up to `limit` tasks that failed before their debit (status FAILED at stage 0 or 1: refused, or
   * held and then not run) and did so before `before`, oldest first. Such a task has no ledger
   * entry, no result, no receipt and no link in its agent's chain.
   */
  refusedBefore(before: number, limit: number): string[] {
    return (this.refusedStmt.all(before, limit) as { id: string }[]).map((r) => r.id)
  }

  /**
   * Deletes a task with the events it kept in task_events (before migration 0013); the triggers on
   * tasks take it out of the counters and rollups. Must run inside the caller's transaction.
   */
  delete(id: string): void {
    this.deleteEventsStmt.run(id)
    this.deleteStmt.run(id)
  }

  /** The stored timeline of a task: null when it has none in its row (finished before migration 0013). */
  timeline(id: string): StoredEvent[] | null {
    const row = this.timelineStmt.get(id) as ({ t: string | null } & Parameters<typeof decodeTimeline>[1]) | null
    return row?.t ? decodeTimeline(row.t, row) : null
  }
}
