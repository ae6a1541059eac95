// Agent-bound keys over real HTTP (docs/security.md, "An agent key"): an agent key reads only its
// own agent's tasks, task events and compute jobs (another agent's → 404), and acts only for its
// own agent (another agent's id → 403 AGENT_KEY_MISMATCH, nothing charged); operator keys and the
// bearer token read all of the operator's. Also: compute Idempotency-Key replays (answered before
// any credit check, charged once), and the per-operator rate limit of bearer tokens.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { FakeLLM, gate } from '../helpers/fake-llm'
import { expectProblem, startServer, type TestServer } from '../helpers/server'

let s: TestServer
let fake: FakeLLM
let op: string
let opKey: { key: string; id: string }
let other: string
let X: { agentId: string; apiKey: string }
let Y: { agentId: string; apiKey: string }
const NARROW = `sk-scope-narrow-${crypto.randomUUID()}`

beforeAll(async () => {
  fake = await FakeLLM.start()
  s = await startServer({ TASKGATE_TASK_COST: JSON.stringify({ default: 1, data_analysis: 40 }), TASKGATE_PROVIDER_TIMEOUT_MS: '60000' })
  const admin = await s.setupAdmin()
  const p = await s.post('/api/v1/admin/providers', { name: 'narrow', kind: 'openai', baseUrl: fake.baseUrl, models: ['fake-narrow'], keys: [{ key: NARROW, concurrency: 1 }] }, { token: admin })
  expect(p.status).toBe(201)
  op = await s.signup('scope-op')
  other = await s.signup('scope-other')
  opKey = await s.createKey(op, 'operator key')
  const reg = (name: string) => s.post('/api/v1/agents/register', { displayName: name, capabilities: ['general', 'data_analysis'] }, { token: op })
  X = (await reg('Agent X')).body
  Y = (await reg('Agent Y')).body
  expect(X.apiKey).toBeString()
  expect(Y.apiKey).toBeString()
}, 30_000)
afterAll(async () => {
  await s?.cleanup()
  fake?.stop()
})

const balance = async (token = op) => (await s.get('/api/v1/operator/billing', { token })).body.balance.balance as number

/** Status of an event-stream route without reading the stream (it may stay open). */
async function streamStatus(path: string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const ac = new AbortController()
  const res = await fetch(s.url + path, { headers, signal: ac.signal })
  const ct = res.headers.get('content-type') ?? ''
  const text = ct.includes('json') ? await res.text() : null
  ac.abort()
  await s.checkContract('GET', path, { status: res.status, headers: res.headers, text })
  return { status: res.status, body: text ? JSON.parse(text) : null }
}

async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, tries = 250, ms = 20): Promise<T> {
  let v!: T
  for (let i = 0; i < tries; i++) {
    v = await fn()
    if (ok(v)) return v
    await Bun.sleep(ms)
  }
  throw new Error(`condition not met; last value: ${JSON.stringify(v).slice(0, 500)}`)
}

describe('tasks', () => {
  let taskY: any

  beforeAll(async () => {
    const r = await s.post('/api/v1/tasks/submit', { agentId: Y.agentId, taskType: 'general', prompt: 'Private prompt of agent Y. Only Y and its operator may read it.' }, { key: Y.apiKey })
    expect(r.status).toBe(200)
    taskY = r.body
  })

  test('an agent key cannot read another agent\'s task (404); the owner views stay as they were', async () => {
    const asX = await s.get(`/api/v1/tasks/${taskY.id}`, { key: X.apiKey })
    expectProblem(asX, 404, 'NOT_FOUND')
    expect(asX.text).not.toContain('Private prompt')

    for (const auth of [{ key: Y.apiKey }, { key: opKey.key }, { token: op }]) {
      const r = await s.get(`/api/v1/tasks/${taskY.id}`, auth)
      expect(r.status).toBe(200)
      expect(r.body.prompt).toBe('Private prompt of agent Y. Only Y and its operator may read it.')
      expect(r.body.output).toBeString()
      expect(r.body.timeline.length).toBeGreaterThan(0)
    }
    for (const auth of [{}, { token: other }]) {
      const r = await s.get(`/api/v1/tasks/${taskY.id}`, auth)
      expect(r.status).toBe(200)
      expect(r.body.id).toBe(taskY.id)
      expect(r.body.prompt).toBeUndefined()
      expect(r.body.output).toBeUndefined()
    }
  })

  test('an agent key cannot follow another agent\'s task events (404); the owner can', async () => {
    const path = `/api/v1/tasks/${taskY.id}/events`
    const asX = await streamStatus(path, { 'x-api-key': X.apiKey })
    expect(asX.status).toBe(404)
    expect(asX.body.code).toBe('NOT_FOUND')
    for (const headers of [{ 'x-api-key': Y.apiKey }, { 'x-api-key': opKey.key }, { authorization: `Bearer ${op}` }] as Record<string, string>[]) {
      const r = await fetch(s.url + path, { headers })
      expect(r.status).toBe(200)
      expect(await r.text()).toContain('"name":"receipt"') // a finished task replays and ends
    }
    expect((await streamStatus(path, { authorization: `Bearer ${other}` })).status).toBe(404)
  })

  test('an agent key cannot submit for another agent (403 AGENT_KEY_MISMATCH) and is not charged', async () => {
    const b0 = await balance()
    expectProblem(await s.post('/api/v1/tasks/submit', { agentId: Y.agentId, taskType: 'general', prompt: 'Charge Y for this.' }, { key: X.apiKey }), 403, 'AGENT_KEY_MISMATCH')
    expect(await balance()).toBe(b0)
  })
})

