// src/jobs/runner.ts on a real migrated SQLite database in a temp dir, driven by the service Clock.
// The wall clock is pinned with setSystemTime so run_at values are exact; time only moves through
// clock.advance().
import { afterEach, beforeEach, describe, expect, setSystemTime, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Clock } from '../../src/clock'
import { migrate, openDb, type Db } from '../../src/db'
import { JobRunner, type JobRow } from '../../src/jobs/runner'
import { JobRepository } from '../../src/jobs/repository'
import { MetaRepository } from '../../src/db/meta'
import { SqliteTransactor } from '../../src/db/transactor'
import { createLogger } from '../../src/log'

const T0 = 1_800_000_000_000
const DAY = 86_400_000

interface Row { id: number; kind: string; payload: string; status: string; run_at: number; attempts: number; max_attempts: number; last_error: string | null; dedupe_key: string | null; updated_at: number }

let dir: string
let db: Db
let clock: Clock
let runner: JobRunner
const log = createLogger('silent')
const extra: JobRunner[] = []
const runnerOn = (db: Db, clock: Clock, log: ReturnType<typeof createLogger>, concurrency?: number) => new JobRunner(new JobRepository(db), new SqliteTransactor(db.$client), clock, log, concurrency)

beforeEach(() => {
  setSystemTime(new Date(T0))
  dir = mkdtempSync(join(tmpdir(), 'tg-jobs-'))
  db = openDb(dir)
  migrate(db)
  clock = new Clock(new MetaRepository(db))
  runner = runnerOn(db, clock, log)
})
afterEach(async () => {
  await runner.stop()
  for (const r of extra.splice(0)) await r.stop()
  db.$client.close()
  rmSync(dir, { recursive: true, force: true })
  setSystemTime()
})

const row = (id: number) => db.$client.query('SELECT * FROM jobs WHERE id = ?1').get(id) as Row
const rowsOf = (kind: string) => db.$client.query('SELECT * FROM jobs WHERE kind = ?1 ORDER BY id').all(kind) as Row[]
/** Lets queued microtasks and I/O callbacks run (no timers involved). */
const tick = () => new Promise<void>((r) => setImmediate(r))
/** A promise plus its resolver, to hold a handler in flight. */
function gate() {
  let open!: () => void
  const p = new Promise<void>((r) => { open = r })
  return { p, open }
}

describe('enqueue and drain', () => {
  test('runs the handler with the payload and marks the row done', async () => {
    const calls: { payload: unknown; job: JobRow }[] = []
    runner.register('echo', (payload, job) => { calls.push({ payload, job }) })
    const id = runner.enqueue('echo', { a: 1, b: ['x', null] })!
    expect(id).toBeGreaterThan(0)
    await runner.drain()
    expect(calls.length).toBe(1)
    expect(calls[0]!.payload).toEqual({ a: 1, b: ['x', null] })
    expect(calls[0]!.job).toMatchObject({ id, kind: 'echo', attempts: 1, maxAttempts: 5, runAt: T0 })
    expect(row(id)).toMatchObject({ status: 'done', attempts: 1, last_error: null, updated_at: T0 })
  })

  test('on a started runner, a due job is picked up without an explicit drain (enqueue schedules one)', async () => {
    let ran = 0
    runner.register('auto', () => { ran++ })
    runner.start(3_600_000) // the poll timer never fires during the test
    await runner.drain()
    const id = runner.enqueue('auto', {})!
    for (let i = 0; i < 5 && row(id).status !== 'done'; i++) await tick()
    expect(ran).toBe(1)
    expect(row(id).status).toBe('done')
  })

  test('async handlers are awaited before the row is marked done', async () => {
    const g = gate()
    runner.register('slow', async () => { await g.p })
    const id = runner.enqueue('slow', {})!
    const drained = runner.drain()
    await tick()
    expect(row(id)).toMatchObject({ status: 'running', attempts: 1 })
    g.open()
    await drained
    expect(row(id).status).toBe('done')
  })

  test('jobs run in run_at order, then id order', async () => {
    const order: string[] = []
    runner.register('o', (p: { n: string }) => { order.push(p.n) })
    runner.enqueue('o', { n: 'c' }, { runAt: T0 + 3000 })
    runner.enqueue('o', { n: 'a' }, { runAt: T0 + 1000 })
    runner.enqueue('o', { n: 'b1' }, { runAt: T0 + 2000 })
    runner.enqueue('o', { n: 'b2' }, { runAt: T0 + 2000 })
    await clock.advance(3000)
    await runner.drain()
    expect(order).toEqual(['a', 'b1', 'b2', 'c'])
  })

  test('one drain() runs every due job even when there are more than the runner takes at once', async () => {
    const small = runnerOn(db, clock, log, 2)
    extra.push(small)
    let n = 0
    small.register('many', () => { n++ })
    for (let i = 0; i < 7; i++) small.enqueue('many', { i }, { runAt: T0 + 1 })
    await clock.advance(1)
    await small.drain()
    expect(n).toBe(7)
  })
})

