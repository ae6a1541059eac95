// The triggers of migrations 0006 and 0017 (task_daily's, with tokens and cost) keep task_counts,
// task_daily and task_latency_daily exact under any write to `tasks` (insert, every kind of update,
// delete), and the migrations' backfill (which recomputeRollups and rollupDrift reuse) computes the
// same thing. The ground truth here is
// computed in JS from the task rows, independently of the SQL under test.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import type { Database } from 'bun:sqlite'
import { migratedDb } from '../helpers/db'
import { recomputeRollups, rollupDrift } from '../../src/tasks/counters'
import { bucketOf } from '../../src/stats/histogram'

const DAY = 86_400_000
const STATUSES = ['PENDING_APPROVAL', 'QUEUED', 'PROCESSING', 'COMPLETED', 'FAILED']
const TYPES = ['general', 'code', 'system']
const OPS = ['op_a', 'op_b']
const AGENTS = ['ag_1', 'ag_2', 'system']

let close: (() => void) | undefined
let db: Database

beforeAll(() => {
  ;({ sqlite: db, close } = migratedDb('taskgate-counters'))
  for (const op of OPS) db.run("INSERT INTO operators (id, login, created_at, updated_at) VALUES (?1, ?1, 0, 0)", [op])
})
afterAll(() => close?.())

/** Deterministic pseudo-random numbers, so a failure reproduces. */
function rng(seed: number) {
  let a = seed >>> 0
  return () => { a = (a + 0x6d2b79f5) >>> 0; let t = a; t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 4294967296 }
}

type Row = Record<string, any>
/** The counters and rollups as they must be, computed in JS from the task rows. */
function truth(): Record<string, Map<string, Row>> {
  const tasks = db.query('SELECT * FROM tasks').all() as Row[]
  const counts = new Map<string, Row>()
  const daily = new Map<string, Row>()
  const hist = new Map<string, Row>()
  const bump = (m: Map<string, Row>, key: Row, add: Row) => {
    const k = JSON.stringify(key)
    const cur = m.get(k) ?? { ...key, ...Object.fromEntries(Object.keys(add).map((c) => [c, 0])) }
    for (const [c, v] of Object.entries(add)) cur[c] += v
    m.set(k, cur)
  }
  for (const t of tasks) {
    for (const key of [{ kind: 0, agent_id: '', operator_id: '' }, { kind: 1, agent_id: '', operator_id: t.operator_id }, { kind: 2, agent_id: t.agent_id, operator_id: t.operator_id }]) {
      bump(counts, { ...key, task_type: t.task_type, status: t.status }, { n: 1 })
    }
    if (t.task_type === 'system') continue
    const done = t.status === 'COMPLETED'
    const lat = done && t.latency_ms !== null
    const day = Math.floor(t.created_at / DAY)
    // tokens and cost count once the task finished (COMPLETED or FAILED); the cost in millionths of a dollar
    const finished = done || t.status === 'FAILED'
    const add = {
      total: 1, completed: +done, failed: +(t.status === 'FAILED'), processing: +(t.status === 'PROCESSING'), queued: +(t.status === 'QUEUED'),
      pending_approval: +(t.status === 'PENDING_APPROVAL'), credits: t.credits_charged, verified: +(done && t.verification_status === 'VERIFIED'),
      latency_n: +lat, latency_sum: lat ? t.latency_ms : 0,
      prompt_tokens: finished ? t.prompt_tokens ?? 0 : 0, completion_tokens: finished ? t.completion_tokens ?? 0 : 0,
      cost_micro_usd: finished && t.cost_usd !== null ? Math.round(t.cost_usd * 1e6) : 0,
    }
    for (const key of [{ operator_id: t.operator_id, day }, { operator_id: '', day }, { operator_id: '', day: -1 }]) bump(daily, key, add)
    if (lat) for (const o of [t.operator_id, '']) bump(hist, { operator_id: o, day, bucket: bucketOf(t.latency_ms) }, { n: 1 })
  }
  return { task_counts: counts, task_daily: daily, task_latency_daily: hist }
}

const KEYS: Record<string, string[]> = { task_counts: ['kind', 'agent_id', 'operator_id', 'task_type', 'status'], task_daily: ['operator_id', 'day'], task_latency_daily: ['operator_id', 'day', 'bucket'] }

/** The kept tables, rows with only zero values dropped, keyed like truth(). */
function kept(): Record<string, Map<string, Row>> {
  const out: Record<string, Map<string, Row>> = {}
  for (const [table, keys] of Object.entries(KEYS)) {
    const m = new Map<string, Row>()
    for (const r of db.query(`SELECT * FROM ${table}`).all() as Row[]) {
      if (Object.entries(r).every(([c, v]) => keys.includes(c) || v === 0)) continue
      m.set(JSON.stringify(Object.fromEntries(keys.map((k) => [k, r[k]]))), r)
    }
    out[table] = m
  }
  return out
}

function expectExact(): void {
  const want = truth()
  const got = kept()
  for (const table of Object.keys(KEYS)) {
    const w = [...want[table]!.entries()].filter(([, r]) => Object.entries(r).some(([c, v]) => !KEYS[table]!.includes(c) && v !== 0)).sort()
    expect([...got[table]!.entries()].sort()).toEqual(w)
  }
  expect(rollupDrift(db)).toEqual([])
}

