// Daily aggregates over real HTTP with the test clock: tasks on different UTC days, exact figures
// on a small data set (statuses, credits, verified, latency percentiles from the histogram, tokens
// and estimated cost), zero-filled days, `to` = today by the server clock, the public series over
// all operators (system tasks excluded), and GET /api/v1/public/stats read from the same rollups.
// Tokens and cost come from priced models: `builtin` (it counts words) and a fake remote provider
// reached through the OpenAI door, whose answer commits before the task finishes; one model has no
// price (its tokens count, its cost is null and adds nothing).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { expectProblem, startServer, type TestServer } from '../helpers/server'
import { FakeLLM } from '../helpers/fake-llm'
import { bucketMiddle, bucketOf } from '../../src/stats/histogram'

let s: TestServer
let admin: string
let fake: FakeLLM
const PROVIDER_KEY = 'sk-daily-usage-0001'
/** USD per million tokens, input and output; `daily-free` has no price. */
const PRICES: Record<string, [number, number]> = { builtin: [1500, 6000], 'daily-gpt': [2000, 8000] }

beforeAll(async () => {
  fake = await FakeLLM.start()
  fake.set(PROVIDER_KEY, { content: 'A remote answer with a few words in it.' })
  s = await startServer({ TASKGATE_TEST_CLOCK: '1' })
  admin = await s.setupAdmin()
}, 30_000)
afterAll(async () => { await s?.cleanup(); fake?.stop() })

interface Op { login: string; token: string; agentId: string; key: string }
async function operator(login: string): Promise<Op> {
  const token = await s.signup(login)
  const r = await s.post('/api/v1/agents/register', { displayName: login, capabilities: ['general', 'spend_control'] }, { token })
  return { login, token, agentId: r.body.agentId, key: r.body.apiKey }
}
const DAY = 86_400_000
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10)
let now = 0
async function advance(ms: number): Promise<void> {
  const r = await s.post('/api/v1/admin/clock/advance', { ms }, { token: admin })
  expect(r.status).toBe(200)
  now = Date.parse(r.body.now)
  admin = (await s.post('/api/v1/auth/login', { login: 'admin', password: 'admin-password' })).body.accessToken
}
const submit = async (o: Op, body: Record<string, unknown> = {}) =>
  (await s.post('/api/v1/tasks/submit?wait=10', { agentId: o.agentId, taskType: 'general', prompt: 'Summarise: charts need daily numbers.', ...body }, { key: o.key })).body
