// The task lists (public, operator, agent feed): exact `total` from the trigger-kept counters
// (task_counts) and the page from one index range, newest first. The index is chosen from the
// counters: the one whose equality prefix leaves the fewest rows to step over for the page; a page
// past the middle is read from the other end (oldest first, then reversed), so the last page costs
// what the first does. A deep page of a list the daily rollups count exactly (no agent or task type
// filter, no system tasks in it) seeks to its UTC day first (keyset on created_at) and steps over
// at most that day's tasks. Pages that would still step over more than MAX_SCAN index entries are
// refused (PAGE_TOO_DEEP): narrow the filters instead. Design and numbers: docs/performance.md.
// Data layer (with repository.ts): raw statements, as each page's is built from its plan (the index
// named by INDEXED BY, the seek, the direction) and prepared once per shape. The caller reads the
// count and the page in one snapshot (TaskService.list).
import type { Database, Statement } from 'bun:sqlite'
import { badRequest } from '../http/errors'
import { TASK_SELECT, taskFromRow } from './repository'
import type { TaskRow } from './types'

export interface ListFilter { status?: string; taskType?: string; operatorId?: string; agentId?: string; includeSystem?: boolean }

/** How many index entries a page may step over (after the day seek, from the nearer end). */
export const MAX_SCAN = 100_000
/** Pages further than this from the nearer end try the day seek first. */
export const SEEK_AFTER = 2_000

const DAY_MS = 86_400_000
/** task_daily's column for each status (the rollups count non-system tasks per UTC creation day). */
const DAILY_COLUMN: Record<string, string> = { COMPLETED: 'completed', FAILED: 'failed', PROCESSING: 'processing', QUEUED: 'queued', PENDING_APPROVAL: 'pending_approval' }

type Col = 'operator_id' | 'agent_id' | 'status' | 'task_type'
/**
 * The list indexes of `tasks` (src/db/schema.ts) and their equality columns; each goes on with
 * (created_at, id) and ends with task_type unless led by it. Only the three led by the status hold
 * it, so a list filtered by status reads one of those (bestIndex).
 */
const INDEXES: { name: string; eq: Col[] }[] = [
  { name: 'tasks_created_idx', eq: [] },
  { name: 'tasks_operator_idx', eq: ['operator_id'] },
  { name: 'tasks_agent_idx', eq: ['agent_id'] },
  { name: 'tasks_status_idx', eq: ['status'] },
  { name: 'tasks_type_idx', eq: ['task_type'] },
  { name: 'tasks_operator_status_idx', eq: ['operator_id', 'status'] },
  { name: 'tasks_agent_status_idx', eq: ['agent_id', 'status'] },
]

export class TaskLists {
  private statements = new Map<string, Statement>()

  constructor(private db: Database, private limits = { maxScan: MAX_SCAN, seekAfter: SEEK_AFTER }) {}

  /** One page and the exact total (read them in one snapshot: the caller's). `page` is 1-based. */
  page(f: ListFilter, page: number, limit: number): { rows: TaskRow[]; total: number } {
    const total = this.count(f)
    const offset = (page - 1) * limit
    if (offset >= total) return { rows: [], total }
    // Read from the nearer end: newest first, or oldest first and reversed.
    const fromEnd = total - offset - limit
    const reverse = fromEnd < offset
    let skip = reverse ? Math.max(0, fromEnd) : offset
    const take = reverse ? Math.min(limit, total - offset) : limit
    const seek = skip > this.limits.seekAfter ? this.daySeek(f, skip, reverse) : null
    if (seek) skip = seek.skip
    if (skip > this.limits.maxScan) {
      throw badRequest('PAGE_TOO_DEEP', `page ${page} lies more than ${this.limits.maxScan} tasks from both ends of this list; narrow it with filters (status, taskType, operatorId, agentId)`, { maxScan: this.limits.maxScan, total })
    }
    const idx = seek ? seek.index : this.bestIndex(f, skip + take)
    const where: string[] = []
    const args: (string | number)[] = []
    const add = (cond: string, v: string | number) => { args.push(v); where.push(cond.replace('?', `?${args.length}`)) }
    if (f.operatorId !== undefined) add('operator_id = ?', f.operatorId)
    if (f.agentId !== undefined) add('agent_id = ?', f.agentId)
    if (f.status !== undefined) add('status = ?', f.status)
    if (f.taskType !== undefined) add('task_type = ?', f.taskType)
    else if (!f.includeSystem) where.push("task_type != 'system'")
    if (seek) add(reverse ? 'created_at >= ?' : 'created_at < ?', seek.bound)
    args.push(take, skip)
    const dir = reverse ? 'ASC' : 'DESC'
    const sql = `${TASK_SELECT} WHERE rowid IN (SELECT rowid FROM tasks INDEXED BY ${idx} ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY created_at ${dir}, id ${dir} LIMIT ?${args.length - 1} OFFSET ?${args.length}) ORDER BY created_at DESC, id DESC`
    const rows = (this.stmt(sql).all(...args) as Record<string, unknown>[]).map(taskFromRow)
    return { rows, total }
  }