describe('scheduling', () => {
  test('a job with runAt in the future does not run until the clock passes it (explicit drain)', async () => {
    let ran = 0
    runner.register('later', () => { ran++ })
    const id = runner.enqueue('later', {}, { runAt: T0 + 5000 })!
    await runner.drain()
    expect(ran).toBe(0)
    await clock.advance(4999)
    await runner.drain()
    expect(ran).toBe(0)
    expect(row(id)).toMatchObject({ status: 'pending', attempts: 0 })
    await clock.advance(1)
    await runner.drain()
    expect(ran).toBe(1)
    expect(row(id).status).toBe('done')
  })

  test('after start(), clock.advance runs the jobs that became due before it resolves', async () => {
    let ran = 0
    runner.register('later', async () => { await tick(); ran++ })
    runner.start(3_600_000) // the poll timer never fires during the test
    const id = runner.enqueue('later', {}, { runAt: T0 + 5000 })!
    await clock.advance(4000)
    expect(ran).toBe(0)
    await clock.advance(1000)
    expect(ran).toBe(1)
    expect(row(id).status).toBe('done')
  })

  test('healthy() is false before start, true after a pass, false after stop', async () => {
    expect(runner.healthy()).toBe(false)
    runner.start(3_600_000)
    await runner.drain()
    expect(runner.healthy()).toBe(true)
    await runner.stop()
    expect(runner.healthy()).toBe(false)
  })

  test('stop() waits for the job in flight', async () => {
    const g = gate()
    runner.register('slow', async () => { await g.p })
    runner.start(3_600_000)
    const id = runner.enqueue('slow', {})!
    await tick()
    expect(row(id).status).toBe('running')
    let stopped = false
    const s = runner.stop().then(() => { stopped = true })
    await tick()
    expect(stopped).toBe(false)
    g.open()
    await s
    expect(stopped).toBe(true)
    expect(row(id).status).toBe('done')
  })
})

