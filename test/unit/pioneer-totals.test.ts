// Migration 0009: pioneer_totals, kept by triggers on pioneer_events, always equals the sum of an
// operator's events; its backfill computes the same from existing events.
import { afterAll, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Clock } from '../../src/clock'
import { PioneerRepository } from '../../src/pioneer/repository'
import { PioneerService } from '../../src/pioneer/service'
import { migratedDb } from '../helpers/db'

const { db, sqlite, close } = migratedDb('tg-pioneer')
const pioneer = new PioneerService(new PioneerRepository(db), new Clock())
afterAll(close)

const sums = () => Object.fromEntries((sqlite.query('SELECT operator_id AS o, sum(points) AS p FROM pioneer_events GROUP BY operator_id').all() as { o: string; p: number }[]).map((r) => [r.o, r.p]))
const totals = () => Object.fromEntries((sqlite.query('SELECT operator_id AS o, points AS p FROM pioneer_totals WHERE points != 0').all() as { o: string; p: number }[]).map((r) => [r.o, r.p]))

test('awards, repeated refs and deletions keep every operator\'s total equal to the sum of its events', () => {
  const ops = ['op_a', 'op_b', 'op_c']
  let awarded = 0
  for (let i = 0; i < 500; i++) {
    const op = ops[i % 3]!
    awarded += pioneer.award(op, 'task_completed', 1 + (i % 7), `task:${i % 400}`) // refs repeat: counted once
  }
  expect(awarded).toBe(Object.values(sums()).reduce((a, b) => a + b, 0))
  expect(totals()).toEqual(sums())
  for (const op of ops) expect(pioneer.total(op)).toBe(sums()[op]!)
  sqlite.run("DELETE FROM pioneer_events WHERE id % 5 = 0")
  expect(totals()).toEqual(sums())
  expect(pioneer.total('op_unknown')).toBe(0)
})

test('the backfill computes the totals of events recorded before the migration', () => {
  const statements = readFileSync(join(import.meta.dir, '../../migrations/0009_pioneer_totals.sql'), 'utf8').split('--> statement-breakpoint')
  const backfill = statements.find((s) => s.includes('INSERT INTO pioneer_totals') && s.includes('GROUP BY'))!
  sqlite.run('DELETE FROM pioneer_totals')
  sqlite.run(backfill)
  expect(totals()).toEqual(sums())
})
