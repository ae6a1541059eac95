// Raw, prepared access to the tasks table for the pipeline's hot path. The pipeline reads and
// updates a task around ten times; drizzle's query builder cost ~0.2 ms per call there. Column
// names and JSON columns come from the drizzle table definition, so the schema stays in one place.
import type { Database, Statement } from 'bun:sqlite'
import { getTableColumns } from 'drizzle-orm'
import { tasks } from '../db/schema'
import type { NewTask, TaskPatch, TaskRow } from '../pipeline/types'

const COLUMNS = Object.entries(getTableColumns(tasks)).map(([key, col]) => ({ key, name: col.name, json: col.columnType.includes('Json') }))
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

export function fromRow(row: Record<string, unknown>): TaskRow {
  for (const k of JSON_KEYS) if (row[k] != null) row[k] = JSON.parse(row[k] as string)
  return row as unknown as TaskRow
}

export class TaskStore {
  private byId: Statement
  private statements = new Map<string, Statement>()

  private existsStmt: Statement

  constructor(private db: Database) {
    this.byId = db.prepare(`${TASK_SELECT} WHERE id = ?1`)
    this.existsStmt = db.prepare('SELECT 1 AS x FROM tasks WHERE id = ?1')
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

  /** Inserts a task (columns not given take their defaults) and returns the stored row (RETURNING: no second read). */
  insert(row: NewTask): TaskRow {
    const keys = Object.keys(row).filter((k) => (row as Record<string, unknown>)[k] !== undefined && !NOT_WRITTEN.has(k)).sort()
    const sig = `insert:${keys.join(',')}`
    let stmt = this.statements.get(sig)
    if (!stmt) {
      stmt = this.db.prepare(`INSERT INTO tasks (${keys.map((k) => BY_KEY.get(k)!.name).join(', ')}) VALUES (${keys.map((_, i) => `?${i + 1}`).join(', ')}) RETURNING ${TASK_COLUMNS}`)
      this.statements.set(sig, stmt)
    }
    return fromRow(stmt.get(...this.values(row, keys)) as Record<string, unknown>)
  }

  private values(row: Record<string, unknown>, keys: string[]): (string | number | null)[] {
    return keys.map((k) => {
      const v = row[k]
      return BY_KEY.get(k)!.json && v !== null ? JSON.stringify(v) : (v as string | number | null)
    })
  }

  /** Applies a patch with one prepared UPDATE per distinct set of columns. */
  update(id: string, patch: TaskPatch): void {
    const keys = Object.keys(patch).filter((k) => (patch as Record<string, unknown>)[k] !== undefined && !NOT_WRITTEN.has(k)).sort()
    if (keys.length === 0) return
    const sig = keys.join(',')
    let stmt = this.statements.get(sig)
    if (!stmt) {
      stmt = this.db.prepare(`UPDATE tasks SET ${keys.map((k, i) => `${BY_KEY.get(k)!.name} = ?${i + 2}`).join(', ')} WHERE id = ?1`)
      this.statements.set(sig, stmt)
    }
    stmt.run(id, ...this.values(patch as Record<string, unknown>, keys))
  }
}
