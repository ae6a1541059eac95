// Compute over real HTTP: the admin provider registry, tasks through OpenAI- and Anthropic-style
// providers (a fake LLM on loopback), the key pool (retry on another key, cooldown, timeouts, RPM),
// refunds, the overflow queue and its SSE status stream, and POST /api/v1/compute.
import { withTestDb } from '../helpers/data'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { FakeLLM, gate } from '../helpers/fake-llm'
import { expectProblem, startServer, type TestServer } from '../helpers/server'

const PROVIDER_TIMEOUT_MS = 2000

let s: TestServer
let fake: FakeLLM
let admin: string
let op: string
let other: string
let agent: { agentId: string; apiKey: string }

/** Every response body the server sent in this file (checked for provider secrets at the end). */
const seen: string[] = []
/** Every provider key handed to the server. */
const SECRETS: string[] = []
/** A fresh provider key; its last 4 characters are unique in this file, so keyPrefix identifies it. */
const secret = (name: string) => { const k = `sk-fake-${name}-${crypto.randomUUID()}-${String(SECRETS.length + 1).padStart(4, '0')}`; SECRETS.push(k); return k }
const masked = (key: string) => `${key.slice(0, 4)}...${key.slice(-4)}`

beforeAll(async () => {
  fake = await FakeLLM.start()
  s = await startServer({
    TASKGATE_PROVIDER_TIMEOUT_MS: String(PROVIDER_TIMEOUT_MS),
    TASKGATE_TEST_CLOCK: '1',
    TASKGATE_TASK_COST: JSON.stringify({ default: 1, data_analysis: 40 }),
    TASKGATE_SSE_PING_MS: '200',
  })
  const req = s.req.bind(s)
  s.req = (async (...a: Parameters<TestServer['req']>) => { const r = await req(...a); seen.push(r.text); return r }) as TestServer['req']
  admin = await s.setupAdmin()
  op = await s.signup('compute-op')
  other = await s.signup('compute-other')
  const r = await s.post('/api/v1/agents/register', { displayName: 'Compute Bot', capabilities: ['general', 'data_analysis'] }, { token: op })
  expect(r.status).toBe(201)
  agent = r.body
}, 30_000) // start-up plus three password hashes: slow on a loaded machine
afterAll(async () => {
  await s?.cleanup()
  fake?.stop()
})

// ---------- helpers ----------

async function addProvider(body: Record<string, unknown>): Promise<any> {
  const r = await s.post('/api/v1/admin/providers', body, { token: admin })
  if (r.status !== 201) throw new Error(`provider create failed: ${r.status} ${r.text}`)
  return r.body
}

async function providerView(name: string): Promise<any> {
  const r = await s.get('/api/v1/admin/providers', { token: admin })
  expect(r.status).toBe(200)
  const p = r.body.find((x: any) => x.name === name)
  if (!p) throw new Error(`provider ${name} not listed`)
  return p
}

function submit(body: Record<string, unknown>, o: { wait?: number; key?: string; token?: string } = {}) {
  const q = o.wait === undefined ? '' : `?wait=${o.wait}`
  const auth = o.key ? { key: o.key } : { token: o.token ?? op }
  return s.post(`/api/v1/tasks/submit${q}`, { agentId: agent.agentId, taskType: 'general', ...body }, auth)
}

/** Calls fn until ok(value) holds, a bounded number of times. */
async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, tries = 150, ms = 20): Promise<T> {
  let v!: T
  for (let i = 0; i < tries; i++) {
    v = await fn()
    if (ok(v)) return v
    await Bun.sleep(ms)
  }
  throw new Error(`condition not met after ${tries} tries; last value: ${JSON.stringify(v).slice(0, 800)}`)
}

/** The admin view of one key of a provider view, found by its masked prefix. */
function keyOf(view: any, key: string): any {
  const k = view.keys.find((x: any) => x.keyPrefix === masked(key))
  if (!k) throw new Error(`key ${masked(key)} not in ${JSON.stringify(view.keys)}`)
  return k
}

const getTask = async (id: string, token = op) => (await s.get(`/api/v1/tasks/${id}`, { token })).body
const taskUntil = (id: string, status: string) => until(() => getTask(id), (t) => t.status === status || (status !== 'FAILED' && t.status === 'FAILED'))

interface SseEvent { id: number; event: string; data: any }

/** Reads an SSE response incrementally; next() never loses a chunk when it times out. */
class Sse {
  raw = ''
  retry: number | null = null
  private buf = ''
  private dec = new TextDecoder()
  private queue: SseEvent[] = []
  private ended = false
  private reading: ReturnType<ReadableStreamDefaultReader<Uint8Array>["read"]> | null = null
  private reader: ReadableStreamDefaultReader<Uint8Array>

  constructor(public res: Response, private ac: AbortController) { this.reader = res.body!.getReader() }

  static async open(path: string, headers: Record<string, string> = {}): Promise<Sse> {
    const ac = new AbortController()
    const res = await fetch(s.url + path, { headers, signal: ac.signal })
    await s.checkContract('GET', path, { status: res.status, headers: res.headers, text: null }) // status and type; the stream stays unread
    return new Sse(res, ac)
  }

  /** The next event, or null once the server ended the stream. */
  async next(ms = 5000): Promise<SseEvent | null> {
    const deadline = Date.now() + ms
    for (;;) {
      if (this.queue.length) return this.queue.shift()!
      if (this.ended) return null
      const left = deadline - Date.now()
      if (left <= 0) throw new Error(`SSE: no event within ${ms} ms; got so far:\n${this.raw}`)
      this.reading ??= this.reader.read()
      let timer: ReturnType<typeof setTimeout> | undefined
      const r = await Promise.race([this.reading, new Promise<'timeout'>((res) => { timer = setTimeout(() => res('timeout'), left) })])
      clearTimeout(timer)
      if (r === 'timeout') continue
      this.reading = null
      if (r.done) { this.ended = true; this.parse(); continue }
      const text = this.dec.decode(r.value, { stream: true })
      this.raw += text
      this.buf += text
      this.parse()
    }
  }

  /** Every remaining event until the server ends the stream. */
  async rest(ms = 5000): Promise<SseEvent[]> {
    const out: SseEvent[] = []
    for (let e = await this.next(ms); e; e = await this.next(ms)) out.push(e)
    return out
  }

