// Migration 0010, the counters behind two guardrails:
// - credit_spend_daily, kept by a trigger on ledger_entries, always equals the sum maxCreditsPerDay
//   used to compute from the ledger (task and compute debits minus their refunds, per operator and
//   UTC day);
// - task_admitted_minutes, kept by triggers on tasks, lets maxTasksPerHour count the rolling hour
//   exactly: GuardrailStore.admittedSince equals the count over the tasks table for any instant.
// Both backfills compute the same from existing rows.
import { afterAll, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Clock } from '../../src/clock'
import { GuardrailStore } from '../../src/guardrails/store'
import { GuardrailRepository } from '../../src/guardrails/repository'
import { JobRepository } from '../../src/jobs/repository'
import { MetaRepository } from '../../src/db/meta'
import { SqliteTransactor } from '../../src/db/transactor'
import { JobRunner } from '../../src/jobs/runner'
import { createLogger } from '../../src/log'
import { TaskRepository } from '../../src/tasks/repository'
import { migratedDb } from '../helpers/db'

const DAY = 86_400_000
const { db, sqlite, close } = migratedDb('tg-spend-daily')
afterAll(close)

const REASONS = ['task_debit', 'compute_debit', 'task_refund', 'compute_refund', 'grant', 'topup', 'refill']
const insert = sqlite.prepare('INSERT INTO ledger_entries (operator_id, delta, balance_after, bucket, reason, task_id, ref, created_at) VALUES (?1, ?2, 0, ?3, ?4, NULL, ?5, ?6)')

/** What the guardrail computed before: -sum(delta) of the spending reasons since the day's 00:00 UTC (and before the next). */
const summed = (operatorId: string, day: number) => (sqlite.query(`SELECT coalesce(-sum(delta), 0) AS n FROM ledger_entries WHERE operator_id = ?1
  AND created_at >= ?2 AND created_at < ?3 AND reason IN ('task_debit', 'compute_debit', 'task_refund', 'compute_refund')`).get(operatorId, day * DAY, (day + 1) * DAY) as { n: number }).n
const kept = (operatorId: string, day: number) => (sqlite.query('SELECT coalesce((SELECT credits FROM credit_spend_daily WHERE operator_id = ?1 AND day = ?2), 0) AS n').get(operatorId, day) as { n: number }).n

const ops = ['op_a', 'op_b', 'op_c']
const day0 = Math.floor(Date.UTC(2026, 10, 20) / DAY)

function expectEqualEverywhere(): void {
  for (const op of ops) for (let d = day0 - 1; d <= day0 + 4; d++) expect({ op, d, n: kept(op, d) }).toEqual({ op, d, n: summed(op, d) })
}

test('debits, refunds and other entries over several days keep every operator\'s daily spend equal to the ledger sum', () => {
  let i = 0
  for (let d = 0; d < 4; d++) {
    for (let k = 0; k < 60; k++, i++) {
      const reason = REASONS[i % REASONS.length]!
      const delta = reason.endsWith('debit') ? -(1 + (i % 9)) : (1 + (i % 5))
      // Times across the day, including its first and last millisecond.
      const at = (day0 + d) * DAY + (k === 0 ? 0 : k === 59 ? DAY - 1 : Math.floor((k / 60) * DAY))
      insert.run(ops[i % 3]!, delta, reason.startsWith('compute') ? 'allocation' : 'monthly', reason, `ref:${i}`, at)
    }
  }
  expect(kept('op_a', day0)).toBeGreaterThan(0)
  expectEqualEverywhere()
  sqlite.run('DELETE FROM ledger_entries WHERE id % 7 = 0') // the ledger is append-only today; deletions stay consistent anyway
  expectEqualEverywhere()
})

test('the backfill computes the daily spend of entries recorded before the migration', () => {
  const backfill = migrationStatements().find((s) => s.includes('INSERT INTO credit_spend_daily') && s.includes('GROUP BY'))!
  sqlite.run('DELETE FROM credit_spend_daily')
  sqlite.run(backfill)
  expectEqualEverywhere()
})

const migrationStatements = () => readFileSync(join(import.meta.dir, '../../migrations/0010_guardrail_counters.sql'), 'utf8').split('--> statement-breakpoint')

// maxTasksPerHour: tasks of three operators over three hours, at random milliseconds, in every
// state stage 1 and later stages leave them in, then moved between states and some deleted.
const clock = new Clock(new MetaRepository(db))
const tx = new SqliteTransactor(sqlite)
const guardrails = new GuardrailStore(new GuardrailRepository(db), tx, clock, new JobRunner(new JobRepository(db), tx, clock, createLogger('silent')), Buffer.alloc(32), () => 1)
const tasks = new TaskRepository(db)
const HOUR = 3_600_000
const t0 = Date.UTC(2026, 10, 20, 9, 0, 0, 0)

