// The task lists (public, operator, agent feed): exact `total` from the trigger-kept counters
// (task_counts) and the page from one index range, newest first. The index is chosen from the
// counters: the one whose equality prefix leaves the fewest rows to step over for the page; a page
// past the middle is read from the other end (oldest first, then reversed), so the last page costs
// what the first does. A deep page of a list the daily rollups count exactly (no agent or task type
// filter, no system tasks in it) seeks to its UTC day first (keyset on created_at) and steps over
// at most that day's tasks. Pages that would still step over more than MAX_SCAN index entries are
// refused (PAGE_TOO_DEEP): narrow the filters instead. Design and numbers: docs/performance.md.
// Data layer (with repository.ts): drizzle statements, each prepared once per shape of filter and
// plan (the index named by INDEXED BY, SQLite's own, the seek, the direction). The caller reads the
// count and the page in one snapshot (TaskService.list).
import { and, asc, desc, eq, gte, inArray, lt, sql, type SQL } from 'drizzle-orm'
import type { Db } from '../db'
import { isPostgres } from '../db/dialect'
import { taskCounts, taskDaily, tasks } from '../db/schema'
import { badRequest } from '../http/errors'
import { TASK_COLUMNS } from './repository'
import type { TaskRow } from './types'

export interface ListFilter { status?: string; taskType?: string; operatorId?: string; agentId?: string; includeSystem?: boolean }

/** How many index entries a page may step over (after the day seek, from the nearer end). */
export const MAX_SCAN = 100_000
/** Pages further than this from the nearer end try the day seek first. */
export const SEEK_AFTER = 2_000

const DAY_MS = 86_400_000
/** task_daily's column for each status (the rollups count non-system tasks per UTC creation day). */
const DAILY_COLUMN: Record<string, keyof typeof taskDaily.$inferSelect> = { COMPLETED: 'completed', FAILED: 'failed', PROCESSING: 'processing', QUEUED: 'queued', PENDING_APPROVAL: 'pendingApproval' }

const p = sql.placeholder
/** A statement prepared by shape; its values go by placeholder name. */
interface Prepared { get(v: Record<string, unknown>): unknown; all(v: Record<string, unknown>): unknown[] }

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
  private statements = new Map<string, Prepared>()

  constructor(private db: Db, private limits = { maxScan: MAX_SCAN, seekAfter: SEEK_AFTER }) {}

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
    const shape = `page:${idx}:${reverse}:${seek !== null}:${this.shape(f)}`
    const stmt = this.stmt(shape, () => {
      const where = this.filter(f, tasks)
      if (seek) where.push(reverse ? gte(tasks.createdAt, p('bound')) : lt(tasks.createdAt, p('bound')))
      const dir = reverse ? asc : desc
      // PostgreSQL has no rowid and picks the index itself: the same page by primary key.
      const pg = isPostgres(this.db)
      const range = this.db.select({ key: pg ? tasks.id : sql`rowid` }).from(pg ? tasks : sql`${tasks} INDEXED BY ${sql.raw(idx)}`).where(and(...where))
        .orderBy(dir(tasks.createdAt), dir(tasks.id)).limit(p('take')).offset(p('skip'))
      return this.db.select(TASK_COLUMNS).from(tasks).where(pg ? inArray(tasks.id, range) : sql`${tasks}.rowid IN ${range}`).orderBy(desc(tasks.createdAt), desc(tasks.id)).prepare()
    })
    const rows = stmt.all({ ...this.values(f), bound: seek?.bound, take, skip }) as TaskRow[]
    return { rows, total }
  }

  /** The filter's shape: which equalities it has, and whether system tasks are left out. */
  private shape(f: ListFilter): string {
    return `${f.operatorId !== undefined}:${f.agentId !== undefined}:${f.status !== undefined}:${f.taskType !== undefined ? 'type' : f.includeSystem ? 'all' : 'nosystem'}`
  }

  /** The filter's conditions on `tasks` or `task_counts`, whose values are placeholders (values()). */
  private filter(f: ListFilter, t: typeof tasks | typeof taskCounts): SQL[] {
    const where: SQL[] = []
    if (f.operatorId !== undefined) where.push(eq(t.operatorId, p('operatorId')))
    if (f.agentId !== undefined) where.push(eq(t.agentId, p('agentId')))
    if (f.status !== undefined) where.push(eq(t.status, p('status')))
    if (f.taskType !== undefined) where.push(eq(t.taskType, p('taskType')))
    else if (!f.includeSystem) where.push(sql`${t.taskType} != 'system'`)
    return where
  }

  private values(f: ListFilter): Record<string, unknown> {
    return { operatorId: f.operatorId, agentId: f.agentId, status: f.status, taskType: f.taskType }
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
    const key = f.status === undefined ? 'total' : DAILY_COLUMN[f.status]
    if (!key) return null
    const days = this.stmt(`days:${key}:${reverse}`, () => {
      const col = taskDaily[key]
      return this.db.select({ day: taskDaily.day, n: col }).from(taskDaily)
        .where(and(eq(taskDaily.operatorId, p('operatorId')), sql`${taskDaily.day} >= 0`, sql`${col} > 0`)).orderBy((reverse ? asc : desc)(taskDaily.day)).prepare()
    }).all({ operatorId: f.operatorId ?? '' }) as { day: number; n: number }[]
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
    // kind 2 counts an agent's tasks (of one operator), 1 an operator's, 0 all; the other key columns are '' there
    const kind = f.agentId !== undefined ? 2 : f.operatorId !== undefined ? 1 : 0
    // an agent's tasks across operators (the agent id alone): no operator equality
    const anyOperator = f.agentId !== undefined && f.operatorId === undefined
    const stmt = this.stmt(`count:${kind}:${anyOperator}:${f.status !== undefined}:${f.taskType !== undefined ? 'type' : f.includeSystem ? 'all' : 'nosystem'}`, () => {
      const where = [eq(taskCounts.kind, p('kind')), eq(taskCounts.agentId, p('agentId'))]
      if (!anyOperator) where.push(eq(taskCounts.operatorId, p('operatorId')))
      where.push(...this.filter({ ...f, operatorId: undefined, agentId: undefined }, taskCounts))
      return this.db.select({ n: sql<number>`coalesce(sum(${taskCounts.n}), 0)` }).from(taskCounts).where(and(...where)).prepare()
    })
    return (stmt.get({ kind, agentId: f.agentId ?? '', operatorId: f.operatorId ?? '', status: f.status, taskType: f.taskType }) as { n: number }).n
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

  private stmt(shape: string, make: () => Prepared): Prepared {
    let s = this.statements.get(shape)
    if (!s) this.statements.set(shape, (s = make()))
    return s
  }
}