describe('failures', () => {
  test('a failing handler is retried with backoff and becomes failed after maxAttempts', async () => {
    const seen: number[] = []
    runner.register('flaky', (_p, job) => { seen.push(job.attempts); throw new Error(`boom ${job.attempts}`) })
    const id = runner.enqueue('flaky', { x: 1 }, { maxAttempts: 3, dedupeKey: 'flaky-1' })!
    await runner.drain()
    expect(row(id)).toMatchObject({ status: 'pending', attempts: 1, run_at: T0 + 1000, last_error: 'boom 1', dedupe_key: 'flaky-1' })

    await runner.drain() // not due yet
    await clock.advance(999)
    await runner.drain()
    expect(seen).toEqual([1])

    await clock.advance(1)
    await runner.drain()
    expect(row(id)).toMatchObject({ status: 'pending', attempts: 2, run_at: T0 + 1000 + 2000, last_error: 'boom 2' })

    await clock.advance(2000)
    await runner.drain()
    expect(row(id)).toMatchObject({ status: 'failed', attempts: 3, last_error: 'boom 3' })
    expect(seen).toEqual([1, 2, 3])

    await clock.advance(DAY)
    await runner.drain()
    expect(seen).toEqual([1, 2, 3])
  })

  test('the backoff doubles from 1 s and is capped at 60 s', async () => {
    runner.register('bad', () => { throw new Error('no') })
    const id = runner.enqueue('bad', {}, { maxAttempts: 10 })!
    const delays: number[] = []
    for (let i = 0; i < 8; i++) {
      await runner.drain()
      const r = row(id)
      expect(r.status).toBe('pending')
      delays.push(r.run_at - clock.now())
      await clock.advance(r.run_at - clock.now())
    }
    expect(delays).toEqual([1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000])
  })

  test('maxAttempts 1 fails on the first error; a thrown non-Error is recorded as text', async () => {
    runner.register('once', () => { throw 'plain string' })
    const id = runner.enqueue('once', {}, { maxAttempts: 1 })!
    await runner.drain()
    expect(row(id)).toMatchObject({ status: 'failed', attempts: 1, last_error: 'plain string' })
  })

  test('a job without a registered handler fails like a throwing one', async () => {
    const id = runner.enqueue('nobody', {}, { maxAttempts: 1 })!
    await runner.drain()
    expect(row(id)).toMatchObject({ status: 'failed', last_error: 'no handler for job kind nobody' })
  })

  test('a failing job does not block the others', async () => {
    let ok = 0
    runner.register('bad', () => { throw new Error('x') })
    runner.register('good', () => { ok++ })
    const bad = runner.enqueue('bad', {}, { runAt: T0 + 1 })!
    const good = runner.enqueue('good', {}, { runAt: T0 + 1 })!
    await clock.advance(1)
    await runner.drain()
    expect(ok).toBe(1)
    expect(row(bad).status).toBe('pending')
    expect(row(good).status).toBe('done')
  })
})

describe('dedupeKey', () => {
  test('a second pending job with the same key is not created; it is allowed again once the first is done', async () => {
    const payloads: unknown[] = []
    runner.register('d', (p) => { payloads.push(p) })
    const first = runner.enqueue('d', { n: 1 }, { runAt: T0 + 1000, dedupeKey: 'same' })
    expect(first).not.toBeNull()
    expect(runner.enqueue('d', { n: 2 }, { runAt: T0 + 1000, dedupeKey: 'same' })).toBeNull()
    expect(runner.enqueue('d', { n: 3 }, { dedupeKey: 'same' })).toBeNull() // even when due now
    expect(rowsOf('d').length).toBe(1)

    await clock.advance(1000)
    await runner.drain()
    expect(payloads).toEqual([{ n: 1 }])
    expect(row(first!).status).toBe('done') // only a pending job holds the key

    const again = runner.enqueue('d', { n: 4 }, { runAt: T0 + 5000, dedupeKey: 'same' })
    expect(again).not.toBeNull()
    expect(again).not.toBe(first)
    expect(rowsOf('d').length).toBe(2)
  })

  test('the key is released after a permanent failure', async () => {
    runner.register('f', () => { throw new Error('x') })
    const first = runner.enqueue('f', {}, { dedupeKey: 'k', maxAttempts: 1 })
    await runner.drain()
    expect(row(first!).status).toBe('failed')
    expect(runner.enqueue('f', {}, { dedupeKey: 'k', runAt: T0 + 1000 })).not.toBeNull()
  })

  test('the key stays held while the job waits for a retry', async () => {
    runner.register('f', () => { throw new Error('x') })
    const first = runner.enqueue('f', {}, { dedupeKey: 'k', maxAttempts: 3 })
    await runner.drain()
    expect(row(first!).status).toBe('pending')
    expect(runner.enqueue('f', {}, { dedupeKey: 'k' })).toBeNull()
  })

  test('different keys and jobs without a key are independent', () => {
    expect(runner.enqueue('x', {}, { runAt: T0 + 1, dedupeKey: 'a' })).not.toBeNull()
    expect(runner.enqueue('x', {}, { runAt: T0 + 1, dedupeKey: 'b' })).not.toBeNull()
    expect(runner.enqueue('x', {}, { runAt: T0 + 1 })).not.toBeNull()
    expect(runner.enqueue('x', {}, { runAt: T0 + 1 })).not.toBeNull()
    expect(rowsOf('x').length).toBe(4)
  })

  // Regression: the dedupe index covers pending jobs only, so a running job can schedule its next run.
  test('a recurring job can schedule its next run with its own dedupeKey', async () => {
    let ran = 0
    runner.register('tick', () => {
      ran++
      runner.enqueue('tick', {}, { runAt: clock.now() + 1000, dedupeKey: 'tick' })
    })
    runner.enqueue('tick', {}, { dedupeKey: 'tick' })
    await runner.drain()
    await clock.advance(1000)
    await runner.drain()
    expect(ran).toBe(2)
  })

  test('jobs.prune reschedules itself a day later (same root cause)', async () => {
    runner.start(3_600_000)
    await clock.advance(60_000)
    const pending = rowsOf('jobs.prune').filter((r) => r.status === 'pending')
    expect(pending.map((r) => r.run_at)).toEqual([clock.now() + DAY])
  })
})