/** The count maxTasksPerHour made before the counters: a scan of the operator's tasks of the hour. */
const scanned = (operatorId: string, since: number, exceptId: string) => (sqlite.query(`SELECT count(*) AS n FROM tasks WHERE operator_id = ?1 AND created_at > ?2 AND id != ?3
  AND task_type != 'system' AND NOT (status = 'FAILED' AND failure_code IN ('GUARDRAIL_BLOCKED', 'KILL_SWITCH_ACTIVE') AND stage <= 1)`).get(operatorId, since, exceptId) as { n: number }).n

function expectCountsEqual(now: number, exceptId: string): void {
  for (const op of ops) expect({ op, now, n: guardrails.admittedSince(op, now - HOUR, exceptId) }).toEqual({ op, now, n: scanned(op, now - HOUR, exceptId) })
}

test('the hour\'s admitted tasks from the minute counters equal a scan of the tasks, at every submit', () => {
  sqlite.run('PRAGMA foreign_keys = OFF') // tasks of operators and agents this test does not create
  let seed = 7
  const rnd = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31
  const states = [
    { status: 'PROCESSING', stage: 2, failureCode: null }, { status: 'COMPLETED', stage: 8, failureCode: null },
    { status: 'FAILED', stage: 1, failureCode: 'GUARDRAIL_BLOCKED' }, { status: 'FAILED', stage: 0, failureCode: 'KILL_SWITCH_ACTIVE' },
    { status: 'FAILED', stage: 3, failureCode: 'COMPUTE_FAILED' }, { status: 'FAILED', stage: 2, failureCode: 'GUARDRAIL_BLOCKED' },
    { status: 'PENDING_APPROVAL', stage: 1, failureCode: null }, { status: 'QUEUED', stage: 3, failureCode: null },
  ]
  // Three hours of tasks in creation order (as submits create them), a few per second at times.
  const times = Array.from({ length: 1500 }, () => t0 + Math.floor(rnd() * 3 * HOUR)).sort((a, b) => a - b)
  const ids: string[] = []
  let probes = 0
  times.forEach((at, i) => {
    const st = states[Math.floor(rnd() * states.length)]!
    const id = `task_${String(i).padStart(5, '0')}`
    ids.push(id)
    tasks.insert({ id, operatorId: ops[i % 3]!, agentId: 'agent_x', taskType: i % 11 === 0 ? 'system' : 'sentiment_analysis', prompt: 'p', model: 'm', provider: 'builtin',
      status: st.status, stage: st.stage, failureCode: st.failureCode, createdAt: at, updatedAt: at } as never)
    // Later stages move earlier tasks between counted and not counted, and some go.
    if (i % 5 === 0 && i > 0) tasks.update(ids[Math.floor(rnd() * i)]!, states[Math.floor(rnd() * states.length)]! as never)
    if (i % 97 === 0) sqlite.run('DELETE FROM tasks WHERE id = ?1', [ids[Math.floor(rnd() * i)]!])
    // Stage 1 of this task asks, at its own creation time or a little later, excluding itself.
    if (i % 7 === 0) { expectCountsEqual(at + Math.floor(rnd() * 30_000), id); probes++ }
  })
  expect(probes).toBeGreaterThan(200)
  expect(scanned('op_a', t0 + 2 * HOUR, 'none')).toBeGreaterThan(100) // hours with many tasks in them
  expectCountsEqual(t0 + 5 * HOUR, 'none') // an hour without tasks
  // Minutes more than an hour older than an operator's newest task are pruned as tasks arrive.
  for (const r of sqlite.query('SELECT min(minute) AS m, max(minute) AS x FROM task_admitted_minutes GROUP BY operator_id').all() as { m: number; x: number }[]) expect(r.x - r.m).toBeLessThanOrEqual(62)
})

test('the hour backfill computes the minute counters of tasks recorded before the migration', () => {
  const kept = sqlite.query('SELECT operator_id, minute, n FROM task_admitted_minutes WHERE n != 0 ORDER BY 1, 2').all()
  expect(kept.length).toBeGreaterThan(0)
  const backfill = migrationStatements().find((s) => s.includes('INSERT INTO task_admitted_minutes') && s.includes('GROUP BY'))!
  sqlite.run('DELETE FROM task_admitted_minutes')
  sqlite.run(backfill)
  // The backfill holds every minute with tasks; the triggers had pruned all but the last hour's.
  const minutes = new Set((kept as { operator_id: string; minute: number }[]).map((r) => `${r.operator_id}:${r.minute}`))
  const after = (sqlite.query('SELECT operator_id, minute, n FROM task_admitted_minutes WHERE n != 0 ORDER BY 1, 2').all() as { operator_id: string; minute: number }[])
  expect(after.filter((r) => minutes.has(`${r.operator_id}:${r.minute}`))).toEqual(kept as never)
  expectCountsEqual(t0 + 3 * HOUR, 'none')
})