describe('compute jobs', () => {
  test('POST /api/v1/compute with an agent key naming another agent: 403 AGENT_KEY_MISMATCH, nothing charged', async () => {
    const b0 = await balance()
    const r = await s.post('/api/v1/compute', { model: 'builtin', prompt: 'Bill agent Y for my work.', agentId: Y.agentId }, { key: X.apiKey })
    expectProblem(r, 403, 'AGENT_KEY_MISMATCH')
    const again = await s.post('/api/v1/compute', { model: 'builtin', prompt: 'Bill agent Y for my work.', agentId: Y.agentId, taskType: 'data_analysis' }, { key: X.apiKey, headers: { 'idempotency-key': 'mismatch-1' } })
    expectProblem(again, 403, 'AGENT_KEY_MISMATCH')
    expect(await balance()).toBe(b0)
    // naming its own agent is fine
    const own = await s.post('/api/v1/compute', { model: 'builtin', prompt: 'My own work. It is small.', agentId: X.agentId }, { key: X.apiKey })
    expect(own.status).toBe(202)
    expect(await balance()).toBe(b0 - 1)
  })

  test('a job\'s status stream is readable by its agent\'s key and the operator, not by another agent\'s key', async () => {
    const jobs = {
      byYKey: (await s.post('/api/v1/compute', { model: 'builtin', prompt: 'Job of Y. Sent with its key.' }, { key: Y.apiKey })).body,
      namingY: (await s.post('/api/v1/compute', { model: 'builtin', prompt: 'Job for Y. Sent by the operator.', agentId: Y.agentId }, { token: op })).body,
    }
    for (const job of Object.values(jobs)) {
      expect(job.jobId).toMatch(/^job_/)
      const asX = await streamStatus(job.statusUrl, { 'x-api-key': X.apiKey })
      expect(asX.status).toBe(404)
      expect(asX.body.code).toBe('NOT_FOUND')
      for (const headers of [{ 'x-api-key': Y.apiKey }, { 'x-api-key': opKey.key }, { authorization: `Bearer ${op}` }] as Record<string, string>[]) {
        const r = await fetch(s.url + job.statusUrl, { headers })
        expect(r.status).toBe(200)
        expect(await r.text()).toContain('event: completed')
      }
      expect((await streamStatus(job.statusUrl, { authorization: `Bearer ${other}` })).status).toBe(404)
    }
    // a job of the operator bound to no agent: operator credentials only
    const unbound = (await s.post('/api/v1/compute', { model: 'builtin', prompt: 'Operator job. No agent.' }, { key: opKey.key })).body
    expect((await streamStatus(unbound.statusUrl, { 'x-api-key': X.apiKey })).status).toBe(404)
    expect((await streamStatus(unbound.statusUrl, { authorization: `Bearer ${op}` })).status).toBe(200)
  })

  test('the overflow job of a queued task belongs to the task\'s agent', async () => {
    const g = gate()
    fake.set(NARROW, { content: 'narrow answer', gate: g })
    try {
      const submit = (prompt: string) => s.post('/api/v1/tasks/submit?wait=0', { agentId: Y.agentId, taskType: 'general', prompt, model: 'fake-narrow' }, { token: op })
      const t1 = await submit('Holds the only slot.')
      await fake.waitForRequest((r) => r.key === NARROW)
      const t2 = await submit('Parked in the overflow queue.')
      const queued = await until(async () => (await s.get(`/api/v1/tasks/${t2.body.id}`, { token: op })).body, (t) => t.status === 'QUEUED')
      const statusUrl = `/api/v1/compute/${queued.computeJobId}/status`
      const asX = await streamStatus(statusUrl, { 'x-api-key': X.apiKey })
      expect(asX.status).toBe(404)
      expect((await streamStatus(statusUrl, { 'x-api-key': Y.apiKey })).status).toBe(200)
      expect((await streamStatus(statusUrl, { authorization: `Bearer ${op}` })).status).toBe(200)
      g.release()
      await until(async () => (await s.get(`/api/v1/tasks/${t1.body.id}`, { token: op })).body, (t) => t.status === 'COMPLETED')
      await until(async () => (await s.get(`/api/v1/tasks/${t2.body.id}`, { token: op })).body, (t) => t.status === 'COMPLETED')
    } finally {
      g.release()
    }
  }, 20_000)
})

