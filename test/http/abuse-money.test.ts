// Attacks on money, performed over HTTP as a hostile client would (issue 8; docs/money.md and
// docs/security.md): free tasks through metadata, unlimited faucet credits, faucet drips eating the
// x402 hourly limit, refunds that outlive the monthly reset, and retried submits answered 402.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { FakeLLM } from '../helpers/fake-llm'
import { expectProblem, startServer, type TestServer } from '../helpers/server'

let s: TestServer
let admin: string
let fake: FakeLLM

beforeAll(async () => {
  fake = await FakeLLM.start()
  // Small monthly allocation so a test can spend it all; every call comes from 127.0.0.1, so the
  // per-address faucet limit is raised here and tested on its own server below.
  s = await startServer({ TASKGATE_TEST_CLOCK: '1', TASKGATE_FAUCET_PER_ADDRESS_PER_DAY: '1000', TASKGATE_TIERS_FREE_MONTHLY_CREDITS: '3' })
  admin = await s.setupAdmin()
  fake.set('sk-fails-always-0000', { status: 500 })
  const p = await s.post('/api/v1/admin/providers', { name: 'broken', kind: 'openai', baseUrl: fake.baseUrl, models: ['broken-model'], keys: [{ key: 'sk-fails-always-0000' }] }, { token: admin })
  expect(p.status).toBe(201)
}, 30_000)
afterAll(async () => { await s?.cleanup(); fake?.stop() })

const operator = (login: string, capabilities = ['sentiment_analysis', 'general']) => s.operatorWithAgent(login, capabilities)
const billing = async (token: string) => (await s.get('/api/v1/operator/billing', { token })).body
const submit = (agent: { agentId: string; apiKey: string }, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) =>
  s.post('/api/v1/tasks/submit', { agentId: agent.agentId, taskType: 'sentiment_analysis', prompt: 'The support was great.', ...extra }, { key: agent.apiKey, headers })

async function bindWallet(token: string, acct: PrivateKeyAccount) {
  const n = (await s.get('/api/v1/operator/wallet/nonce', { token })).body
  const signature = await acct.signTypedData({ ...n.typedData, message: { ...n.typedData.message, wallet: acct.address } })
  expect((await s.post('/api/v1/operator/wallet', { walletAddress: acct.address, signature, nonce: n.nonce }, { token })).status).toBe(200)
}
const newWallet = () => privateKeyToAccount(generatePrivateKey())

describe('free tasks', () => {
  test('metadata { diagnostic: true } on a submit is charged like any task and earns the usual points', async () => {
    const o = await operator('free-rider')
    const before = (await billing(o.token)).balance.balance
    const r = await submit(o.agent, { metadata: { diagnostic: true } })
    expect(r.status).toBe(200)
    expect(r.body.creditsCharged).toBe(1)
    expect((await billing(o.token)).balance.balance).toBe(before - 1)
  })

  test('the server-side test run stays free', async () => {
    const o = await operator('tester')
    const before = (await billing(o.token)).balance.balance
    const r = await s.post(`/api/v1/agents/${o.agent.agentId}/test-run`, {}, { token: o.token })
    expect(r.status).toBe(200)
    expect(r.body.creditsCharged).toBe(0)
    expect((await billing(o.token)).balance.balance).toBe(before)
  })
})

