// Credits over real HTTP: billing, balance (self only), grants, dashboard, the monthly refill on
// the test clock, a refill missed while the server was down, and a concurrent burst.
import { advanceStoppedClock } from '../helpers/data'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { expectProblem, startServer, type TestServer } from '../helpers/server'

let s: TestServer
let admin: string

beforeAll(async () => {
  s = await startServer({ TASKGATE_TEST_CLOCK: '1', TASKGATE_TASK_COST: JSON.stringify({ default: 5, sentiment_analysis: 1 }) })
  admin = await s.setupAdmin()
})
afterAll(async () => { await s.cleanup() })

const operator = (login: string) => s.operatorWithAgent(login, ['general', 'sentiment_analysis'])

const submit = (o: Awaited<ReturnType<typeof operator>>, taskType = 'general', wait = 30) =>
  s.post(`/api/v1/tasks/submit?wait=${wait}`, { agentId: o.agent.agentId, taskType, prompt: 'Credits are counted. Each task costs some. The ledger records it.' }, { key: o.agent.apiKey })

describe('billing and balance', () => {
  test('a new FREE operator starts with 100 credits; a task debits its cost; billing lists it', async () => {
    const o = await operator('biller')
    const b0 = (await s.get('/api/v1/operator/billing', { token: o.token })).body
    expect(b0.balance).toMatchObject({ operatorId: o.id, balance: 100, monthlyAllocation: 100, allocationBalance: 100, purchasedBalance: 0 })
    expect(b0.transactions).toHaveLength(1)
    expect(b0.transactions[0]).toMatchObject({ delta: 100, balanceAfter: 100, reason: 'monthly_allocation' })
    const t = await submit(o)
    expect(t.body.creditsCharged).toBe(5)
    const b1 = (await s.get('/api/v1/operator/billing?limit=1', { token: o.token })).body
    expect(b1).toMatchObject({ page: 1, limit: 1, total: 2, totalPages: 2 })
    expect(b1.balance.balance).toBe(95)
    expect(b1.transactions[0]).toMatchObject({ delta: -5, balanceAfter: 95, reason: 'task_debit', taskId: t.body.id })
    expectProblem(await s.get('/api/v1/operator/billing?limit=500', { token: o.token }), 400, 'VALIDATION_FAILED')
  })

  test('the balance endpoint is self only', async () => {
    const a = await operator('self-a')
    const b = await operator('self-b')
    expect((await s.get(`/api/v1/credits/balance/${a.id}`, { token: a.token })).body.balance).toBe(100)
    expectProblem(await s.get(`/api/v1/credits/balance/${a.id}`, { token: b.token }), 403, 'FORBIDDEN')
    expectProblem(await s.get(`/api/v1/credits/balance/${a.id}`, { key: a.agent.apiKey }), 401, 'CREDENTIAL_NOT_ACCEPTED')
  })

  test('admin grants go to the purchased bucket, once per Idempotency-Key', async () => {
    const o = await operator('grantee')
    const g = { operatorId: o.id, amount: 40, reason: 'beta tester' }
    const r1 = await s.post('/api/v1/admin/credits', g, { token: admin, headers: { 'idempotency-key': 'grant-1' } })
    expect(r1.body).toMatchObject({ applied: true, balance: { balance: 140, purchasedBalance: 40, allocationBalance: 100 } })
    const r2 = await s.post('/api/v1/admin/credits', g, { token: admin, headers: { 'idempotency-key': 'grant-1' } })
    expect(r2.body).toMatchObject({ applied: false, balance: { balance: 140 } })
    expectProblem(await s.post('/api/v1/admin/credits', g, { token: o.token }), 403, 'ADMIN_REQUIRED')
    expectProblem(await s.post('/api/v1/admin/credits', { ...g, amount: -5 }, { token: admin }), 400, 'VALIDATION_FAILED')
    expectProblem(await s.post('/api/v1/admin/credits', { ...g, operatorId: 'op_nobody' }, { token: admin }), 404, 'NOT_FOUND')
    const billing = (await s.get('/api/v1/operator/billing', { token: o.token })).body
    expect(billing.transactions[0]).toMatchObject({ delta: 40, bucket: 'purchased', reason: 'admin_grant: beta tester' })
  })

  test('the dashboard has the DashboardStatsDto fields', async () => {
    const o = await operator('dashing')
    await submit(o, 'sentiment_analysis')
    const d = (await s.get('/api/v1/operator/dashboard', { token: o.token })).body
    expect(Object.keys(d).sort()).toEqual(['agentCount', 'avgLatencyMs', 'creditsRemaining', 'creditsResetDays', 'creditsTotal', 'latencyTrend', 'tasksThisMonth', 'tasksTrend', 'verificationRate', 'verificationTrend'])
    expect(d).toMatchObject({ creditsRemaining: 99, creditsTotal: 100, tasksThisMonth: 1, tasksTrend: 1, agentCount: 1, verificationRate: 100 })
    expect(d.creditsResetDays).toBeGreaterThanOrEqual(1)
    expect(d.creditsResetDays).toBeLessThanOrEqual(31)
  })
})