  close(): void {
    this.ac.abort()
    this.reader.cancel().catch(() => {})
  }

  private parse(): void {
    const blocks = this.buf.split(/\r?\n\r?\n/)
    this.buf = blocks.pop() ?? ''
    for (const block of blocks) {
      let id: string | undefined, event: string | undefined
      const data: string[] = []
      for (const line of block.split(/\r?\n/)) {
        if (line.startsWith(':') || line === '') continue
        const i = line.indexOf(':')
        const field = i < 0 ? line : line.slice(0, i)
        const value = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '')
        if (field === 'id') id = value
        else if (field === 'event') event = value
        else if (field === 'data') data.push(value)
        else if (field === 'retry') this.retry = Number(value)
      }
      if (event === undefined && data.length === 0) continue
      seen.push(block)
      this.queue.push({ id: id === undefined ? NaN : Number(id), event: event ?? 'message', data: data.length ? JSON.parse(data.join('\n')) : null })
    }
  }
}

/** Opens a job's status stream and reads it to the end. */
async function jobEvents(path: string, headers: Record<string, string> = {}): Promise<SseEvent[]> {
  const sse = await Sse.open(path, headers)
  expect(sse.res.status).toBe(200)
  expect(sse.res.headers.get('content-type')).toBe('text/event-stream')
  return sse.rest()
}

// ---------- providers used across the file ----------

const K = {
  basic: secret('basic'), basic2: secret('basic2'), ant: secret('ant'),
}
const OPENAI_ANSWER = 'Paris is the capital of France; it sits on the Seine.'
const ANTHROPIC_ANSWER = 'Photosynthesis turns light, water and carbon dioxide into sugar and oxygen.'