describe('crash recovery and concurrency', () => {
  test('a row left running by a crashed process is recovered to pending by start() and runs', async () => {
    const id = runner.enqueue('work', { n: 7 }, { runAt: T0 + 1 })!
    db.$client.run("UPDATE jobs SET status = 'running', attempts = 1 WHERE id = ?1", [id])
    // A fresh runner, as after a restart.
    const seen: { payload: unknown; attempts: number }[] = []
    const next = runnerOn(db, clock, log)
    extra.push(next)
    next.register('work', (payload, job) => { seen.push({ payload, attempts: job.attempts }) })
    await next.drain()
    expect(seen).toEqual([]) // drain alone does not pick up 'running' rows
    await clock.advance(1)
    next.start(3_600_000)
    await next.drain()
    expect(seen).toEqual([{ payload: { n: 7 }, attempts: 2 }])
    expect(row(id)).toMatchObject({ status: 'done', attempts: 2 })
  })

  test('start() schedules jobs.prune once, a minute out', async () => {
    runner.start(3_600_000)
    await runner.stop()
    const again = runnerOn(db, clock, log)
    extra.push(again)
    again.start(3_600_000)
    const prune = rowsOf('jobs.prune')
    expect(prune.map((r) => ({ status: r.status, run_at: r.run_at, dedupe_key: r.dedupe_key }))).toEqual([{ status: 'pending', run_at: T0 + 60_000, dedupe_key: 'jobs.prune' }])
  })

  test('jobs.prune deletes finished jobs older than 7 days and keeps the rest', async () => {
    runner.register('k', () => {})
    const ids = [1, 2, 3, 4].map(() => runner.enqueue('k', {}, { runAt: T0 + 10 * DAY })!)
    const set = (id: number, status: string, updatedAt: number) => db.$client.run('UPDATE jobs SET status = ?2, updated_at = ?3 WHERE id = ?1', [id, status, updatedAt])
    set(ids[0]!, 'done', T0 - 8 * DAY)
    set(ids[1]!, 'failed', T0 - 8 * DAY)
    set(ids[2]!, 'done', T0 - 6 * DAY)
    set(ids[3]!, 'pending', T0 - 30 * DAY)
    runner.start(3_600_000)
    await clock.advance(60_000) // the first prune is due one minute after start
    const left = (db.$client.query("SELECT id FROM jobs WHERE kind = 'k' ORDER BY id").all() as { id: number }[]).map((r) => r.id)
    expect(left).toEqual([ids[2]!, ids[3]!])
  })

  test('concurrent drain() calls do not run a job twice', async () => {
    const g = gate()
    const count = new Map<number, number>()
    runner.register('c', async (_p, job) => { count.set(job.id, (count.get(job.id) ?? 0) + 1); await g.p })
    const ids = [0, 1, 2, 3, 4].map((i) => runner.enqueue('c', { i }, { runAt: T0 + 1 })!)
    await clock.advance(1)
    const drains = [runner.drain(), runner.drain(), runner.drain()]
    await tick()
    drains.push(runner.drain())
    g.open()
    await Promise.all(drains)
    expect([...count.entries()].sort((a, b) => a[0] - b[0])).toEqual(ids.map((id) => [id, 1]))
    for (const id of ids) expect(row(id)).toMatchObject({ status: 'done', attempts: 1 })
  })

  test('a job enqueued while a pass is in flight is run by the drain that joined it', async () => {
    const g = gate()
    const ran: number[] = []
    runner.register('c', async (p: { n: number }) => { ran.push(p.n); if (p.n === 1) await g.p })
    runner.enqueue('c', { n: 1 })
    const first = runner.drain()
    await tick()
    runner.enqueue('c', { n: 2 })
    const second = runner.drain()
    g.open()
    await Promise.all([first, second])
    expect(ran).toEqual([1, 2])
  })

  test('two runners on the same database (two processes) never run a job twice', async () => {
    const other = runnerOn(db, clock, log)
    extra.push(other)
    const g = gate()
    const count = new Map<number, number>()
    const handler = async (_p: unknown, job: JobRow) => { count.set(job.id, (count.get(job.id) ?? 0) + 1); await g.p }
    runner.register('c', handler)
    other.register('c', handler)
    const ids = [0, 1, 2, 3].map((i) => runner.enqueue('c', { i }, { runAt: T0 + 1 })!)
    await clock.advance(1)
    const both = [runner.drain(), other.drain()]
    await tick()
    g.open()
    await Promise.all(both)
    expect(ids.map((id) => count.get(id))).toEqual([1, 1, 1, 1])
  })
})