describe('compute Idempotency-Key', () => {
  test('a replay answers the original 202 before any credit check and is charged once; another body → 409', async () => {
    const tok = await s.signup('idem-op')
    const post = (body: Record<string, unknown>, key: string, token = tok) => s.post('/api/v1/compute', body, { token, headers: { 'idempotency-key': key } })
    const body = { model: 'builtin', prompt: 'Analyse these numbers: 3 1 4 1 5.', taskType: 'data_analysis' }
    expect(await balance(tok)).toBe(100)

    const r1 = await post(body, 'idem-1')
    expect(r1.status).toBe(202)
    expect(r1.headers.get('idempotent-replayed')).toBeNull()
    expect(await balance(tok)).toBe(60)

    const r2 = await post(body, 'idem-1')
    expect(r2.status).toBe(202)
    expect(r2.headers.get('idempotent-replayed')).toBe('true')
    expect(r2.body).toEqual(r1.body)
    expect(await balance(tok)).toBe(60)

    expectProblem(await post({ ...body, prompt: 'Something else entirely.' }, 'idem-1'), 409, 'IDEMPOTENCY_KEY_REUSED')
    expectProblem(await post({ ...body, taskType: 'general' }, 'idem-1'), 409, 'IDEMPOTENCY_KEY_REUSED')
    expect(await balance(tok)).toBe(60)

    expect((await post(body, 'idem-2')).status).toBe(202) // a new key is a new job
    expect(await balance(tok)).toBe(20)

    // 20 credits left, the job costs 40: a replay still answers (no credit check), a new key is refused
    const r3 = await post(body, 'idem-1')
    expect(r3.status).toBe(202)
    expect(r3.body).toEqual(r1.body)
    expect(r3.headers.get('idempotent-replayed')).toBe('true')
    expectProblem(await post(body, 'idem-3'), 402, 'INSUFFICIENT_CREDITS')
    expect(await balance(tok)).toBe(20)

    // the job ran once
    const events = await (await fetch(`${s.url}${r1.body.statusUrl}?access_token=${tok}`)).text()
    expect(events).toContain('event: completed')

    // keys are per operator
    const theirs = await post(body, 'idem-1', op)
    expect(theirs.status).toBe(202)
    expect(theirs.body.jobId).not.toBe(r1.body.jobId)
    expectProblem(await post(body, 'x'.repeat(256)), 400, 'INVALID_IDEMPOTENCY_KEY')
  })

  test('concurrent twins with one Idempotency-Key make one job and one charge', async () => {
    const tok = await s.signup('idem-twins')
    const body = { model: 'builtin', prompt: 'Twins arrive together. Only one runs.' }
    const rs = await Promise.all(Array.from({ length: 5 }, () => s.post('/api/v1/compute', body, { token: tok, headers: { 'idempotency-key': 'twin' } })))
    for (const r of rs) expect(r.status).toBe(202)
    expect(new Set(rs.map((r) => r.body.jobId)).size).toBe(1)
    expect(await balance(tok)).toBe(99)
  })
})

describe('bearer tokens are rate-limited per operator', () => {
  let t: TestServer
  let admin: string

  beforeAll(async () => {
    t = await startServer({ TASKGATE_BEARER_RPM: '5', TASKGATE_TEST_CLOCK: '1' })
    admin = await t.setupAdmin()
  }, 30_000)
  afterAll(async () => { await t?.cleanup() })

  test('past TASKGATE_BEARER_RPM requests a minute: 429 RATE_LIMITED with Retry-After; RateLimit-* headers on every answer', async () => {
    const tok = await t.signup('busy-bearer')
    const key = await t.createKey(tok, 'own budget') // request 1 of 5
    const second = await t.signup('quiet-bearer')
    for (let i = 2; i <= 5; i++) {
      const r = await t.get('/api/v1/auth/me', { token: tok })
      expect(r.status).toBe(200)
      expect(r.headers.get('ratelimit-limit')).toBe('5')
      expect(r.headers.get('ratelimit-policy')).toBe('5;w=60')
      expect(r.headers.get('ratelimit-remaining')).toBe(String(5 - i))
    }
    const limited = await t.get('/api/v1/auth/me', { token: tok })
    expectProblem(limited, 429, 'RATE_LIMITED')
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(limited.headers.get('ratelimit-remaining')).toBe('0')
    // ?access_token= on an event stream counts too
    expectProblem(await t.get('/api/v1/tasks/task_nope/events?access_token=' + tok), 429, 'RATE_LIMITED')
    // every other token of the same operator shares the budget
    const login = await t.post('/api/v1/auth/login', { login: 'busy-bearer', password: 'operator-password' })
    expect(login.status).toBe(200)
    expectProblem(await t.get('/api/v1/operator/keys', { token: login.body.accessToken }), 429, 'RATE_LIMITED')
    // other operators, and the operator's API keys, have their own budgets
    expect((await t.get('/api/v1/auth/me', { token: second })).status).toBe(200)
    expect((await t.get('/api/v1/whoami', { key: key.key })).status).toBe(200)
    // the window slides on
    expect((await t.post('/api/v1/admin/clock/advance', { ms: 121_000 }, { token: admin })).status).toBe(200)
    expect((await t.get('/api/v1/auth/me', { token: tok })).status).toBe(200)
  }, 20_000)
})
