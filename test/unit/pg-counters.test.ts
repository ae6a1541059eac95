// The counters and rollups on PostgreSQL (migrations/pg/0001_counters.sql, PL/pgSQL) against
// SQLite's triggers (migrations 0006, 0009, 0010, 0017): one seeded workload of inserted, updated
// (status moves, credits, latency, verification, tokens, cost, refusals, rekeys) and deleted tasks,
// ledger entries and pioneer events runs on both dialects, and every kept table must come out the
// same (rows whose values are all zero count as absent, as in src/tasks/counters.ts).
import { afterAll, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { migrate } from '../../src/db'
import { PgConnection } from '../../src/db/pg/connection'
import { migratePg } from '../../src/db/pg/migrate'
import { startPostgres, type Postgres } from '../helpers/postgres'

// null without PostgreSQL installed: skipped with a warning (CI requires it)
const pg: Postgres | null = await startPostgres()
const conn = pg ? new PgConnection(pg.url) : null
afterAll(() => { conn?.close(); pg?.cleanup() })

/** A small seeded generator (mulberry32): the same workload on every run. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const KEPT: Record<string, string[]> = {
  task_counts: ['kind', 'agent_id', 'operator_id', 'task_type', 'status'],
  task_daily: ['operator_id', 'day'],
  task_latency_daily: ['operator_id', 'day', 'bucket'],
  task_admitted_minutes: ['operator_id', 'minute'],
  credit_spend_daily: ['operator_id', 'day'],
  pioneer_totals: ['operator_id'],
}

describe.skipIf(!pg)('counters on PostgreSQL', () => {
  test('one workload, both dialects: every counter and rollup table comes out the same', () => {
    migratePg(conn!)
    const lite = new Database(':memory:')
    migrate(lite)
    const run = (sql: string, params: unknown[]) => {
      lite.query(sql.replace(/\$(\d+)/g, '?$1')).run(...(params as never[]))
      conn!.query(sql, params)
    }
    const r = rng(34)
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!
    const OPS = ['op_a', 'op_b', 'op_c']
    const AGENTS = ['ag_1', 'ag_2', 'ag_3', 'ag_4']
    const TYPES = ['general', 'sentiment_analysis', 'system', 'code']
    const STATUSES = ['PENDING_APPROVAL', 'QUEUED', 'PROCESSING', 'COMPLETED', 'FAILED']
    const FAILURES = [null, 'GUARDRAIL_BLOCKED', 'KILL_SWITCH_ACTIVE', 'COMPUTE_FAILED']
    const T0 = 1_795_000_000_000
    const time = () => T0 + Math.floor(r() * 3 * 86_400_000) // three days, so tasks share days and minutes
    for (const op of OPS) run('INSERT INTO operators (id, login, created_at, updated_at) VALUES ($1, $1, 1, 1)', [op])
    for (const [k, ag] of AGENTS.entries()) {
      run(`INSERT INTO agents (id, operator_id, display_name, model, agent_version, capabilities, state_root, created_at, updated_at)
        VALUES ($1, $2, $1, 'builtin', '1', '[]', '0x', 1, 1)`, [ag, OPS[k % OPS.length]])
    }
    const tasks: string[] = []
    const ledger: number[] = []
    const events: number[] = []
    for (let i = 0; i < 600; i++) {
      const x = r()
      if (x < 0.35 || tasks.length < 5) {
        const id = `t${i}`
        tasks.push(id)
        const status = pick(STATUSES)
        run(`INSERT INTO tasks (id, operator_id, agent_id, task_type, prompt, model, provider, status, created_at, updated_at, credits_charged, latency_ms, verification_status, prompt_tokens, completion_tokens, cost_usd, failure_code, stage)
          VALUES ($1, $2, $3, $4, 'p', 'builtin', 'builtin', $5, $6, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
        [id, pick(OPS), pick(AGENTS), pick(TYPES), status, time(), Math.floor(r() * 5), r() < 0.7 ? Math.floor(r() * 5000) : null, pick([null, 'VERIFIED', 'FAILED']),
          r() < 0.6 ? Math.floor(r() * 900) : null, r() < 0.6 ? Math.floor(r() * 400) : null, r() < 0.5 ? Math.round(r() * 1e6) / 1e7 : null,
          status === 'FAILED' ? pick(FAILURES) : null, Math.floor(r() * 9)])
      } else if (x < 0.75) {
        const id = pick(tasks)
        const change = Math.floor(r() * 6)
        if (change === 0) run('UPDATE tasks SET status = $2 WHERE id = $1', [id, pick(STATUSES)])
        else if (change === 1) run('UPDATE tasks SET status = \'COMPLETED\', latency_ms = $2, verification_status = $3, prompt_tokens = $4, completion_tokens = $5, cost_usd = $6 WHERE id = $1', [id, Math.floor(r() * 9000), pick(['VERIFIED', 'FAILED']), Math.floor(r() * 500), Math.floor(r() * 500), Math.round(r() * 1e6) / 1e7])
        else if (change === 2) run('UPDATE tasks SET status = \'FAILED\', failure_code = $2, stage = $3 WHERE id = $1', [id, pick(FAILURES), Math.floor(r() * 3)])
        else if (change === 3) run('UPDATE tasks SET credits_charged = $2 WHERE id = $1', [id, Math.floor(r() * 7)])
        else if (change === 4) run('UPDATE tasks SET operator_id = $2, created_at = $3, task_type = $4 WHERE id = $1', [id, pick(OPS), time(), pick(TYPES)]) // a rekey
        else run('UPDATE tasks SET prompt = $2 WHERE id = $1', [id, `edited ${i}`]) // nothing a counter reads
      } else if (x < 0.83) {
        const id = tasks.splice(Math.floor(r() * tasks.length), 1)[0]!
        run('DELETE FROM tasks WHERE id = $1', [id])
      } else if (x < 0.93) {
        if (ledger.length && r() < 0.3) run('DELETE FROM ledger_entries WHERE id = $1', [ledger.splice(Math.floor(r() * ledger.length), 1)[0]!])
        else {
          ledger.push(i)
          run('INSERT INTO ledger_entries (id, operator_id, delta, balance_after, bucket, reason, created_at) VALUES ($1, $2, $3, 0, \'allocation\', $4, $5)',
            [i, pick(OPS), Math.floor(r() * 11) - 5, pick(['task_debit', 'compute_debit', 'task_refund', 'compute_refund', 'x402_payment', 'monthly_refill']), time()])
        }
      } else {
        if (events.length && r() < 0.3) run('DELETE FROM pioneer_events WHERE id = $1', [events.splice(Math.floor(r() * events.length), 1)[0]!])
        else {
          events.push(i)
          run('INSERT INTO pioneer_events (id, operator_id, kind, points, ref, created_at) VALUES ($1, $2, \'task_completed\', $3, $4, $5)', [i, pick(OPS), Math.floor(r() * 100), `e${i}`, time()])
        }
      }
    }
    expect(tasks.length).toBeGreaterThan(50)
    for (const [table, keys] of Object.entries(KEPT)) {
      const cols = (lite.query(`SELECT name FROM pragma_table_info('${table}')`).all() as { name: string }[]).map((c) => c.name)
      const values = cols.filter((c) => !keys.includes(c))
      const norm = (rows: Record<string, unknown>[]) => rows
        .map((row) => Object.fromEntries(cols.map((c) => [c, keys.includes(c) && typeof row[c] === 'string' && !/^-?\d+$/.test(row[c] as string) ? row[c] : Number(row[c])])))
        .filter((row) => values.some((c) => row[c] !== 0))
        .sort((a, b) => JSON.stringify(keys.map((k) => a[k])).localeCompare(JSON.stringify(keys.map((k) => b[k]))))
      const a = norm(lite.query(`SELECT ${cols.join(', ')} FROM ${table}`).all() as Record<string, unknown>[])
      const b = norm(conn!.query(`SELECT ${cols.join(', ')} FROM ${table}`).rows)
      expect([table, a.length > 0]).toEqual([table, true])
      expect([table, b]).toEqual([table, a])
    }
    lite.close()
  })
})
