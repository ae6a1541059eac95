// The task lists (public, operator, agent feed): exact `total` from the trigger-kept counters
// (task_counts) and the page from one index range, newest first. The index is chosen from the
// counters: the one whose equality prefix leaves the fewest rows to step over for the page; a page
// past the middle is read from the other end (oldest first, then reversed), so the last page costs
// what the first does. Pages more than MAX_SCAN rows from both ends are refused (PAGE_TOO_DEEP):
// narrow the filters instead. Design and numbers: docs/performance.md, "Lists".
import type { Database, Statement } from 'bun:sqlite'
import { badRequest } from '../http/errors'
import { TASK_SELECT, fromRow } from './store'
import type { TaskRow } from '../pipeline/types'

export interface ListFilter { status?: string; taskType?: string; operatorId?: string; agentId?: string; includeSystem?: boolean }

/** How many index entries a page may step over (offset from the nearer end). */
export const MAX_SCAN = 100_000

type Col = 'operator_id' | 'agent_id' | 'status' | 'task_type'
/** The list indexes of `tasks` (src/db/schema.ts) and their equality columns; each ends with (created_at, id). */
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

  constructor(private db: Database) {}

  /** One page and the exact total. `page` is 1-based. */
  page(f: ListFilter, page: number, limit: number): { rows: TaskRow[]; total: number } {
    return this.db.transaction(() => {
      const total = this.count(f)
      const offset = (page - 1) * limit
      if (offset >= total) return { rows: [], total }
      // Read from the nearer end: newest first, or oldest first and reversed.
      const fromEnd = total - offset - limit
      const reverse = fromEnd < offset
      const skip = reverse ? Math.max(0, fromEnd) : offset
      const take = reverse ? Math.min(limit, total - offset) : limit
      if (skip > MAX_SCAN) {
        throw badRequest('PAGE_TOO_DEEP', `page ${page} lies more than ${MAX_SCAN} tasks from both ends of this list; narrow it with filters (status, taskType, operatorId, agentId)`, { maxScan: MAX_SCAN, total })
      }
      const idx = this.bestIndex(f, skip + take)
      const where: string[] = []
      const args: (string | number)[] = []
      const add = (cond: string, v: string | number) => { args.push(v); where.push(cond.replace('?', `?${args.length}`)) }
      if (f.operatorId !== undefined) add('operator_id = ?', f.operatorId)
      if (f.agentId !== undefined) add('agent_id = ?', f.agentId)
      if (f.status !== undefined) add('status = ?', f.status)
      if (f.taskType !== undefined) add('task_type = ?', f.taskType)
      else if (!f.includeSystem) where.push("task_type != 'system'")
      args.push(take, skip)
      const dir = reverse ? 'ASC' : 'DESC'
      const sql = `${TASK_SELECT} WHERE rowid IN (SELECT rowid FROM tasks INDEXED BY ${idx} ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
        ORDER BY created_at ${dir}, id ${dir} LIMIT ?${args.length - 1} OFFSET ?${args.length}) ORDER BY created_at DESC, id DESC`
      const rows = (this.stmt(sql).all(...args) as Record<string, unknown>[]).map(fromRow)
      return { rows, total }
    })()
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