describe('claimed at enqueue', () => {
  test('a due job is claimed inside the enqueuing transaction: the row is running before the transaction ends', () => {
    runner.register('c', () => {})
    let inside: Row | null = null
    const id = db.$client.transaction(() => {
      const id = runner.enqueue('c', { n: 1 })!
      inside = row(id)
      return id
    })()
    expect(inside!).toMatchObject({ status: 'running', attempts: 1 })
    expect(row(id)).toMatchObject({ status: 'running', attempts: 1 })
  })

  test('a job whose transaction rolled back never runs, and the job that reuses its id runs once with its own payload', async () => {
    const ran: unknown[] = []
    runner.register('c', (p) => { ran.push(p) })
    const ids: number[] = []
    db.$client.transaction(() => {
      try {
        db.$client.transaction(() => { ids.push(runner.enqueue('c', { n: 'rolled back' })!); throw new Error('undo') })()
      } catch { /* the savepoint is rolled back, the outer transaction goes on */ }
      ids.push(runner.enqueue('c', { n: 'kept' })!)
    })()
    expect(ids[0]).toBe(ids[1]!) // AUTOINCREMENT hands the rolled-back id out again
    await runner.drain()
    expect(ran).toEqual([{ n: 'kept' }])
    expect(row(ids[1]!)).toMatchObject({ status: 'done', attempts: 1, payload: JSON.stringify({ n: 'kept' }) })
  })

  test('with no room left, a due job stays pending and starts when a running one finishes', async () => {
    const small = runnerOn(db, clock, log, 1)
    extra.push(small)
    const g = gate()
    const ran: number[] = []
    small.register('c', async (p: { n: number }) => { ran.push(p.n); if (p.n === 1) await g.p })
    const a = small.enqueue('c', { n: 1 })!
    const b = small.enqueue('c', { n: 2 })!
    await tick()
    expect(row(a).status).toBe('running')
    expect(row(b)).toMatchObject({ status: 'pending', attempts: 0 })
    g.open()
    await small.drain()
    expect(ran).toEqual([1, 2])
    expect(row(b)).toMatchObject({ status: 'done', attempts: 1 })
  })
})