describe('admin provider API', () => {
  test('a fresh install lists the builtin provider', async () => {
    const r = await s.get('/api/v1/admin/providers', { token: admin })
    expect(r.status).toBe(200)
    expect(r.body).toEqual([{ id: 'prov_builtin', name: 'builtin', kind: 'builtin', baseUrl: null, models: ['builtin'], keys: [] }])
  })

  test('POST creates a provider: 201 with masked keys and defaults; GET lists it; the secret is never returned', async () => {
    fake.set(K.basic, { content: OPENAI_ANSWER }).set(K.basic2, { content: OPENAI_ANSWER })
    const r = await s.post('/api/v1/admin/providers', {
      name: 'oai-basic', kind: 'openai', baseUrl: `${fake.baseUrl}/`, models: ['fake-gpt-basic', 'fake-gpt-basic-mini'],
      keys: [{ key: K.basic, rpm: 120, concurrency: 2 }, { key: K.basic2 }],
    }, { token: admin })
    expect(r.status).toBe(201)
    expect(r.body).toMatchObject({ name: 'oai-basic', kind: 'openai', baseUrl: `${fake.baseUrl}/`, models: ['fake-gpt-basic', 'fake-gpt-basic-mini'] })
    expect(r.body.id).toMatch(/^prov_/)
    expect(r.body.keys).toHaveLength(2)
    expect(keyOf(r.body, K.basic)).toMatchObject({ keyPrefix: 'sk-f...0001', rpm: 120, concurrency: 2, inflight: 0, state: 'ready' })
    expect(keyOf(r.body, K.basic2)).toMatchObject({ keyPrefix: 'sk-f...0002', rpm: 60, concurrency: 4, inflight: 0, state: 'ready' })
    expect(r.body.keys[0].id).toMatch(/^pkey_/)
    expect(r.body.keys[0].id).not.toBe(r.body.keys[1].id)
    for (const k of r.body.keys) expect(Object.keys(k).sort()).toEqual(['concurrency', 'id', 'inflight', 'keyPrefix', 'rpm', 'state'])
    expect(r.text).not.toContain(K.basic)
    expect(r.text).not.toContain(K.basic2)

    const list = await s.get('/api/v1/admin/providers', { token: admin })
    expect(list.body.map((p: any) => p.name)).toEqual(['builtin', 'oai-basic'])
    expect(list.body[1]).toEqual(r.body)
    expect(list.text).not.toContain(K.basic)

    fake.set(K.ant, { content: ANTHROPIC_ANSWER })
    const a = await addProvider({ name: 'claude-fake', kind: 'anthropic', baseUrl: fake.baseUrl, models: ['fake-claude'], keys: [{ key: K.ant }] })
    expect(a).toMatchObject({ kind: 'anthropic', models: ['fake-claude'], keys: [{ state: 'ready', rpm: 60, concurrency: 4 }] })
  })

  test('non-admins get 403 ADMIN_REQUIRED; no credentials 401', async () => {
    const body = { name: 'x', kind: 'openai', models: ['x-model'], keys: [{ key: 'sk-x-1234567890' }] }
    expectProblem(await s.post('/api/v1/admin/providers', body, { token: op }), 403, 'ADMIN_REQUIRED')
    expectProblem(await s.get('/api/v1/admin/providers', { token: op }), 403, 'ADMIN_REQUIRED')
    expectProblem(await s.del('/api/v1/admin/providers/prov_builtin', { token: op }), 403, 'ADMIN_REQUIRED')
    expect((await s.get('/api/v1/admin/providers')).status).toBe(401)
    expect((await s.get('/api/v1/admin/providers', { token: admin })).body.some((p: any) => p.name === 'x')).toBe(false)
  })

  test('validation: taken model or name 409, missing keys 400, builtin kind 400, bad baseUrl 400', async () => {
    const before = (await s.get('/api/v1/admin/providers', { token: admin })).body.length
    const key = [{ key: 'sk-validation-0000000000' }]
    expectProblem(await s.post('/api/v1/admin/providers', { name: 'dup-model', kind: 'openai', baseUrl: fake.baseUrl, models: ['brand-new', 'fake-gpt-basic'], keys: key }, { token: admin }), 409, 'MODEL_TAKEN')
    expectProblem(await s.post('/api/v1/admin/providers', { name: 'dup-builtin', kind: 'openai', baseUrl: fake.baseUrl, models: ['builtin'], keys: key }, { token: admin }), 409, 'MODEL_TAKEN')
    expectProblem(await s.post('/api/v1/admin/providers', { name: 'oai-basic', kind: 'openai', baseUrl: fake.baseUrl, models: ['other-model'], keys: key }, { token: admin }), 409, 'PROVIDER_NAME_TAKEN')
    expectProblem(await s.post('/api/v1/admin/providers', { name: 'no-keys', kind: 'openai', baseUrl: fake.baseUrl, models: ['nk'] }, { token: admin }), 400, 'PROVIDER_KEYS_REQUIRED')
    expectProblem(await s.post('/api/v1/admin/providers', { name: 'no-keys', kind: 'anthropic', models: ['nk'], keys: [] }, { token: admin }), 400, 'PROVIDER_KEYS_REQUIRED')
    expectProblem(await s.post('/api/v1/admin/providers', { name: 'another-builtin', kind: 'builtin', models: ['b2'] }, { token: admin }), 400, 'BUILTIN_PROVIDER_EXISTS')
    expectProblem(await s.post('/api/v1/admin/providers', { name: 'ftp', kind: 'openai', baseUrl: 'ftp://127.0.0.1/v1', models: ['ftp-model'], keys: key }, { token: admin }), 400, 'INVALID_BASE_URL')
    expectProblem(await s.post('/api/v1/admin/providers', { name: 'llama', kind: 'llama', models: ['l'], keys: key }, { token: admin }), 400, 'VALIDATION_FAILED')
    expectProblem(await s.post('/api/v1/admin/providers', { name: 'rpm0', kind: 'openai', models: ['r0'], keys: [{ key: 'sk-rpm0-000000000', rpm: 0 }] }, { token: admin }), 400, 'VALIDATION_FAILED')
    expectProblem(await s.post('/api/v1/admin/providers', { name: 'dupe-in-body', kind: 'openai', models: ['m', 'm'], keys: key }, { token: admin }), 400, 'VALIDATION_FAILED')
    // nothing half-created
    const after = (await s.get('/api/v1/admin/providers', { token: admin })).body
    expect(after.length).toBe(before)
    expect(after.flatMap((p: any) => p.models)).not.toContain('brand-new')
  })

  test('DELETE removes a provider (204) and frees its model; builtin 409; unknown 404', async () => {
    const p = await addProvider({ name: 'oai-temp', kind: 'openai', baseUrl: fake.baseUrl, models: ['fake-temp'], keys: [{ key: secret('temp') }] })
    const d = await s.del(`/api/v1/admin/providers/${p.id}`, { token: admin })
    expect(d.status).toBe(204)
    expect(d.text).toBe('')
    expect((await s.get('/api/v1/admin/providers', { token: admin })).body.some((x: any) => x.id === p.id)).toBe(false)
    expectProblem(await submit({ prompt: 'Hello there. Anyone home?', model: 'fake-temp' }), 400, 'UNKNOWN_MODEL')
    expectProblem(await s.del(`/api/v1/admin/providers/${p.id}`, { token: admin }), 404, 'NOT_FOUND')
    expectProblem(await s.del('/api/v1/admin/providers/prov_builtin', { token: admin }), 409, 'BUILTIN_PROVIDER')
    // the model is free again
    const again = await addProvider({ name: 'oai-temp', kind: 'openai', baseUrl: fake.baseUrl, models: ['fake-temp'], keys: [{ key: secret('temp2') }] })
    expect(again.id).not.toBe(p.id)
    expect((await s.del(`/api/v1/admin/providers/${again.id}`, { token: admin })).status).toBe(204)
  })

  test('an unknown model is refused at submit, at agent registration and on /compute with 400 UNKNOWN_MODEL', async () => {
    expectProblem(await submit({ prompt: 'x', model: 'gpt-nope' }, { key: agent.apiKey }), 400, 'UNKNOWN_MODEL')
    expectProblem(await s.post('/api/v1/agents/register', { displayName: 'nope', capabilities: ['general'], model: 'gpt-nope' }, { token: op }), 400, 'UNKNOWN_MODEL')
    expectProblem(await s.post('/api/v1/compute', { model: 'gpt-nope', prompt: 'x' }, { token: op }), 400, 'UNKNOWN_MODEL')
  })

  // Regression test (was a bug, fixed).
  test('keys keep the order they were given in (view and pool order)', async () => {
    const keys = Array.from({ length: 8 }, (_, i) => secret(`order-${i}`))
    for (const k of keys) fake.set(k, { content: 'ordered' })
    const p = await addProvider({ name: 'oai-order', kind: 'openai', baseUrl: fake.baseUrl, models: ['fake-gpt-order'], keys: keys.map((key) => ({ key })) })
    expect(p.keys.map((k: any) => k.keyPrefix)).toEqual(keys.map(masked))
    expect((await submit({ prompt: 'Which key goes first?', model: 'fake-gpt-order' })).body.status).toBe('COMPLETED')
    expect(fake.requestsForModel('fake-gpt-order').map((c) => c.key)).toEqual([keys[0]])
  })

  // Regression test (was a bug, fixed).
  test('the masked key never reveals a short key in full', async () => {
    const short = 'sk-12345'
    const p = await addProvider({ name: 'oai-short', kind: 'openai', baseUrl: fake.baseUrl, models: ['fake-short'], keys: [{ key: short }] })
    try {
      const kp: string = p.keys[0].keyPrefix
      const revealed = kp.replace('...', '')
      expect(revealed).not.toBe(short)
      expect(revealed.length).toBeLessThan(short.length)
    } finally {
      await s.del(`/api/v1/admin/providers/${p.id}`, { token: admin })
    }
  })
})