describe('faucet credits', () => {
  test('a signed-in caller naming fresh wallets gets USDC but no credits', async () => {
    const o = await operator('wallet-farmer')
    const before = (await billing(o.token)).balance.balance
    for (let i = 0; i < 3; i++) {
      const r = await s.post('/api/v1/faucet/usdc', { wallet: newWallet().address, amount: 100 }, { token: o.token })
      expect(r.status).toBe(200)
      expect(r.body.usdcMinted).toBe('100')
      expect(r.body.creditsAdded).toBe(0)
    }
    expect((await billing(o.token)).balance.balance).toBe(before)
  })

  test('the bound wallet\'s operator gets credits at most once per 24 h, whichever wallet it binds', async () => {
    const o = await operator('wallet-binder')
    const first = newWallet()
    await bindWallet(o.token, first)
    const a = await s.post('/api/v1/faucet/usdc', { wallet: first.address, amount: 1 }, { token: o.token })
    expect(a.body.creditsAdded).toBe(100)
    const second = newWallet()
    await bindWallet(o.token, second) // re-binding another wallet does not open another faucet credit
    const b = await s.post('/api/v1/faucet/usdc', { wallet: second.address, amount: 1 }, { token: o.token })
    expect(b.status).toBe(200)
    expect(b.body.usdcMinted).toBe('1')
    expect(b.body.creditsAdded).toBe(0)
    // the unused gate transfer cannot be redeemed through the legacy header within the 24 h either
    const legacy = await s.post('/api/v1/tasks/submit', { agentId: o.agent.agentId, taskType: 'sentiment_analysis', prompt: 'ok' }, { key: o.agent.apiKey, headers: { 'x-402-payment': b.body.x402PaymentHeader } })
    expectProblem(legacy, 429, 'FAUCET_OPERATOR_LIMIT')
    expect((await billing(o.token)).balance.purchasedBalance).toBe(100)
  })

  test('a faucet drip does not use up the wallet\'s paid x402 requests', async () => {
    const o = await operator('drip-payer')
    const w = newWallet()
    await bindWallet(o.token, w)
    expect((await s.post('/api/v1/faucet/usdc', { wallet: w.address }, { token: o.token })).body.creditsAdded).toBe(1000)
    const state = (await s.get(`/api/v1/x402/wallets/${w.address}`)).body
    expect(state.rateLimitRemaining).toBe(state.rateLimitMax)
  })

  test('an anonymous tiny claim does not lock the wallet out of the faucet', async () => {
    const o = await operator('lockout-victim')
    const w = newWallet()
    await bindWallet(o.token, w)
    const tiny = await s.post('/api/v1/faucet/usdc', { wallet: w.address, amount: 0.000001 })
    expect(tiny.status).toBe(200)
    const own = await s.post('/api/v1/faucet/usdc', { wallet: w.address }, { token: o.token })
    expect(own.status).toBe(200)
    expect(own.body.usdcMinted).toBe('10')
    // a claim of the default amount does start the cooldown
    expectProblem(await s.post('/api/v1/faucet/usdc', { wallet: w.address }), 429, 'FAUCET_COOLDOWN')
  })

  test('after 24 h the operator can receive faucet credits again', async () => {
    const o = await operator('daily-drip')
    const w = newWallet()
    await bindWallet(o.token, w)
    expect((await s.post('/api/v1/faucet/usdc', { wallet: w.address, amount: 1 }, { token: o.token })).body.creditsAdded).toBe(100)
    expectProblem(await s.post('/api/v1/faucet/usdc', { wallet: w.address, amount: 1 }, { token: o.token }), 429, 'FAUCET_COOLDOWN')
    expect((await s.post('/api/v1/admin/clock/advance', { ms: 24 * 3_600_000 + 1000 }, { token: admin })).status).toBe(200)
    admin = (await s.post('/api/v1/auth/login', { login: 'admin', password: 'admin-password' })).body.accessToken // bearer tokens live 12 h
    expect((await s.post('/api/v1/faucet/usdc', { wallet: w.address, amount: 1 })).body.creditsAdded).toBe(100)
  })
})

describe('faucet per client address', () => {
  let s2: TestServer
  beforeAll(async () => { s2 = await startServer({ TASKGATE_FAUCET_PER_ADDRESS_PER_DAY: '5' }) })
  afterAll(async () => { await s2?.cleanup() })

  test('the sixth call from one address within 24 h is refused, whatever wallet it names', async () => {
    for (let i = 0; i < 5; i++) expect((await s2.post('/api/v1/faucet/usdc', { wallet: newWallet().address })).status).toBe(200)
    const r = await s2.post('/api/v1/faucet/usdc', { wallet: newWallet().address })
    expectProblem(r, 429, 'FAUCET_ADDRESS_LIMIT')
    expect(r.body.retryAfterSeconds).toBeGreaterThan(23 * 3600)
    expect(Number(r.headers.get('retry-after'))).toBe(r.body.retryAfterSeconds)
  })
})

describe('refunds', () => {
  test('a refund returns allocation credits to the allocation, so they do not survive the monthly reset', async () => {
    const o = await operator('refunded', ['general'])
    const start = (await billing(o.token)).balance
    expect(start.purchasedBalance).toBe(0)
    const r = await s.post('/api/v1/tasks/submit', { agentId: o.agent.agentId, taskType: 'general', prompt: 'This will fail.', model: 'broken-model' }, { key: o.agent.apiKey })
    expect(r.body.status).toBe('FAILED')
    expect(r.body.failureCode).toBe('COMPUTE_FAILED')
    const after = (await billing(o.token)).balance
    expect(after.allocationBalance).toBe(start.allocationBalance)
    expect(after.purchasedBalance).toBe(0)
    const refund = (await billing(o.token)).transactions.find((t: any) => t.reason === 'task_refund')
    expect(refund).toMatchObject({ delta: 1, bucket: 'allocation' })
  })
})

describe('idempotent replays', () => {
  test('a retried submit answers the original task even when the balance is now 0', async () => {
    const o = await operator('last-credit')
    const balance = (await billing(o.token)).balance.balance
    // spend all but one credit
    for (let i = 0; i < balance - 1; i++) expect((await submit(o.agent, { prompt: `filler ${i}` }, { })).status).toBe(200)
    const first = await submit(o.agent, { prompt: 'the last credit' }, { 'idempotency-key': 'retry-me' })
    expect(first.status).toBe(200)
    expect((await billing(o.token)).balance.balance).toBe(0)
    for (let i = 0; i < 3; i++) {
      const again = await submit(o.agent, { prompt: 'the last credit' }, { 'idempotency-key': 'retry-me' })
      expect(again.status).toBe(200)
      expect(again.body.id).toBe(first.body.id)
      expect(again.headers.get('idempotent-replayed')).toBe('true')
    }
    expectProblem(await submit(o.agent, { prompt: 'the last credit' }, { 'idempotency-key': 'a-new-key' }), 402, 'INSUFFICIENT_CREDITS')
    expect((await billing(o.token)).balance.balance).toBe(0)
  }, 30_000)
})