describe('finishIn', () => {
  test('a handler records its job done in its own transaction; the runner writes nothing after it', async () => {
    let updatedInside = 0
    runner.register('f', (_p, job) => {
      db.$client.transaction(() => { runner.finishIn(job) })()
      updatedInside = row(job.id).updated_at
      setSystemTime(new Date(T0 + 5000)) // a later write by the runner would show a later updated_at
    })
    const id = runner.enqueue('f', {})!
    await runner.drain()
    expect(row(id)).toMatchObject({ status: 'done', attempts: 1, updated_at: updatedInside })
  })

  test('a handler that throws after finishIn in a rolled-back transaction is retried as usual', async () => {
    let calls = 0
    runner.register('f', (_p, job) => {
      calls++
      db.$client.transaction(() => { runner.finishIn(job); throw new Error('commit failed') })()
    })
    const id = runner.enqueue('f', {}, { maxAttempts: 2 })!
    await runner.drain()
    expect(calls).toBe(1)
    expect(row(id)).toMatchObject({ status: 'pending', attempts: 1, last_error: 'commit failed' })
  })
})

describe('without a row (enqueueInline)', () => {
  const allRows = () => db.$client.query('SELECT * FROM jobs ORDER BY id').all() as Row[]
  const started = () => { runner.start(3_600_000); return runner.drain() } // the poll timer never fires during the test

  test('runs once its transaction is over if committed() holds, and writes no row', async () => {
    await started()
    const before = allRows()
    const ran: { p: unknown; job: JobRow }[] = []
    runner.register('i', (p, job) => { ran.push({ p, job }); runner.finishIn(job) })
    let inside = -1
    db.$client.transaction(() => {
      expect(runner.enqueueInline('i', { n: 1 }, { dedupeKey: 'i:1', committed: () => true })).toBe(true)
      inside = ran.length
    })()
    expect(inside).toBe(0) // not before the transaction is over
    await runner.drain()
    expect(ran).toHaveLength(1)
    expect(ran[0]!.p).toEqual({ n: 1 })
    expect(ran[0]!.job.id).toBeLessThan(0)
    expect(ran[0]!.job.attempts).toBe(1)
    expect(allRows()).toEqual(before) // nothing written, before or after
  })

  test('does not run when committed() is false once the transaction is over (rolled back), and says so to abandoned()', async () => {
    await started()
    let ran = 0
    let abandoned = 0
    runner.register('i', () => { ran++ })
    let kept = false
    try {
      db.$client.transaction(() => {
        runner.enqueueInline('i', {}, { committed: () => kept, abandoned: () => { abandoned++ } })
        throw new Error('undo')
      })()
    } catch { /* rolled back */ }
    await runner.drain()
    expect({ ran, abandoned }).toEqual({ ran: 0, abandoned: 1 })
    kept = true
    runner.enqueueInline('i', {}, { committed: () => kept, abandoned: () => { abandoned++ } })
    await runner.drain()
    expect({ ran, abandoned }).toEqual({ ran: 1, abandoned: 1 })
  })

  test('a failed run becomes a pending row: its retry, first attempt counted, with backoff; then like any job', async () => {
    await started()
    let calls = 0
    runner.register('i', () => { calls++; if (calls < 3) throw new Error(`boom ${calls}`) })
    runner.enqueueInline('i', { x: 1 }, { dedupeKey: 'i:x', maxAttempts: 5, committed: () => true })
    await runner.drain()
    expect(calls).toBe(1)
    const [r] = rowsOf('i')
    expect(r).toMatchObject({ status: 'pending', attempts: 1, max_attempts: 5, dedupe_key: 'i:x', last_error: 'boom 1', run_at: T0 + 1000, payload: JSON.stringify({ x: 1 }) })
    expect(runner.enqueue('i', { x: 1 }, { dedupeKey: 'i:x' })).toBeNull() // the key is held by the retry
    await clock.advance(1000)
    await runner.drain()
    expect(row(r!.id)).toMatchObject({ status: 'pending', attempts: 2, last_error: 'boom 2', run_at: T0 + 1000 + 2000 })
    await clock.advance(2000)
    await runner.drain()
    expect(calls).toBe(3)
    expect(row(r!.id)).toMatchObject({ status: 'done', attempts: 3 })
  })

  test('a run with one attempt that fails leaves no row', async () => {
    await started()
    runner.register('i', () => { throw new Error('once') })
    runner.enqueueInline('i', {}, { maxAttempts: 1, committed: () => true })
    await runner.drain()
    expect(rowsOf('i')).toEqual([])
  })

  test('false (enqueue it instead) before start(), and when the runner has no room', async () => {
    const small = runnerOn(db, clock, log, 1)
    extra.push(small)
    const g = gate()
    small.register('i', async () => { await g.p })
    expect(small.enqueueInline('i', {}, { committed: () => true })).toBe(false) // not started
    small.start(3_600_000)
    await small.drain()
    expect(small.enqueueInline('i', {}, { committed: () => true })).toBe(true)
    expect(small.enqueueInline('i', {}, { committed: () => true })).toBe(false) // the one slot is taken
    g.open()
    await small.drain()
  })

  test('start-up hooks run after the recovery, before anything is claimed; a recovered row keeps its key', async () => {
    runner.register('r', () => {})
    db.$client.query("INSERT INTO jobs (kind, payload, status, run_at, max_attempts, dedupe_key, attempts, created_at, updated_at) VALUES ('r', '{}', 'running', ?1, 5, 'r:1', 1, ?1, ?1)").run(T0)
    const seen: Row[][] = []
    runner.addStartupHook(() => {
      seen.push(rowsOf('r'))
      expect(runner.enqueue('r', {}, { dedupeKey: 'r:1' })).toBeNull() // recovered to pending: holds its key
      expect(runner.enqueue('r', {}, { dedupeKey: 'r:2' })).toBeGreaterThan(0) // pending, not claimed
    })
    await started()
    expect(seen).toHaveLength(1)
    expect(seen[0]!.map((r) => r.status)).toEqual(['pending'])
    expect(rowsOf('r').map((r) => [r.dedupe_key, r.status])).toEqual([['r:1', 'done'], ['r:2', 'done']])
  })
})