describe('tasks through remote providers', () => {
  test('OpenAI-compatible: COMPLETED with the fake\'s answer; the fake saw the prompt and the bearer key', async () => {
    // an agent whose default model is the provider's: the task needs no model field
    const reg = await s.post('/api/v1/agents/register', { displayName: 'GPT Bot', capabilities: ['general'], model: 'fake-gpt-basic' }, { token: op })
    expect(reg.status).toBe(201)
    expect(reg.body.model).toBe('fake-gpt-basic')
    const prompt = 'What is the capital of France? Answer in one sentence.'
    const n0 = fake.requests.length
    const r = await s.post('/api/v1/tasks/submit', { agentId: reg.body.agentId, taskType: 'general', prompt }, { key: reg.body.apiKey })
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ status: 'COMPLETED', stage: 8, output: OPENAI_ANSWER, provider: 'oai-basic', model: 'fake-gpt-basic', creditsCharged: 1, failureCode: null, computeJobId: null })
    expect(r.body.latencyMs).toBeGreaterThan(0)
    expect(r.body.timeline.find((e: any) => e.name === 'compute')).toMatchObject({ status: 'done', detail: { provider: 'oai-basic', model: 'fake-gpt-basic' } })
    expect(r.body.ipfsCid).toBeTruthy()
    expect(r.body.receipt).toBeTruthy()
    // the provider's answer committed on its own, then stages 4–8: the answer's timeline (kept in memory) is the stored one
    expect(r.body.timeline.map((e: any) => e.stage)).toEqual([1, 2, 3, 4, 5, 6, 7, 8])
    expect((await s.get(`/api/v1/tasks/${r.body.id}`, { key: reg.body.apiKey })).body).toEqual(r.body)

    const calls = fake.requests.slice(n0)
    expect(calls).toHaveLength(1)
    const c = calls[0]!
    expect(c.path).toBe('/v1/chat/completions') // the trailing slash of baseUrl is not doubled
    expect([`Bearer ${K.basic}`, `Bearer ${K.basic2}`]).toContain(c.headers.authorization)
    expect(c.headers['x-api-key']).toBeUndefined()
    expect(c.body.model).toBe('fake-gpt-basic')
    expect(c.body.messages).toEqual([{ role: 'user', content: prompt }])
    expect(c.answeredWith).toBe(200)
  })

  test('Anthropic: COMPLETED with the fake\'s answer; the fake saw x-api-key and anthropic-version', async () => {
    const prompt = 'Explain photosynthesis to a child.'
    const n0 = fake.requests.length
    const r = await submit({ prompt, model: 'fake-claude' }, { key: agent.apiKey })
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ status: 'COMPLETED', output: ANTHROPIC_ANSWER, provider: 'claude-fake', model: 'fake-claude', creditsCharged: 1 })
    const calls = fake.requests.slice(n0)
    expect(calls).toHaveLength(1)
    const c = calls[0]!
    expect(c.path).toBe('/v1/messages')
    expect(c.protocol).toBe('anthropic')
    expect(c.headers['x-api-key']).toBe(K.ant)
    expect(c.headers['anthropic-version']).toBe('2023-06-01')
    expect(c.headers.authorization).toBeUndefined()
    expect(c.body).toMatchObject({ model: 'fake-claude', messages: [{ role: 'user', content: prompt }] })
    expect(typeof c.body.max_tokens).toBe('number')
    expect('system' in c.body).toBe(false)
  })
})