  /**
   * Keyset behind the page number: the daily rollups count this list's tasks per UTC creation day
   * exactly when it has no agent or task type filter and holds no system task. Walking the days
   * from the read end finds the day holding row `skip`; the page then starts from that day's
   * boundary (created_at < end of day, or ≥ its start when reading oldest first) and steps over
   * only the rest within the day. Null when the list is not one of those.
   */
  private daySeek(f: ListFilter, skip: number, reverse: boolean): { skip: number; bound: number; index: string } | null {
    if (f.agentId !== undefined || f.taskType !== undefined) return null
    if (f.includeSystem && this.count({ ...f, taskType: 'system' }) > 0) return null
    const col = f.status === undefined ? 'total' : DAILY_COLUMN[f.status]
    if (!col) return null
    const days = this.stmt(`SELECT day, ${col} AS n FROM task_daily WHERE operator_id = ?1 AND day >= 0 AND ${col} > 0 ORDER BY day ${reverse ? 'ASC' : 'DESC'}`)
      .all(f.operatorId ?? '') as { day: number; n: number }[]
    const index = f.operatorId !== undefined ? (f.status !== undefined ? 'tasks_operator_status_idx' : 'tasks_operator_idx') : f.status !== undefined ? 'tasks_status_idx' : 'tasks_created_idx'
    let before = 0
    for (const d of days) {
      if (before + d.n > skip) return { skip: skip - before, bound: (reverse ? d.day : d.day + 1) * DAY_MS, index }
      before += d.n
    }
    return null
  }

  /** Exact number of tasks matching the filter, from the counters. */
  count(f: ListFilter): number {
    const where = ['kind = ?1', 'agent_id = ?2', 'operator_id = ?3']
    const args: (string | number)[] = f.agentId !== undefined ? [2, f.agentId, f.operatorId ?? ''] : f.operatorId !== undefined ? [1, '', f.operatorId] : [0, '', '']
    // an agent's tasks across operators (the agent id alone): drop the operator equality
    if (f.agentId !== undefined && f.operatorId === undefined) { where.pop(); args.pop() }
    if (f.taskType !== undefined) { args.push(f.taskType); where.push(`task_type = ?${args.length}`) }
    else if (!f.includeSystem) where.push("task_type != 'system'")
    if (f.status !== undefined) { args.push(f.status); where.push(`status = ?${args.length}`) }
    const sql = `SELECT coalesce(sum(n), 0) AS n FROM task_counts WHERE ${where.join(' AND ')}`
    return (this.stmt(sql).get(...args) as { n: number }).n
  }

  /**
   * The index that steps over the fewest entries to find `need` matching rows: an index whose
   * equality prefix holds P tasks, of which the filter keeps T, needs about need·P/T steps (never
   * more than P). P and T come from the counters (system tasks included in P: they sit in the index).
   */
  private bestIndex(f: ListFilter, need: number): string {
    const filterCols = new Set<Col>()
    if (f.operatorId !== undefined) filterCols.add('operator_id')
    if (f.agentId !== undefined) filterCols.add('agent_id')
    if (f.status !== undefined) filterCols.add('status')
    if (f.taskType !== undefined) filterCols.add('task_type')
    const total = Math.max(1, this.count(f))
    let best = { name: 'tasks_created_idx', cost: Infinity }
    for (const ix of INDEXES) {
      if (!ix.eq.every((c) => filterCols.has(c))) continue
      if (filterCols.has('status') && !ix.eq.includes('status')) continue // the others would read every row to check it
      const prefix = this.count({
        operatorId: ix.eq.includes('operator_id') ? f.operatorId : undefined, agentId: ix.eq.includes('agent_id') ? f.agentId : undefined,
        status: ix.eq.includes('status') ? f.status : undefined, taskType: ix.eq.includes('task_type') ? f.taskType : undefined, includeSystem: true,
      })
      const cost = Math.min(prefix, (need * prefix) / total)
      if (cost < best.cost) best = { name: ix.name, cost }
    }
    return best.name
  }

  private stmt(sql: string): Statement {
    let s = this.statements.get(sql)
    if (!s) { s = this.db.prepare(sql); this.statements.set(sql, s) }
    return s
  }
}