/** A chat completion through the OpenAI door with the agent's key, then its task as the owner reads it. */
async function viaDoor(o: Op, model: string): Promise<any> {
  const r = await fetch(`${s.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${o.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Count my tokens, please.' }] }) })
  expect(r.status).toBe(200)
  return (await s.get(`/api/v1/tasks/${r.headers.get('x-taskgate-task-id')}`, { key: o.key })).body
}
/** A task's estimated cost in millionths of a dollar, from its tokens and the price table (src/compute/prices.ts), independently of the server's figure. */
const costMicro = (t: any) => (PRICES[t.model] && t.usage ? Math.round(t.usage.promptTokens * PRICES[t.model]![0] + t.usage.completionTokens * PRICES[t.model]![1]) : 0)

/** What a day's entry must say about these tasks (the percentiles by the documented histogram). */
function expected(tasks: any[]) {
  const done = tasks.filter((t) => t.status === 'COMPLETED')
  const lat = done.map((t) => t.latencyMs as number).sort((x, y) => x - y)
  const pct = (p: number) => (lat.length ? bucketMiddle(bucketOf(lat[Math.ceil(p * lat.length) - 1]!)) : null)
  const verified = done.filter((t) => t.verificationStatus === 'VERIFIED').length
  const finished = tasks.filter((t) => t.status === 'COMPLETED' || t.status === 'FAILED')
  const tokens = (k: 'promptTokens' | 'completionTokens') => finished.reduce((n, t) => n + (t.usage?.[k] ?? 0), 0)
  return {
    tasks: {
      total: tasks.length, completed: done.length, failed: tasks.filter((t) => t.status === 'FAILED').length,
      processing: tasks.filter((t) => t.status === 'PROCESSING' || t.status === 'QUEUED').length, pendingApproval: tasks.filter((t) => t.status === 'PENDING_APPROVAL').length,
    },
    creditsSpent: tasks.reduce((n, t) => n + t.creditsCharged, 0), verified,
    verificationRate: done.length ? Math.round((verified / done.length) * 10000) / 10000 : 0,
    latencyP50Ms: pct(0.5), latencyP95Ms: pct(0.95),
    tokens: { prompt: tokens('promptTokens'), completion: tokens('completionTokens'), total: tokens('promptTokens') + tokens('completionTokens') },
    costUsd: finished.reduce((n, t) => n + costMicro(t), 0) / 1e6,
  }
}
const ZERO = {
  tasks: { total: 0, completed: 0, failed: 0, processing: 0, pendingApproval: 0 }, creditsSpent: 0, verified: 0, verificationRate: 0, latencyP50Ms: null, latencyP95Ms: null,
  tokens: { prompt: 0, completion: 0, total: 0 }, costUsd: 0,
}

describe('daily stats', () => {
  let x: Op, y: Op
  const day0: any[] = [], day2: any[] = [], other: any[] = []
  let start = 0

  test('tasks on two days, a day without tasks between them', async () => {
    await advance(1)
    await advance(DAY - (now % DAY) + DAY / 2) // noon UTC: the tasks below cannot straddle midnight
    start = now
    x = await operator('daily-x')
    y = await operator('daily-y')
    expect((await s.post('/api/v1/admin/providers', { name: 'daily-oai', kind: 'openai', baseUrl: fake.baseUrl, models: ['daily-gpt', 'daily-free'], keys: [{ key: PROVIDER_KEY }] }, { token: admin })).status).toBe(201)
    for (const [model, [inputUsdPerMTok, outputUsdPerMTok]] of Object.entries(PRICES)) {
      expect((await s.req('PUT', `/api/v1/admin/prices/${model}`, { body: { inputUsdPerMTok, outputUsdPerMTok }, token: admin })).status).toBe(200)
    }
    for (let i = 0; i < 3; i++) day0.push(await submit(x, { prompt: `Summarise item ${i}: ${'word '.repeat(10 * i)}` }))
    const blocked = await s.post('/api/v1/tasks/submit', { agentId: x.agentId, taskType: 'code', prompt: 'not allowed' }, { key: x.key })
    expectProblem(blocked, 403, 'GUARDRAIL_BLOCKED')
    day0.push(blocked.body.task)
    other.push(await submit(y))
    other.push(await viaDoor(y, 'daily-gpt'))
    other.push(await submit(y, { model: 'daily-free' }))
    expect(other.map((t) => [t.status, t.door])).toEqual([['COMPLETED', null], ['COMPLETED', 'openai'], ['COMPLETED', null]])
    // every finished task has its tokens; the cost is the price table's, null for the model without a price
    for (const t of [...day0, ...other]) if (t.status === 'COMPLETED') expect(t.usage.totalTokens).toBeGreaterThan(0)
    for (const t of [...day0, ...other]) expect(t.costUsd ?? null).toBe(t.status === 'COMPLETED' && PRICES[t.model] ? costMicro(t) / 1e6 : null)
    expect(other[1].usage.promptTokens).toBe(JSON.stringify(fake.requestsFor(PROVIDER_KEY)[0]!.body.messages).length) // as the fake provider counts them
    await advance(2 * DAY)
    x.token = (await s.post('/api/v1/auth/login', { login: x.login, password: 'operator-password' })).body.accessToken
    expect((await s.patch('/api/v1/operator/guardrails', { approvalThreshold: 10 }, { token: x.token })).status).toBe(200)
    await advance(30_000)
    for (let i = 0; i < 2; i++) day2.push(await submit(x))
    day2.push(await submit(x, { taskType: 'spend_control', action: { actionType: 'spend_control', operation: 'pay', target: '0xA', requestedValue: 50, currency: 'USDC' } }))
    expect(day2.map((t) => t.status)).toEqual(['COMPLETED', 'COMPLETED', 'PENDING_APPROVAL'])
    expect((await s.post('/api/v1/operator/tos/accept', { version: '1' }, { token: x.token })).status).toBe(200) // a system task: not counted
  }, 60_000)

  test('the operator\'s series: exact figures, zero-filled, oldest first, ending today', async () => {
    const r = await s.get('/api/v1/operator/stats/daily?days=7', { token: x.token })
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ days: 7, from: iso(now - 6 * DAY), to: iso(now) })
    expect(r.body.series.map((d: any) => d.date)).toEqual(Array.from({ length: 7 }, (_, i) => iso(now - (6 - i) * DAY)))
    const byDate = Object.fromEntries(r.body.series.map(({ date, ...rest }: any) => [date, rest]))
    expect(byDate[iso(start)]).toEqual(expected(day0))
    expect(byDate[iso(start)].tasks).toEqual({ total: 4, completed: 3, failed: 1, processing: 0, pendingApproval: 0 })
    expect(byDate[iso(start)].creditsSpent).toBe(3)
    expect(byDate[iso(start)].tokens.total).toBeGreaterThan(0)
    expect(byDate[iso(start)].costUsd).toBeGreaterThan(0)
    expect(byDate[iso(start + DAY)]).toEqual(ZERO)
    expect(byDate[iso(now)]).toEqual(expected(day2))
    expect(byDate[iso(now)].latencyP50Ms).toBeGreaterThan(0)
    // an API key of the operator reads the same; the default is 30 days
    const k = await s.get('/api/v1/operator/stats/daily', { key: x.key })
    expect(k.body.days).toBe(30)
    expect(k.body.series).toHaveLength(30)
    expect(k.body.series.slice(-7)).toEqual(r.body.series)
    expect((await s.get('/api/v1/operator/stats/daily?days=90', { token: x.token })).body.series).toHaveLength(90)
    // another operator sees only its own
    const ys = (await s.get('/api/v1/operator/stats/daily?days=7', { key: y.key })).body.series
    expect(ys.find((d: any) => d.date === iso(start))).toEqual({ date: iso(start), ...expected(other) })
    // the door's task (a remote provider) and the unpriced one count their tokens; only priced tasks add cost
    expect(ys.find((d: any) => d.date === iso(start)).tokens.total).toBe(other.reduce((n, t) => n + t.usage.totalTokens, 0))
    expect(ys.find((d: any) => d.date === iso(start)).costUsd).toBe((costMicro(other[0]) + costMicro(other[1])) / 1e6)
    expect(ys.find((d: any) => d.date === iso(now)).tasks.total).toBe(0)
  })

  test('bad or missing input', async () => {
    for (const d of ['8', '0', 'x', '-7']) expectProblem(await s.get(`/api/v1/operator/stats/daily?days=${d}`, { token: x.token }), 400, 'VALIDATION_FAILED')
    expectProblem(await s.get('/api/v1/operator/stats/daily'), 401)
    expectProblem(await s.get('/api/v1/public/stats/daily?days=31'), 400, 'VALIDATION_FAILED')
  })

  test('the public series sums all operators; public stats read the same rollups', async () => {
    const r = await s.get('/api/v1/public/stats/daily?days=7')
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ days: 7, to: iso(now) })
    const byDate = Object.fromEntries(r.body.series.map(({ date, ...rest }: any) => [date, rest]))
    expect(byDate[iso(start)]).toEqual(expected([...day0, ...other]))
    expect(byDate[iso(now)]).toEqual(expected(day2))
    const all = [...day0, ...other, ...day2]
    const done = all.filter((t) => t.status === 'COMPLETED')
    const st = (await s.get('/api/v1/public/stats')).body
    expect(st).toEqual({
      totalTasks: all.length, totalOperators: 3, totalAgents: 2,
      avgLatencyMs: Math.round((done.reduce((n, t) => n + t.latencyMs, 0) / done.length) * 100) / 100,
      verificationRate: Math.round((done.filter((t) => t.verificationStatus === 'VERIFIED').length / done.length) * 10000) / 10000,
    })
  })
})