describe('key pool: retry, cooldown, failure, refunds, timeouts', () => {
  test('429 on key A: the task completes on key B; A cools down for its Retry-After, B stays ready', async () => {
    // whichever key the pool tries first (A) answers 429; the other (B) answers
    const keys = [secret('r429-1'), secret('r429-2')]
    for (const k of keys) fake.set(k, { content: 'answer after a retry' })
    fake.nextForModel('fake-gpt-429', { status: 429, retryAfter: '120' })
    await addProvider({ name: 'oai-429', kind: 'openai', baseUrl: fake.baseUrl, models: ['fake-gpt-429'], keys: keys.map((key) => ({ key })) })
    const r = await submit({ prompt: 'Say something useful.', model: 'fake-gpt-429' })
    expect(r.body).toMatchObject({ status: 'COMPLETED', output: 'answer after a retry', provider: 'oai-429', creditsCharged: 1 })
    const calls = fake.requestsForModel('fake-gpt-429')
    expect(calls.map((c) => c.answeredWith)).toEqual([429, 200])
    const [A, B] = [calls[0]!.key!, calls[1]!.key!]
    expect(A).not.toBe(B)
    expect(keys).toContain(A)
    expect(keys).toContain(B)
    const v = await providerView('oai-429')
    expect(keyOf(v, A)).toMatchObject({ state: 'cooldown', inflight: 0 })
    expect(keyOf(v, B)).toMatchObject({ state: 'ready', inflight: 0 })

    // while A cools down, the next task goes straight to B
    const r2 = await submit({ prompt: 'Say something else.', model: 'fake-gpt-429' })
    expect(r2.body.output).toBe('answer after a retry')
    expect(fake.requestsFor(A)).toHaveLength(1)
    expect(fake.requestsFor(B)).toHaveLength(2)

    // Retry-After: 120 is honoured (the default cooldown is 30 s): still cooling at +60 s, ready after +121 s
    expect((await s.post('/api/v1/admin/clock/advance', { ms: 60_000 }, { token: admin })).status).toBe(200)
    expect(keyOf(await providerView('oai-429'), A).state).toBe('cooldown')
    await s.post('/api/v1/admin/clock/advance', { ms: 61_000 }, { token: admin })
    expect(keyOf(await providerView('oai-429'), A).state).toBe('ready')
  })

  test('500 on key A: retried on key B; A in cooldown', async () => {
    const keys = [secret('r500-1'), secret('r500-2')]
    for (const k of keys) fake.set(k, { content: 'handled by the second key' })
    fake.nextForModel('fake-gpt-500', { status: 500 })
    await addProvider({ name: 'oai-500', kind: 'openai', baseUrl: fake.baseUrl, models: ['fake-gpt-500'], keys: keys.map((key) => ({ key })) })
    const r = await submit({ prompt: 'Do the thing.', model: 'fake-gpt-500' })
    expect(r.body).toMatchObject({ status: 'COMPLETED', output: 'handled by the second key' })
    const calls = fake.requestsForModel('fake-gpt-500')
    expect(calls.map((c) => c.answeredWith)).toEqual([500, 200])
    expect(calls[0]!.key).not.toBe(calls[1]!.key)
    const v = await providerView('oai-500')
    expect(keyOf(v, calls[0]!.key!).state).toBe('cooldown')
    expect(keyOf(v, calls[1]!.key!).state).toBe('ready')
  })

  test('every key failing: FAILED COMPUTE_FAILED after exactly 3 attempts on 3 keys, credit refunded', async () => {
    const keys = [secret('down-1'), secret('down-2'), secret('down-3'), secret('down-4')]
    fake.set(keys[0]!, { status: 500 }).set(keys[1]!, { status: 429 }).set(keys[2]!, { status: 503 }).set(keys[3]!, { status: 502 })
    await addProvider({ name: 'oai-down', kind: 'openai', baseUrl: fake.baseUrl, models: ['fake-gpt-down'], keys: keys.map((key) => ({ key })) })
    const r = await submit({ prompt: 'Will this work?', model: 'fake-gpt-down' })
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ status: 'FAILED', failureCode: 'COMPUTE_FAILED', creditsCharged: 0, output: null, provider: 'oai-down' })
    const tried = fake.requestsForModel('fake-gpt-down').map((c) => c.key!)
    expect(tried).toHaveLength(3)
    expect(new Set(tried).size).toBe(3)
    for (const k of tried) expect(keys).toContain(k)
    const last = r.body.timeline[r.body.timeline.length - 1]
    expect(last).toMatchObject({ name: 'compute', status: 'failed', detail: { code: 'COMPUTE_FAILED', refunded: true } })
    const v = await providerView('oai-down')
    for (const k of keys) expect(keyOf(v, k).state).toBe(tried.includes(k) ? 'cooldown' : 'ready')
  })

  test('a non-retryable 4xx fails at once: one attempt, no cooldown', async () => {
    const A = secret('bad-a'), B = secret('bad-b')
    fake.set(A, { status: 400 }).set(B, { status: 400 })
    await addProvider({ name: 'oai-broken', kind: 'openai', baseUrl: fake.baseUrl, models: ['fake-gpt-broken'], keys: [{ key: A }, { key: B }] })
    const r = await submit({ prompt: 'Broken request?', model: 'fake-gpt-broken' })
    expect(r.body).toMatchObject({ status: 'FAILED', failureCode: 'COMPUTE_FAILED', creditsCharged: 0 })
    expect(r.body.failureMessage).toContain('400')
    expect(fake.requestsForModel('fake-gpt-broken')).toHaveLength(1)
    expect((await providerView('oai-broken')).keys.map((k: any) => k.state)).toEqual(['ready', 'ready'])
  })

  test('a failed task gives its credits back: the balance is as if it never ran', async () => {
    // data_analysis costs 40 here and a fresh operator has 100: refunded failure → 40 + 40 fit, the third 402s.
    // Without the refund the second successful task would already be refused.
    const tok = await s.signup('refund-op')
    const ag = (await s.post('/api/v1/agents/register', { displayName: 'Analyst', capabilities: ['data_analysis'] }, { token: tok })).body
    const run = (model: string) => s.post('/api/v1/tasks/submit', { agentId: ag.agentId, taskType: 'data_analysis', prompt: 'Average of 2, 4 and 9? Show the steps.', model }, { token: tok })
    const failed = await run('fake-gpt-broken')
    expect(failed.body).toMatchObject({ status: 'FAILED', failureCode: 'COMPUTE_FAILED', creditsCharged: 0 })
    const ok1 = await run('builtin')
    expect(ok1.body).toMatchObject({ status: 'COMPLETED', creditsCharged: 40 })
    const ok2 = await run('builtin')
    expect(ok2.body).toMatchObject({ status: 'COMPLETED', creditsCharged: 40 })
    const broke = await run('builtin')
    expectProblem(broke, 402, 'INSUFFICIENT_CREDITS')
    expect(broke.body).toMatchObject({ needed: 40, balance: 20 })
  })

  test('a provider that answers slower than the timeout: retried on another key, or COMPUTE_FAILED', async () => {
    // the first call to fake-gpt-slow (whichever key) hangs; the retry on the other key answers
    const slow = [secret('slow-1'), secret('slow-2')], slowOnly = secret('slow-only')
    for (const k of slow) fake.set(k, { content: 'fast answer' })
    fake.nextForModel('fake-gpt-slow', { delayMs: 30_000, content: 'too late' })
    fake.set(slowOnly, { delayMs: 30_000, content: 'too late' })
    await addProvider({ name: 'oai-slow', kind: 'openai', baseUrl: fake.baseUrl, models: ['fake-gpt-slow'], keys: slow.map((key) => ({ key })) })
    await addProvider({ name: 'oai-slow-only', kind: 'openai', baseUrl: fake.baseUrl, models: ['fake-gpt-slow-only'], keys: [{ key: slowOnly }] })
    const t0 = performance.now()
    const [retried, failed] = await Promise.all([
      submit({ prompt: 'Slow or fast?', model: 'fake-gpt-slow' }),
      submit({ prompt: 'Only slow.', model: 'fake-gpt-slow-only' }),
    ])
    const ms = performance.now() - t0
    expect(ms).toBeGreaterThanOrEqual(PROVIDER_TIMEOUT_MS - 50)
    expect(ms).toBeLessThan(PROVIDER_TIMEOUT_MS + 3000)
    expect(retried.body).toMatchObject({ status: 'COMPLETED', output: 'fast answer', provider: 'oai-slow' })
    const calls = fake.requestsForModel('fake-gpt-slow')
    expect(calls).toHaveLength(2)
    expect(calls[0]!.key).not.toBe(calls[1]!.key)
    expect(calls[1]!.answeredWith).toBe(200)
    const v = await providerView('oai-slow')
    expect(keyOf(v, calls[0]!.key!).state).toBe('cooldown')
    expect(keyOf(v, calls[1]!.key!).state).toBe('ready')
    expect(failed.body).toMatchObject({ status: 'FAILED', failureCode: 'COMPUTE_FAILED', creditsCharged: 0 })
    expect(failed.body.failureMessage).toContain(`timed out after ${PROVIDER_TIMEOUT_MS} ms`)
    // the server hung up on the slow calls rather than waiting for them
    await until(async () => calls[0]!.aborted && fake.requestsFor(slowOnly)[0]!.aborted, Boolean, 50, 20)
    expect(calls[0]!.answeredWith).toBeNull()
  })
})