describe('concurrency', () => {
  test('50 simultaneous submits against 100 credits at 5 each: exactly 20 succeed, the ledger adds up', async () => {
    const o = await operator('burst')
    const results = await Promise.all(Array.from({ length: 50 }, () => submit(o, 'general', 0)))
    const ok = results.filter((r) => r.status === 200 || r.status === 202)
    const refused = results.filter((r) => r.status === 402)
    expect(ok.length).toBe(20)
    expect(refused.length).toBe(30)
    for (const r of refused) expect(r.body.code).toBe('INSUFFICIENT_CREDITS')
    const b = (await s.get('/api/v1/operator/billing?limit=100', { token: o.token })).body
    expect(b.balance.balance).toBe(0)
    expect(b.transactions.reduce((a: number, t: any) => a + t.delta, 0)).toBe(b.balance.balance)
    expect(b.transactions.filter((t: any) => t.reason === 'task_debit')).toHaveLength(20)
  })
})

describe('monthly refill', () => {
  test('on the 1st the allocation is refilled (not cumulative), purchased credits carry over, a new tier applies then', async () => {
    const o = await operator('monthly')
    await s.post('/api/v1/admin/credits', { operatorId: o.id, amount: 7, reason: 'carry' }, { token: admin })
    await submit(o) // -5 from the allocation: 95 + 7
    await s.patch(`/api/v1/admin/operators/${o.id}`, { tierOverride: 'PRO' }, { token: admin })
    expect((await s.get(`/api/v1/credits/balance/${o.id}`, { token: o.token })).body).toMatchObject({ allocationBalance: 95, purchasedBalance: 7, monthlyAllocation: 100 })
    const bal = (await s.get(`/api/v1/credits/balance/${o.id}`, { token: o.token })).body
    const untilNext = Date.parse(bal.nextResetAt) - Date.parse((await s.post('/api/v1/admin/clock/advance', { ms: 0 }, { token: admin })).body.now)
    await s.post('/api/v1/admin/clock/advance', { ms: untilNext + 1000 }, { token: admin })
    // tokens from before the jump may have expired on the service clock: sign in again
    o.token = (await s.post('/api/v1/auth/login', { login: 'monthly', password: 'operator-password' })).body.accessToken
    admin = (await s.post('/api/v1/auth/login', { login: 'admin', password: 'admin-password' })).body.accessToken
    const after = (await s.get(`/api/v1/credits/balance/${o.id}`, { token: o.token })).body
    expect(after).toMatchObject({ allocationBalance: 1000, purchasedBalance: 7, balance: 1007, monthlyAllocation: 1000 })
    const tx = (await s.get('/api/v1/operator/billing', { token: o.token })).body.transactions[0]
    expect(tx).toMatchObject({ reason: 'monthly_refill', delta: 905, balanceAfter: 1007 })
  })

  test('a refill missed while the server was down runs at start', async () => {
    const o = await operator('sleepy')
    await submit(o)
    await s.stop()
    // 40 days pass while the server is down (the test clock's persisted offset moves on)
    await advanceStoppedClock(s.dataDir, 40 * 86_400_000)
    await s.start()
    const token = (await s.post('/api/v1/auth/login', { login: 'sleepy', password: 'operator-password' })).body.accessToken
    let b: any
    for (let i = 0; i < 50; i++) { b = (await s.get(`/api/v1/credits/balance/${o.id}`, { token })).body; if (b.allocationBalance === 100) break; await Bun.sleep(20) }
    expect(b).toMatchObject({ allocationBalance: 100, balance: 100 })
    admin = (await s.post('/api/v1/auth/login', { login: 'admin', password: 'admin-password' })).body.accessToken
  })
})