let seq = 0
/** Token counts and a cost as stage 3 writes them (src/compute/prices.ts: rounded to a millionth of a dollar), or nulls (no compute yet, no price). */
function usage(r: () => number): [number | null, number | null, number | null] {
  if (r() < 0.25) return [null, null, null]
  const p = Math.floor(r() * 4000), c = Math.floor(r() * 2000)
  return [p, c, r() < 0.3 ? null : Math.round(p * 2.5 + c * 10.25 + r()) / 1e6]
}
function insert(r: () => number, pick: <T>(xs: T[]) => T): void {
  const status = pick(STATUSES)
  const type = pick(TYPES)
  db.run(`INSERT INTO tasks (id, operator_id, agent_id, task_type, prompt, model, provider, status, credits_charged, latency_ms, verification_status, created_at, updated_at, prompt_tokens, completion_tokens, cost_usd)
    VALUES (?1, ?2, ?3, ?4, 'p', 'm', 'builtin', ?5, ?6, ?7, ?8, ?9, ?9, ?10, ?11, ?12)`,
  [`task_${++seq}`, pick(OPS), type === 'system' ? 'system' : pick(AGENTS.slice(0, 2)), type, status, Math.floor(r() * 3), r() < 0.8 ? 1 + Math.floor(r() ** 3 * 5000) : null,
    pick(['VERIFIED', 'FAILED', null]), Math.floor(r() * 5 * DAY) + 20_000 * DAY, ...usage(r)])
}

describe('trigger-kept counters and rollups', () => {
  test('stay exact through random inserts, updates of every tracked column, key changes and deletes', () => {
    const r = rng(7)
    const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)]!
    for (let i = 0; i < 60; i++) insert(r, pick)
    expectExact()
    for (let round = 0; round < 6; round++) {
      db.transaction(() => {
        for (let i = 0; i < 80; i++) {
          const ids = (db.query('SELECT id FROM tasks').all() as { id: string }[]).map((x) => x.id)
          const id = pick(ids)
          const what = Math.floor(r() * 12)
          if (what === 0) insert(r, pick)
          else if (what === 1) db.run('DELETE FROM tasks WHERE id = ?1', [id])
          else if (what === 2) db.run('UPDATE tasks SET status = ?2, credits_charged = ?3 WHERE id = ?1', [id, pick(STATUSES), Math.floor(r() * 3)])
          else if (what === 3) db.run('UPDATE tasks SET latency_ms = ?2, verification_status = ?3 WHERE id = ?1', [id, r() < 0.8 ? 1 + Math.floor(r() * 9000) : null, pick(['VERIFIED', 'FAILED', null])])
          else if (what === 4) db.run('UPDATE tasks SET task_type = ?2 WHERE id = ?1', [id, pick(TYPES)]) // into and out of 'system'
          else if (what === 5) db.run('UPDATE tasks SET created_at = created_at + ?2 WHERE id = ?1', [id, Math.floor((r() - 0.5) * 3 * DAY)])
          else if (what === 6) db.run('UPDATE tasks SET operator_id = ?2 WHERE id = ?1', [id, pick(OPS)])
          else if (what === 7) db.run('UPDATE tasks SET agent_id = ?2 WHERE id = ?1', [id, pick(AGENTS)])
          else if (what === 8) db.run("UPDATE tasks SET status = 'COMPLETED', latency_ms = ?2, verification_status = 'VERIFIED' WHERE id = ?1", [id, 1 + Math.floor(r() * 500)])
          else if (what === 9) db.run('UPDATE tasks SET prompt_tokens = ?2, completion_tokens = ?3, cost_usd = ?4 WHERE id = ?1', [id, ...usage(r)]) // stage 3's fields, whatever the status
          else if (what === 10) db.run("UPDATE tasks SET status = ?2, prompt_tokens = ?3, completion_tokens = ?4, cost_usd = ?5, latency_ms = 7 WHERE id = ?1", [id, pick(['COMPLETED', 'FAILED']), ...usage(r)]) // a task that finishes with its compute
          else db.run('UPDATE tasks SET status = status, stage = stage + 1, updated_at = updated_at + 1 WHERE id = ?1', [id]) // no tracked change
        }
      })()
      expectExact()
    }
  })

  test('a wrong counter is reported, and recomputeRollups repairs it', () => {
    expect(rollupDrift(db)).toEqual([])
    const one = db.query('SELECT task_type AS t, status AS s FROM task_counts WHERE kind = 0 LIMIT 1').get() as { t: string; s: string }
    db.run("UPDATE task_counts SET n = n + 1 WHERE kind = 0 AND agent_id = '' AND operator_id = '' AND task_type = ?1 AND status = ?2", [one.t, one.s])
    db.run("UPDATE task_daily SET latency_sum = latency_sum + 5 WHERE operator_id = '' AND day = -1")
    db.run("UPDATE task_daily SET cost_micro_usd = cost_micro_usd + 1 WHERE operator_id = 'op_a' AND day = (SELECT max(day) FROM task_daily WHERE operator_id = 'op_a' AND total > 0)")
    const drift = rollupDrift(db)
    expect(drift.map((d) => [d.table, d.kept])).toEqual([['task_counts', 'differs'], ['task_daily', 'differs'], ['task_daily', 'differs']])
    recomputeRollups(db)
    expectExact()
  })
})