describe('overflow queue and the job status stream', () => {
  const N = secret('narrow')

  test('a full pool parks the task; the SSE stream follows queued → running → completed; resumes by Last-Event-ID', async () => {
    await addProvider({ name: 'oai-narrow', kind: 'openai', baseUrl: fake.baseUrl, models: ['fake-gpt-narrow'], keys: [{ key: N, concurrency: 1 }] })
    const g1 = gate(), g2 = gate()
    fake.set(N, { content: 'narrow default' }).next(N, { content: 'narrow one', gate: g1 }, { content: 'narrow two', gate: g2 })
    try {
      const t1 = await submit({ prompt: 'First in line.', model: 'fake-gpt-narrow' }, { wait: 0, key: agent.apiKey })
      expect(t1.status).toBe(202)
      expect(t1.headers.get('location')).toBe(`/api/v1/tasks/${t1.body.id}`)
      await fake.waitForRequest((c) => c.key === N)
      const busy = await providerView('oai-narrow')
      expect(busy.keys[0]).toMatchObject({ state: 'busy', inflight: 1 })

      const t2 = await submit({ prompt: 'Second in line.', model: 'fake-gpt-narrow' }, { wait: 0, key: agent.apiKey })
      expect(t2.status).toBe(202)
      expect(['PROCESSING', 'QUEUED']).toContain(t2.body.status)
      const queued = await until(() => getTask(t2.body.id), (t) => t.status === 'QUEUED')
      expect(queued.computeJobId).toMatch(/^job_/)
      expect(queued.timeline.at(-1)).toMatchObject({ name: 'compute', status: 'queued', detail: { jobId: queued.computeJobId, position: 1 } })
      const statusPath = `/api/v1/compute/${queued.computeJobId}/status`

      const sse1 = await Sse.open(statusPath, { 'x-api-key': agent.apiKey })
      expect(sse1.res.status).toBe(200)
      expect(sse1.res.headers.get('content-type')).toBe('text/event-stream')
      const eQueued = (await sse1.next())!
      expect(eQueued).toMatchObject({ event: 'queued', data: { jobId: queued.computeJobId, status: 'queued', position: 1 } })
      expect(eQueued.id).toBeGreaterThan(0)
      expect(sse1.retry).toBe(2000)

      g1.release() // task 1's call answers; the key frees up; the queued job runs (and is held at g2)
      const eRunning = (await sse1.next())!
      expect(eRunning).toMatchObject({ event: 'running', data: { jobId: queued.computeJobId, status: 'running' } })
      expect(eRunning.id).toBeGreaterThan(eQueued.id)
      const second = await fake.waitForRequest((c) => c.key === N && c.body?.messages?.[0]?.content === 'Second in line.')
      expect(second.answeredWith).toBeNull()
      expect((await taskUntil(t1.body.id, 'COMPLETED')).output).toBe('narrow one')

      // drop the connection mid-job and come back with Last-Event-ID: only what came after
      sse1.close()
      const sse2 = await Sse.open(`${statusPath}?access_token=${op}`, { 'last-event-id': String(eRunning.id) })
      expect(sse2.res.status).toBe(200)
      g2.release()
      const after = await sse2.rest()
      expect(after.map((e) => e.event)).toEqual(['completed'])
      const eDone = after[0]!
      expect(eDone.id).toBeGreaterThan(eRunning.id)
      expect(eDone.data).toMatchObject({ jobId: queued.computeJobId, status: 'completed', result: { output: 'narrow two', provider: 'oai-narrow', model: 'fake-gpt-narrow' } })
      expect(eDone.data.result.usage.completionTokens).toBeGreaterThan(0)

      const done = await taskUntil(t2.body.id, 'COMPLETED')
      expect(done).toMatchObject({ status: 'COMPLETED', stage: 8, output: 'narrow two', provider: 'oai-narrow', creditsCharged: 1, computeJobId: queued.computeJobId })
      expect(done.timeline.filter((e: any) => e.name === 'compute').map((e: any) => e.status)).toEqual(['queued', 'done'])
      expect(done.timeline.find((e: any) => e.name === 'compute' && e.status === 'done').detail.overflow).toBe(true)
      expect(done.timeline.at(-1)).toMatchObject({ name: 'receipt', status: 'completed' })

      // replays after the end
      const fromQueued = await jobEvents(statusPath, { 'x-api-key': agent.apiKey, 'last-event-id': String(eQueued.id) })
      expect(fromQueued.map((e) => [e.event, e.id])).toEqual([['running', eRunning.id], ['completed', eDone.id]])
      const fromEnd = await jobEvents(statusPath, { authorization: `Bearer ${op}`, 'last-event-id': String(eDone.id) })
      expect(fromEnd.map((e) => [e.event, e.id])).toEqual([['completed', eDone.id]])
      expect(fromEnd[0]!.data.result.output).toBe('narrow two')
      const fresh = await jobEvents(`${statusPath}?access_token=${op}`)
      expect(fresh.map((e) => [e.event, e.id])).toEqual([['queued', eQueued.id], ['running', eRunning.id], ['completed', eDone.id]])

      // someone else's job is not found; nor is a made-up one
      expectProblem(await s.get(statusPath, { token: other }), 404, 'NOT_FOUND')
      expectProblem(await s.get(`${statusPath}?access_token=${other}`), 404, 'NOT_FOUND')
      expectProblem(await s.get('/api/v1/compute/job_nope/status', { token: op }), 404, 'NOT_FOUND')
      expect((await s.get(statusPath)).status).toBe(401)
      expect((await providerView('oai-narrow')).keys[0]).toMatchObject({ state: 'ready', inflight: 0 })
    } finally {
      g1.release()
      g2.release()
    }
  })

  // Regression test (was a bug, fixed).
  test('submit with ?wait= answers 202 QUEUED as soon as the task is parked', async () => {
    const g = gate()
    fake.next(N, { content: 'held', gate: g })
    try {
      const t1 = await submit({ prompt: 'Hold the key.', model: 'fake-gpt-narrow' }, { wait: 0 })
      await fake.waitForRequest((c) => c.key === N && c.body?.messages?.[0]?.content === 'Hold the key.')
      const t0 = performance.now()
      const t2 = await submit({ prompt: 'Parked behind it.', model: 'fake-gpt-narrow' }, { wait: 1 })
      const ms = performance.now() - t0
      g.release()
      expect(t2.status).toBe(202)
      expect(t2.body.status).toBe('QUEUED')
      expect(t2.body.computeJobId).toMatch(/^job_/)
      await taskUntil(t1.body.id, 'COMPLETED')
      await taskUntil(t2.body.id, 'COMPLETED')
      expect(ms).toBeLessThan(700)
    } finally {
      g.release()
    }
  })

  test('a key over its RPM parks the task until the window frees up', async () => {
    const R = secret('rpm')
    fake.set(R, { content: 'rpm answer' })
    await addProvider({ name: 'oai-rpm', kind: 'openai', baseUrl: fake.baseUrl, models: ['fake-gpt-rpm'], keys: [{ key: R, rpm: 1 }] })
    const first = await submit({ prompt: 'One per minute.', model: 'fake-gpt-rpm' })
    expect(first.body).toMatchObject({ status: 'COMPLETED', output: 'rpm answer' })
    const second = await submit({ prompt: 'Second this minute.', model: 'fake-gpt-rpm' }, { wait: 0 })
    const parked = await until(() => getTask(second.body.id), (t) => t.status === 'QUEUED')
    expect(parked.computeJobId).toMatch(/^job_/)
    expect(fake.requestsFor(R)).toHaveLength(1)
    await s.post('/api/v1/admin/clock/advance', { ms: 121_000 }, { token: admin })
    const done = await taskUntil(second.body.id, 'COMPLETED')
    expect(done).toMatchObject({ output: 'rpm answer', provider: 'oai-rpm' })
    expect(fake.requestsFor(R)).toHaveLength(2)
  })

  // Regression test (was a bug, fixed).
  test('adding a provider while a call is in flight does not leave the key busy for good', async () => {
    const L = secret('leak')
    const g = gate()
    await addProvider({ name: 'oai-leak', kind: 'openai', baseUrl: fake.baseUrl, models: ['fake-gpt-leak'], keys: [{ key: L, concurrency: 1 }] })
    fake.set(L, { content: 'leak later' }).next(L, { content: 'leak first', gate: g })
    try {
      const t1 = await submit({ prompt: 'In flight during a reload.', model: 'fake-gpt-leak' }, { wait: 0 })
      await fake.waitForRequest((c) => c.key === L)
      await addProvider({ name: 'oai-unrelated', kind: 'openai', baseUrl: fake.baseUrl, models: ['fake-gpt-unrelated'], keys: [{ key: secret('unrelated') }] })
      g.release()
      expect((await taskUntil(t1.body.id, 'COMPLETED')).output).toBe('leak first')
      expect((await providerView('oai-leak')).keys[0]).toMatchObject({ inflight: 0, state: 'ready' })
      const t2 = await submit({ prompt: 'After the reload.', model: 'fake-gpt-leak' }, { wait: 3 })
      expect(t2.body).toMatchObject({ status: 'COMPLETED', output: 'leak later' })
    } finally {
      g.release()
    }
  })
})

