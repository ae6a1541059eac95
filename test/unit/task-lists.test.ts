// TaskLists (src/tasks/list.ts) against direct SQL on a database with tasks over many days: every
// page of every filter shape, read newest first, from the other end, and through the day seek
// (thresholds lowered so small data takes every path), and the PAGE_TOO_DEEP cap.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Database } from 'bun:sqlite'
import { migratedDb } from '../helpers/db'
import { drizzle } from 'drizzle-orm/bun-sqlite'
import { TaskLists, type ListFilter } from '../../src/tasks/list'
import { ProblemError } from '../../src/http/errors'

const DAY = 86_400_000
let close: (() => void) | undefined
let db: Database

beforeAll(() => {
  ;({ sqlite: db, close } = migratedDb('taskgate-lists'))
  let seed = 11
  const r = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)]!
  for (const op of ['op_a', 'op_b']) db.run('INSERT INTO operators (id, login, created_at, updated_at) VALUES (?1, ?1, 0, 0)', [op])
  const ins = db.prepare(`INSERT INTO tasks (id, operator_id, agent_id, task_type, prompt, model, provider, status, latency_ms, created_at, updated_at)
    VALUES (?1, ?2, ?3, ?4, 'p', 'm', 'builtin', ?5, 10, ?6, ?6)`)
  db.transaction(() => {
    for (let i = 0; i < 1500; i++) {
      const system = r() < 0.01
      // a few instants repeat, so ties are broken by id
      const at = 20_000 * DAY + (r() < 0.1 ? 5 * DAY : Math.floor(r() * 40 * DAY))
      ins.run(`task_${String(Math.floor(r() * 1e9)).padStart(9, '0')}_${i}`, pick(['op_a', 'op_a', 'op_b']), system ? 'system' : pick(['ag_1', 'ag_2', 'ag_3']),
        system ? 'system' : pick(['general', 'code']), system ? 'COMPLETED' : pick(['COMPLETED', 'COMPLETED', 'FAILED', 'PENDING_APPROVAL']), at)
    }
  })()
})
afterAll(() => close?.())

const COLS: Record<string, string> = { operatorId: 'operator_id', agentId: 'agent_id', status: 'status', taskType: 'task_type' }
function expected(f: ListFilter): string[] {
  const where: string[] = []
  const args: string[] = []
  for (const [k, col] of Object.entries(COLS)) {
    const v = (f as Record<string, string | undefined>)[k]
    if (v !== undefined) { args.push(v); where.push(`${col} = ?${args.length}`) }
  }
  if (!f.includeSystem && f.taskType === undefined) where.push("task_type != 'system'")
  return (db.query(`SELECT id FROM tasks ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, id DESC`).all(...args) as { id: string }[]).map((x) => x.id)
}

const FILTERS: ListFilter[] = [
  {}, { operatorId: 'op_a' }, { operatorId: 'op_a', includeSystem: true }, { operatorId: 'op_b', status: 'FAILED' }, { status: 'PENDING_APPROVAL' },
  { agentId: 'ag_2' }, { taskType: 'code', status: 'COMPLETED' }, { operatorId: 'op_a', agentId: 'ag_1', taskType: 'general' }, { agentId: 'system', includeSystem: true },
]

describe('task list pages', () => {
  for (const limits of [{ maxScan: 1e9, seekAfter: 0 }, { maxScan: 1e9, seekAfter: 1e9 }, { maxScan: 1e9, seekAfter: 40 }]) {
    test(`every page of every filter equals direct SQL (seek after ${limits.seekAfter})`, () => {
      const lists = new TaskLists(drizzle({ client: db }), limits)
      for (const f of FILTERS) {
        const ids = expected(f)
        expect(ids.length).toBeGreaterThan(0)
        expect(lists.count(f)).toBe(ids.length)
        for (const limit of [7, 100]) {
          for (let page = 1; page <= Math.ceil(ids.length / limit) + 1; page++) {
            const got = lists.page(f, page, limit)
            expect({ f, page, total: got.total, ids: got.rows.map((t) => t.id) }).toEqual({ f, page, total: ids.length, ids: ids.slice((page - 1) * limit, page * limit) })
          }
        }
      }
    })
  }

  test('a page too far from both ends is refused with PAGE_TOO_DEEP, unless the day seek reaches it', () => {
    const lists = new TaskLists(drizzle({ client: db }), { maxScan: 50, seekAfter: 10 })
    const agent = expected({ agentId: 'ag_2' })
    const middle = Math.floor(agent.length / 2 / 10)
    let err: unknown = null
    try { lists.page({ agentId: 'ag_2' }, middle, 10) } catch (e) { err = e }
    expect(err).toBeInstanceOf(ProblemError)
    expect((err as ProblemError).code).toBe('PAGE_TOO_DEEP')
    expect(lists.page({ agentId: 'ag_2' }, 1, 10).rows).toHaveLength(10) // near the ends it still answers
    expect(lists.page({ agentId: 'ag_2' }, Math.ceil(agent.length / 10), 10).total).toBe(agent.length)
    // the unfiltered list's middle page: the day seek leaves less than a day (≈ 35 tasks) to step over
    const all = expected({})
    const mid = Math.floor(all.length / 2 / 10)
    expect(lists.page({}, mid, 10).rows.map((t) => t.id)).toEqual(all.slice((mid - 1) * 10, mid * 10))
  })
})

describe('index use', () => {
  test('every page is read from one covering index (no table row read to filter), status filters from the indexes led by it', () => {
    const prepared: string[] = []
    const recording = new Proxy(db, {
      get(target, key) {
        if (key === 'prepare') return (sql: string) => { prepared.push(sql); return target.prepare(sql) }
        const v = Reflect.get(target, key)
        return typeof v === 'function' ? v.bind(target) : v
      },
    })
    const lists = new TaskLists(drizzle({ client: recording }), { maxScan: 1e9, seekAfter: 40 })
    const shapes: ListFilter[] = [...FILTERS, { status: 'FAILED' }, { agentId: 'ag_1', status: 'COMPLETED' }, { taskType: 'general', status: 'FAILED' }, { operatorId: 'op_a', taskType: 'code', status: 'COMPLETED' }]
    let checked = 0
    for (const f of shapes) {
      const total = lists.count(f)
      for (const page of [1, Math.ceil(total / 14), Math.ceil(total / 7)]) {
        prepared.length = 0
        lists.page(f, page, 7)
        const pageSql = prepared.find((s) => s.includes('INDEXED BY'))
        if (!pageSql) continue // a statement prepared by an earlier page is reused
        const plan = (db.query(`EXPLAIN QUERY PLAN ${pageSql}`).all() as { detail: string }[]).map((r) => r.detail).join(' | ')
        const index = /INDEXED BY (\w+)/.exec(pageSql)![1]!
        if (f.status !== undefined) expect({ f, index }).toEqual({ f, index: expect.stringContaining('status') })
        // operator and agent together: the agent's tasks are one operator's, the operator is checked on the row
        if (!(f.operatorId !== undefined && f.agentId !== undefined)) expect({ f, plan }).toEqual({ f, plan: expect.stringContaining(`COVERING INDEX ${index}`) })
        checked++
      }
    }
    expect(checked).toBeGreaterThan(20)
  })
})