describe('Clock on the database', () => {
  test('the offset persists in the meta table across a new Clock on the same db', async () => {
    expect(clock.offset()).toBe(0)
    expect(await clock.advance(5000)).toBe(T0 + 5000)
    await clock.advance(2500)
    expect(db.$client.query("SELECT value FROM meta WHERE key = 'clock.offsetMs'").get()).toEqual({ value: '7500' })
    const reopened = new Clock(new MetaRepository(db))
    expect(reopened.offset()).toBe(7500)
    expect(reopened.now()).toBe(T0 + 7500)
    expect(reopened.iso()).toBe(new Date(T0 + 7500).toISOString())
    expect(reopened.date().getTime()).toBe(T0 + 7500)
  })

  test('advance rejects negative and non-finite values and leaves the offset unchanged', async () => {
    await clock.advance(1000)
    for (const bad of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      await expect(clock.advance(bad)).rejects.toBeInstanceOf(RangeError)
    }
    expect(clock.offset()).toBe(1000)
    expect(new Clock(new MetaRepository(db)).offset()).toBe(1000)
    expect(await clock.advance(0)).toBe(T0 + 1000)
  })

  test('advance waits for async listeners and passes them the new time', async () => {
    const seen: number[] = []
    clock.onAdvance(async (now) => { await tick(); seen.push(now) })
    await clock.advance(10)
    expect(seen).toEqual([T0 + 10])
  })

  test('a Clock without a database starts at offset 0', async () => {
    const c = new Clock()
    await c.advance(100)
    expect(c.now()).toBe(T0 + 100)
    expect(new Clock(new MetaRepository(db)).offset()).toBe(0)
  })
})