describe('POST /api/v1/compute', () => {
  test('with an agent key: 202 queued with a statusUrl; the stream ends in completed with the fake\'s answer', async () => {
    const n0 = fake.requests.length
    const r = await s.post('/api/v1/compute', { model: 'fake-gpt-basic', prompt: 'Capital of France?' }, { key: agent.apiKey })
    expect(r.status).toBe(202)
    expect(r.body).toMatchObject({ status: 'queued' })
    expect(r.body.jobId).toMatch(/^job_/)
    expect(r.body.position).toBeGreaterThanOrEqual(1)
    expect(r.body.statusUrl).toBe(`/api/v1/compute/${r.body.jobId}/status`)
    const events = await jobEvents(r.body.statusUrl, { 'x-api-key': agent.apiKey })
    expect(events.map((e) => e.event)).toEqual(['queued', 'running', 'completed'])
    for (let i = 1; i < events.length; i++) expect(events[i]!.id).toBeGreaterThan(events[i - 1]!.id)
    expect(events[2]!.data).toMatchObject({ jobId: r.body.jobId, status: 'completed', result: { output: OPENAI_ANSWER, provider: 'oai-basic', model: 'fake-gpt-basic' } })
    expect(events[2]!.data.result.usage.promptTokens).toBeGreaterThan(0)
    const calls = fake.requests.slice(n0)
    expect(calls).toHaveLength(1)
    expect([`Bearer ${K.basic}`, `Bearer ${K.basic2}`]).toContain(calls[0]!.headers.authorization)
    expect(calls[0]!.body.messages).toEqual([{ role: 'user', content: 'Capital of France?' }])
  })

  test('with a bearer token on the builtin model (also the default model)', async () => {
    const prompt = 'TaskGate runs agent tasks. It signs every receipt. It stores results on IPFS. Operators can verify everything. The queue keeps work fair.'
    for (const body of [{ model: 'builtin', prompt }, { prompt }]) {
      const r = await s.post('/api/v1/compute', body, { token: op })
      expect(r.status).toBe(202)
      const events = await jobEvents(`${r.body.statusUrl}?access_token=${op}`)
      expect(events.at(-1)).toMatchObject({ event: 'completed', data: { result: { provider: 'builtin', model: 'builtin' } } })
      expect(typeof events.at(-1)!.data.result.output).toBe('string')
      expect(events.at(-1)!.data.result.output.length).toBeGreaterThan(10)
    }
  })

  test('Anthropic with a system message: the system prompt goes in the top-level system field', async () => {
    const n0 = fake.requests.length
    const r = await s.post('/api/v1/compute', { model: 'fake-claude', messages: [{ role: 'system', content: 'Answer like a teacher.' }, { role: 'user', content: 'What do plants eat?' }] }, { token: op })
    expect(r.status).toBe(202)
    const events = await jobEvents(r.body.statusUrl, { authorization: `Bearer ${op}` })
    expect(events.at(-1)).toMatchObject({ event: 'completed', data: { result: { output: ANTHROPIC_ANSWER, provider: 'claude-fake' } } })
    const c = fake.requests.slice(n0)
    expect(c).toHaveLength(1)
    expect(c[0]!.body.system).toBe('Answer like a teacher.')
    expect(c[0]!.body.messages).toEqual([{ role: 'user', content: 'What do plants eat?' }])
  })

  test('a failing job ends with a failed event; bad requests are refused', async () => {
    const r = await s.post('/api/v1/compute', { model: 'fake-gpt-broken', prompt: 'This will fail.' }, { token: op })
    expect(r.status).toBe(202)
    const events = await jobEvents(r.body.statusUrl, { authorization: `Bearer ${op}` })
    expect(events.map((e) => e.event)).toEqual(['queued', 'running', 'failed'])
    expect(events[2]!.data).toMatchObject({ jobId: r.body.jobId, status: 'failed', code: 'COMPUTE_FAILED' })
    expect(events[2]!.data.message).toContain('400')

    expectProblem(await s.post('/api/v1/compute', { model: 'builtin' }, { token: op }), 400, 'PROMPT_REQUIRED')
    expectProblem(await s.post('/api/v1/compute', {}, { key: agent.apiKey }), 400, 'PROMPT_REQUIRED')
    expectProblem(await s.post('/api/v1/compute', { model: 'builtin', messages: [] }, { token: op }), 400, 'VALIDATION_FAILED')
    expect((await s.post('/api/v1/compute', { model: 'builtin', prompt: 'x' })).status).toBe(401)
    expectProblem(await s.post('/api/v1/compute', { model: 'builtin', prompt: 'x', agentId: agent.agentId }, { token: other }), 404, 'NOT_FOUND')
  })

  test('a failed compute job refunds its cost', async () => {
    const tok = await s.signup('compute-refund-op')
    const job = (model: string) => s.post('/api/v1/compute', { model, prompt: 'Crunch these numbers: 1 2 3.', taskType: 'data_analysis' }, { token: tok })
    const bad = await job('fake-gpt-broken')
    expect(bad.status).toBe(202)
    expect((await jobEvents(bad.body.statusUrl, { authorization: `Bearer ${tok}` })).at(-1)!.event).toBe('failed')
    for (let i = 0; i < 2; i++) {
      const ok = await job('builtin')
      expect(ok.status).toBe(202)
      expect((await jobEvents(ok.body.statusUrl, { authorization: `Bearer ${tok}` })).at(-1)!.event).toBe('completed')
    }
    const broke = await job('builtin')
    expectProblem(broke, 402, 'INSUFFICIENT_CREDITS')
    expect(broke.body).toMatchObject({ needed: 40, balance: 20 })
  })
})

