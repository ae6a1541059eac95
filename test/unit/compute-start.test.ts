// ComputeService.start: a provider call started before its task's admission commits (the request
// travels while the COMMIT is written). Against a real HTTP fake provider on loopback: the started
// call is the first attempt of tryRun (one request, not two), it holds its key's slot until it
// settles, abort() ends it at the provider and frees the slot, a failing started call is retried on
// another key like any first attempt, and without a free key (or for the builtin model) nothing starts.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Clock } from '../../src/clock'
import { ComputeRepository } from '../../src/compute/repository'
import { SqliteTransactor } from '../../src/db/transactor'
import { ComputeService } from '../../src/compute/service'
import { migrate, openDb, type Db } from '../../src/db'
import { createLogger } from '../../src/log'
import { FakeLLM, gate } from '../helpers/fake-llm'

let fake: FakeLLM
let dir: string
let db: Db
let compute: ComputeService
beforeAll(async () => { fake = await FakeLLM.start() })
afterAll(() => fake.stop())
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tg-compute-start-'))
  db = openDb(dir)
  migrate(db)
  compute = new ComputeService(new ComputeRepository(db), new SqliteTransactor(db.$client), new Clock(), createLogger('silent'), 5000, Buffer.alloc(32, 7))
})
afterEach(() => {
  db.$client.close()
  rmSync(dir, { recursive: true, force: true })
})

let n = 0
/** A provider of fresh keys (concurrency 1 each) for a fresh model. */
function provider(keys: string[]): string {
  const model = `m-${++n}`
  for (const k of keys) fake.set(k, {})
  compute.create({ name: `p-${n}`, kind: 'openai', baseUrl: fake.baseUrl, models: [model], keys: keys.map((key) => ({ key, rpm: 1000, concurrency: 1 })) })
  return model
}
const req = (model: string) => ({ model, taskType: 'general', messages: [{ role: 'user' as const, content: 'hello' }] })

describe('ComputeService.start', () => {
  test('the started call is tryRun\'s first attempt: one request, the answer, and its key busy until it settles', async () => {
    const key = `sk-start-${n}-a`
    const model = provider([key])
    const g = gate()
    fake.next(key, { gate: g, content: 'early answer' })
    const started = compute.start(req(model))!
    expect(started).not.toBeNull()
    await fake.waitForRequest((r) => r.key === key)
    expect(compute.hasCapacity(model)).toBe(false) // its one slot is taken by the call in flight
    const run = compute.tryRun(req(model), started)
    g.release()
    const r = await run
    expect(r === 'busy' ? r : r.output).toBe('early answer')
    expect(fake.requestsFor(key)).toHaveLength(1)
    expect(compute.hasCapacity(model)).toBe(true)
  })

  test('abort() ends the call at the provider and frees its key', async () => {
    const key = `sk-start-${n}-b`
    const model = provider([key])
    fake.next(key, { gate: gate() }) // never released: only the abort ends it
    const started = compute.start(req(model))!
    const rec = await fake.waitForRequest((r) => r.key === key)
    started.abort()
    expect(await started.call.then(() => 'answered', (e: Error) => e.message)).toBe('provider unreachable')
    expect(compute.hasCapacity(model)).toBe(true)
    for (let i = 0; i < 50 && !rec.aborted; i++) await Bun.sleep(10) // the provider sees the connection go
    expect(rec.aborted).toBe(true)
  })

  test('a started call that fails (429) is retried on another key, as any first attempt', async () => {
    const [a, b] = [`sk-start-${n}-c1`, `sk-start-${n}-c2`]
    const model = provider([a, b])
    fake.next(a, { status: 429, retryAfter: '60' })
    const started = compute.start(req(model))!
    const r = await compute.tryRun(req(model), started)
    expect(r === 'busy' ? r : r.output).toBe('fake completion')
    expect([fake.requestsFor(a).length, fake.requestsFor(b).length]).toEqual([1, 1])
  })

  test('nothing starts without a free key, nor for the builtin model', async () => {
    const key = `sk-start-${n}-d`
    const model = provider([key])
    const g = gate()
    fake.next(key, { gate: g })
    const first = compute.start(req(model))!
    expect(compute.start(req(model))).toBeNull()
    expect(compute.start(req('builtin'))).toBeNull()
    g.release()
    await first.call
    expect(fake.requestsFor(key)).toHaveLength(1)
  })
})