describe('secrets', () => {
  test('no provider key appears in any response, stream or log line', async () => {
    await Bun.sleep(50) // pino writes asynchronously
    const logs = s.stdout + s.stderr
    expect(logs).toContain('provider key cooling down') // the pool did log about its keys...
    expect(seen.length).toBeGreaterThan(50)
    for (const k of SECRETS) {
      expect(logs).not.toContain(k) // ...but never a key
      expect(logs).not.toContain(k.slice(8))
      for (const text of seen) if (text.includes(k.slice(8))) throw new Error(`provider key leaked in a response: ${text.slice(0, 300)}`)
    }
  })
})

describe('keep-alive', () => {
  test('a waiting status stream sends `: ping` comments, then ends with the result', async () => {
    const P = secret('ping')
    await addProvider({ name: 'oai-ping', kind: 'openai', baseUrl: fake.baseUrl, models: ['fake-gpt-ping'], keys: [{ key: P, concurrency: 1 }] })
    const g = gate()
    fake.set(P, { content: 'pong', gate: g })
    const r = await s.post('/api/v1/compute', { model: 'fake-gpt-ping', prompt: 'ping?' }, { token: op })
    expect(r.status).toBe(202)
    const res = await fetch(`${s.url}${r.body.statusUrl}?access_token=${op}`)
    const reader = res.body!.getReader()
    const dec = new TextDecoder()
    let text = ''
    for (let i = 0; i < 50 && !text.includes(': ping'); i++) text += dec.decode((await reader.read()).value ?? new Uint8Array())
    expect(text).toContain(': ping')
    g.release()
    for (;;) { const c = await reader.read(); if (c.done) break; text += dec.decode(c.value) }
    expect(text).toContain('event: completed')
    expect(text).toContain('pong')
  })
})

describe('secrets at rest', () => {
  test('provider keys are sealed in the database (AES-GCM with the data-dir key), never stored in clear', async () => {
    const k = secret('sealed')
    await addProvider({ name: 'oai-sealed', kind: 'openai', baseUrl: fake.baseUrl, models: ['fake-gpt-sealed'], keys: [{ key: k }] })
    const { join } = await import('node:path')
    const row = await withTestDb(s.dataDir, (db) => db.query("SELECT secret FROM provider_keys WHERE first4 = 'sk-f' AND last4 = ?1").get(k.slice(-4)) as { secret: string }, { readonly: true })
    expect(row.secret).toStartWith('v1.')
    expect(row.secret).not.toContain(k)
    for (const f of ['taskgate.db', 'taskgate.db-wal']) {
      const file = Bun.file(join(s.dataDir, f))
      if (await file.exists()) expect(Buffer.from(await file.arrayBuffer()).includes(k)).toBe(false)
    }
    fake.set(k, { content: 'sealed and working' })
    const t = await s.post('/api/v1/tasks/submit', { agentId: agent.agentId, taskType: 'general', prompt: 'Does a sealed key still work?', model: 'fake-gpt-sealed' }, { key: agent.apiKey })
    expect(t.body.output).toBe('sealed and working')
  })
})

describe('retry while the other keys are busy', () => {
  test('a retry waits for a busy key instead of failing', async () => {
    const A = secret('waitA'), B = secret('waitB')
    await addProvider({ name: 'oai-wait', kind: 'openai', baseUrl: fake.baseUrl, models: ['fake-gpt-wait'], keys: [{ key: A, concurrency: 1 }, { key: B, concurrency: 1 }] })
    const gA = gate(), gB = gate()
    fake.set(A, { content: 'from A' }).next(A, { status: 500, gate: gA })
    fake.set(B, { content: 'from B, second call' }).next(B, { content: 'from B, first call', gate: gB })
    const t1 = await submit({ prompt: 'I will fail on A first.', model: 'fake-gpt-wait' }, { wait: 0, key: agent.apiKey })
    await fake.waitForRequest((c) => c.key === A)
    const t2 = await submit({ prompt: 'I hold key B.', model: 'fake-gpt-wait' }, { wait: 0, key: agent.apiKey })
    await fake.waitForRequest((c) => c.key === B)
    gA.release() // A answers 500 while B is busy: the retry of task 1 waits for B (before: FAILED at once)
    await until(async () => fake.requests.find((r) => r.key === A)?.answeredWith ?? null, (v) => v === 500)
    gB.release()
    expect((await taskUntil(t2.body.id, 'COMPLETED')).output).toBe('from B, first call')
    const done = await taskUntil(t1.body.id, 'COMPLETED')
    expect(done.output).toBe('from B, second call')
    expect(done.creditsCharged).toBe(1)
  })
})
