// Money over real HTTP: the faucet, paying for tasks through x402 (headers signed here with viem),
// the legacy X-402-Payment header, and the defence. Coinbase's own x402 client paying end to end
// (no project code on the client side): test/interop/payments-x402.test.ts.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { getAddress, toHex } from 'viem'
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { postFrom } from '../helpers/from-address'
import { expectProblem, startServer, type TestServer } from '../helpers/server'

let s: TestServer

beforeAll(async () => {
  // Operators start without credits, so every task needs a payment.
  s = await startServer({ TASKGATE_TIERS_FREE_MONTHLY_CREDITS: '0', TASKGATE_X402_MAX_PAID_PER_HOUR: '4', TASKGATE_FAUCET_PER_ADDRESS_PER_DAY: '1000' }) // every call comes from 127.0.0.1; the per-address limit has its own test
  await s.setupAdmin()
})
afterAll(async () => { await s.cleanup() })

const operator = (login: string) => s.operatorWithAgent(login)
const taskBody = (agentId: string) => JSON.stringify({ agentId, taskType: 'sentiment_analysis', prompt: 'Paid for with mock USDC and it works great.' })

async function bindWallet(token: string, acct: PrivateKeyAccount) {
  const n = (await s.get('/api/v1/operator/wallet/nonce', { token })).body
  const signature = await acct.signTypedData({ ...n.typedData, message: { ...n.typedData.message, wallet: acct.address } })
  const r = await s.post('/api/v1/operator/wallet', { walletAddress: acct.address, signature, nonce: n.nonce }, { token })
  expect(r.status).toBe(200)
}

/** The 402 requirements for a task submit, as a client would read them. */
async function requirementsFor(agent: any) {
  const r = await s.req('POST', '/api/v1/tasks/submit', { key: agent.apiKey, raw: taskBody(agent.agentId), headers: { 'content-type': 'application/json' } })
  expect(r.status).toBe(402)
  return r.body.accepts[0]
}

const TRANSFER_WITH_AUTHORIZATION = { TransferWithAuthorization: [{ name: 'from', type: 'address' }, { name: 'to', type: 'address' }, { name: 'value', type: 'uint256' }, { name: 'validAfter', type: 'uint256' }, { name: 'validBefore', type: 'uint256' }, { name: 'nonce', type: 'bytes32' }] } as const

/** An X-PAYMENT header (x402 v1 exact: an EIP-3009 authorization signed with viem) for the 402's requirements. */
async function paymentHeader(account: PrivateKeyAccount, req: any, opts: { value?: string; validAfter?: number; validBefore?: number } = {}) {
  const now = Math.floor(Date.now() / 1000)
  const auth = {
    from: account.address, to: getAddress(req.payTo), value: opts.value ?? req.maxAmountRequired,
    validAfter: String(opts.validAfter ?? now - 600), validBefore: String(opts.validBefore ?? now + req.maxTimeoutSeconds),
    nonce: toHex(crypto.getRandomValues(new Uint8Array(32))),
  }
  const signature = await account.signTypedData({
    domain: { name: req.extra.name, version: req.extra.version, chainId: 84532, verifyingContract: req.asset },
    types: TRANSFER_WITH_AUTHORIZATION, primaryType: 'TransferWithAuthorization',
    message: { ...auth, value: BigInt(auth.value), validAfter: BigInt(auth.validAfter), validBefore: BigInt(auth.validBefore), nonce: auth.nonce },
  })
  return Buffer.from(JSON.stringify({ x402Version: 1, scheme: 'exact', network: req.network, payload: { signature, authorization: auth } })).toString('base64')
}

describe('faucet', () => {
  test('works with an empty body and no credential (developer wallet), then cools down per wallet', async () => {
    const r = await s.req('POST', '/api/v1/faucet/usdc', { raw: '{}', headers: { 'content-type': 'application/json' } })
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ usdcMinted: '10', creditsAdded: 0 })
    expect(r.body.devWalletTxHash).toMatch(/^0x[0-9a-f]{64}$/)
    expect(r.body.paymentAddressTxHash).toMatch(/^0x[0-9a-f]{64}$/)
    expect(r.body.paymentAddress).toMatch(/^0x[0-9a-fA-F]{40}$/)
    expect((await s.get(`/api/v1/usdc/${r.body.wallet}`)).body.balance).toBe('10')
    const again = await s.post('/api/v1/faucet/usdc', {})
    expectProblem(again, 429, 'FAUCET_COOLDOWN')
    expect(again.body.retryAfterSeconds).toBeGreaterThan(23 * 3600)
    expect(Date.parse(again.body.cooldownUntil)).toBeGreaterThan(Date.now())
  })

  test('validates wallet and amount', async () => {
    expectProblem(await s.post('/api/v1/faucet/usdc', { wallet: 'not-a-wallet' }), 400, 'INVALID_ADDRESS')
    expectProblem(await s.post('/api/v1/faucet/usdc', { wallet: privateKeyToAccount(generatePrivateKey()).address, amount: 101 }), 400, 'INVALID_AMOUNT')
    const w = privateKeyToAccount(generatePrivateKey()).address
    expect((await s.post('/api/v1/faucet/usdc', { wallet: w, amount: 100 })).body.usdcMinted).toBe('100')
  })

  test('credits go to the operator whose bound wallet it is', async () => {
    const o = await operator('faucet-owner')
    const acct = privateKeyToAccount(generatePrivateKey())
    await bindWallet(o.token, acct)
    const r = await s.post('/api/v1/faucet/usdc', { wallet: acct.address, amount: 1 })
    expect(r.body.creditsAdded).toBe(100) // 1 USDC at 0.01 USDC per credit
    const billing = (await s.get('/api/v1/operator/billing', { token: o.token })).body
    expect(billing.balance.purchasedBalance).toBe(100)
    expect(billing.transactions[0].reason).toBe(`x402_payment ${r.body.paymentAddressTxHash}`)
  })
})

describe('x402', () => {
  test('no credits and no payment → 402 problem with x402 v1 requirements', async () => {
    const o = await operator('broke')
    const r = await s.req('POST', '/api/v1/tasks/submit', { key: o.agent.apiKey, raw: taskBody(o.agent.agentId), headers: { 'content-type': 'application/json' } })
    expectProblem(r, 402, 'INSUFFICIENT_CREDITS')
    expect(r.body.x402Version).toBe(1)
    expect(r.body.accepts).toHaveLength(1)
    expect(r.body.accepts[0]).toMatchObject({
      scheme: 'exact', network: 'base-sepolia', maxAmountRequired: '10000', mimeType: 'application/json', maxTimeoutSeconds: 300,
      asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', extra: { name: 'USDC', version: '2' },
    })
    expect(r.body.accepts[0].resource).toBe(`${s.url}/api/v1/tasks/submit`)
  })

  test('no credits → 402 before any stage: a task its policy would block or hold is not recorded', async () => {
    const o = await operator('broke-and-blocked') // an agent that runs sentiment_analysis only
    const blocked = await s.req('POST', '/api/v1/tasks/submit', { key: o.agent.apiKey, raw: JSON.stringify({ agentId: o.agent.agentId, taskType: 'general', prompt: 'Not a task type this agent may run.' }), headers: { 'content-type': 'application/json' } })
    expectProblem(blocked, 402, 'INSUFFICIENT_CREDITS')
    expect(blocked.body).toMatchObject({ needed: 1, balance: 0, x402Version: 1 })
    expect(blocked.body.accepts[0].resource).toBe(`${s.url}/api/v1/tasks/submit`)
    expect((await s.patch('/api/v1/operator/guardrails', { approvalThreshold: 1 }, { token: o.token })).status).toBe(200)
    const held = await s.req('POST', '/api/v1/tasks/submit', { key: o.agent.apiKey, raw: JSON.stringify({ agentId: o.agent.agentId, taskType: 'sentiment_analysis', prompt: 'A big action.', action: { actionType: 'spend_control', operation: 'invoice_payment', target: '0xAcmeCorp', requestedValue: 1000, currency: 'USDC' } }), headers: { 'content-type': 'application/json' } })
    expectProblem(held, 402, 'INSUFFICIENT_CREDITS')
    expect((await s.get('/api/v1/operator/tasks', { token: o.token })).body.total).toBe(0)
  })

  test('an X-PAYMENT pays for a task: X-PAYMENT-RESPONSE names the settlement; billing shows the payment and the debit', async () => {
    const o = await operator('payer')
    const account = privateKeyToAccount(generatePrivateKey())
    await s.post('/api/v1/faucet/usdc', { wallet: account.address, amount: 1 })
    const req = await requirementsFor(o.agent)
    const gateBefore = (await s.get(`/api/v1/usdc/${req.payTo}`)).body.balanceUnits
    const res = await s.req('POST', '/api/v1/tasks/submit', { key: o.agent.apiKey, raw: taskBody(o.agent.agentId), headers: { 'content-type': 'application/json', 'x-payment': await paymentHeader(account, req) } })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ status: 'COMPLETED', creditsCharged: 1 })
    const receipt = JSON.parse(Buffer.from(res.headers.get('x-payment-response')!, 'base64').toString())
    expect(receipt).toMatchObject({ success: true, network: 'base-sepolia', payer: account.address })
    expect((await s.get(`/api/v1/usdc/${account.address}`)).body.balance).toBe('0.99')
    expect((await s.get(`/api/v1/usdc/${req.payTo}`)).body.balanceUnits).toBe(gateBefore + 10_000)
    const b = (await s.get('/api/v1/operator/billing', { token: o.token })).body
    expect(b.transactions.slice(0, 2).map((t: any) => [t.reason, t.delta])).toEqual([['task_debit', -1], [`x402_payment ${receipt.transaction}`, 1]])
  })

  test('compute requests are gated the same way', async () => {
    const o = await operator('compute-payer')
    const account = privateKeyToAccount(generatePrivateKey())
    await s.post('/api/v1/faucet/usdc', { wallet: account.address, amount: 1 })
    const unpaid = await s.post('/api/v1/compute', { model: 'builtin', prompt: 'hello there' }, { key: o.agent.apiKey })
    expectProblem(unpaid, 402, 'INSUFFICIENT_CREDITS')
    const res = await s.post('/api/v1/compute', { model: 'builtin', prompt: 'Paid compute. It runs.' }, { key: o.agent.apiKey, headers: { 'x-payment': await paymentHeader(account, unpaid.body.accepts[0]) } })
    expect(res.status).toBe(202)
    expect(res.headers.get('x-payment-response')).toBeTruthy()
    expect((await s.get(`/api/v1/usdc/${account.address}`)).body.balance).toBe('0.99')
  })

  test('replays, underpayment, expiry and forgeries are refused; only valid signatures count against a wallet', async () => {
    const o = await operator('defender')
    const account = privateKeyToAccount(generatePrivateKey())
    await s.post('/api/v1/faucet/usdc', { wallet: account.address, amount: 1 }) // unbound yet: no credits, USDC only
    await bindWallet(o.token, account) // so the agent passport reports on this wallet
    const req = await requirementsFor(o.agent)
    const submit = (header: string) => s.req('POST', '/api/v1/tasks/submit', { key: o.agent.apiKey, raw: taskBody(o.agent.agentId), headers: { 'content-type': 'application/json', 'x-payment': header } })

    const good = await paymentHeader(account, req)
    expect((await submit(good)).status).toBe(200)
    expectProblem(await submit(good), 402, 'PAYMENT_REPLAYED')

    const under = await paymentHeader(account, req, { value: '5000' })
    expectProblem(await submit(under), 402, 'PAYMENT_UNDERPAID')

    // expired: validBefore in the past
    const now = Math.floor(Date.now() / 1000)
    const expired = await paymentHeader(account, req, { validAfter: now - 1200, validBefore: now - 600 })
    expectProblem(await submit(expired), 402, 'PAYMENT_EXPIRED')

    // forged: someone else signs an authorization that claims to come from this wallet
    const mallory = privateKeyToAccount(generatePrivateKey())
    const real = JSON.parse(Buffer.from(await paymentHeader(mallory, req), 'base64').toString())
    real.payload.authorization.from = account.address
    const forged = Buffer.from(JSON.stringify(real)).toString('base64')
    expectProblem(await submit(forged), 402, 'PAYMENT_SIGNATURE_INVALID')
    expectProblem(await submit('!!not base64 json!!'), 402, 'PAYMENT_INVALID')

    let state = (await s.get(`/api/v1/x402/wallets/${account.address}`)).body
    expect(state.blocked).toBe(false) // 3 strikes so far (replay, underpaid, expired): the forgery did not count
    expect(state.walletChecked).toBe(account.address)
    expect((await s.get(`/api/v1/x402/wallets/${mallory.address}`)).body.blocked).toBe(false)

    // two more invalid payments: the fifth strike blocks the wallet for 24 h
    expectProblem(await submit(good), 402, 'PAYMENT_REPLAYED')
    expectProblem(await submit(under), 402, 'PAYMENT_UNDERPAID')
    state = (await s.get(`/api/v1/x402/wallets/${account.address}`)).body
    expect(state).toMatchObject({ blocked: true, reason: 'REPEATED_INVALID_PAYMENTS' })
    const fresh = await paymentHeader(account, req)
    expectProblem(await submit(fresh), 403, 'PAYER_BLOCKED')
    const passport = (await s.get(`/api/v1/public/agent/${o.agent.agentId}/passport`)).body
    expect(passport.x402).toMatchObject({ blocked: true, reason: 'REPEATED_INVALID_PAYMENTS', walletChecked: account.address })
    expect((await s.get(`/api/v1/usdc/${account.address}`)).body.balance).toBe('0.99') // only the one good payment settled
  })

  test('a wallet may pay for at most rateLimitMax tasks per hour', async () => {
    const o = await operator('hourly')
    const account = privateKeyToAccount(generatePrivateKey())
    await s.post('/api/v1/faucet/usdc', { wallet: account.address, amount: 1 })
    const req = await requirementsFor(o.agent)
    const go = async () => s.req('POST', '/api/v1/tasks/submit', { key: o.agent.apiKey, raw: taskBody(o.agent.agentId), headers: { 'content-type': 'application/json', 'x-payment': await paymentHeader(account, req) } })
    for (let i = 0; i < 4; i++) expect((await go()).status).toBe(200)
    expectProblem(await go(), 429, 'X402_RATE_LIMITED')
    const state = (await s.get(`/api/v1/x402/wallets/${account.address}`)).body
    expect(state).toMatchObject({ rateLimitMax: 4, rateLimitRemaining: 0, blocked: false })
    expect(state.rateLimitResetMs).toBeGreaterThan(0)
    expect(state.rateLimitResetUnix).toBeGreaterThan(Math.floor(Date.now() / 1000))
  })

  test('legacy X-402-Payment: a prior transfer to the gate by the bound wallet, used once', async () => {
    const o = await operator('legacy')
    const acct = privateKeyToAccount(generatePrivateKey())
    const drip = (await s.post('/api/v1/faucet/usdc', { wallet: acct.address, amount: 0.05 })).body
    expect(drip.creditsAdded).toBe(0) // nobody owned the wallet yet
    const header = drip.x402PaymentHeader as string
    const send = (token: string, agent: any) => s.req('POST', '/api/v1/tasks/submit', { key: agent.apiKey, raw: taskBody(agent.agentId), headers: { 'content-type': 'application/json', 'x-402-payment': header } })
    expectProblem(await send(o.token, o.agent), 402, 'PAYER_NOT_BOUND')
    await bindWallet(o.token, acct)
    const ok = await send(o.token, o.agent)
    expect(ok.status).toBe(200)
    expect(ok.headers.get('x-payment-response')).toBeTruthy()
    expect((await s.get('/api/v1/operator/billing', { token: o.token })).body.balance.balance).toBe(4) // 5 credits bought, 1 spent
    expectProblem(await send(o.token, o.agent), 402, 'PAYMENT_REPLAYED')
  })
})

describe('forged payments, per client address', () => {
  test('ten forged signatures from one address, on tasks or compute, then 429 TOO_MANY_INVALID_PAYMENTS on both', async () => {
    const o = await operator('forger')
    const victim = privateKeyToAccount(generatePrivateKey())
    const mallory = privateKeyToAccount(generatePrivateKey())
    const req = await requirementsFor(o.agent)
    const forged = async () => {
      const real = JSON.parse(Buffer.from(await paymentHeader(mallory, req), 'base64').toString())
      real.payload.authorization.from = victim.address // signed by mallory, claims the victim
      return Buffer.from(JSON.stringify(real)).toString('base64')
    }
    const submitTask = async () => s.req('POST', '/api/v1/tasks/submit', { key: o.agent.apiKey, raw: taskBody(o.agent.agentId), headers: { 'content-type': 'application/json', 'x-payment': await forged() } })
    const submitCompute = async () => s.post('/api/v1/compute', { model: 'builtin', prompt: 'forged' }, { key: o.agent.apiKey, headers: { 'x-payment': await forged() } })
    // Earlier tests of this file sent forgeries from 127.0.0.1 too: count the refusals up to the limit.
    const codes: string[] = []
    for (let i = 0; i < 11; i++) {
      const r = i % 2 ? await submitCompute() : await submitTask()
      codes.push(r.body.code)
      if (r.status === 429) {
        expectProblem(r, 429, 'TOO_MANY_INVALID_PAYMENTS')
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0)
        break
      }
      expectProblem(r, 402, 'PAYMENT_SIGNATURE_INVALID')
    }
    expect(codes.at(-1)).toBe('TOO_MANY_INVALID_PAYMENTS')
    expect(codes.filter((c) => c === 'PAYMENT_SIGNATURE_INVALID').length).toBeGreaterThanOrEqual(8) // at most two forgeries came before this test
    // Both routes share the address's count; the victim's wallet took no strike.
    expectProblem(await submitTask(), 429, 'TOO_MANY_INVALID_PAYMENTS')
    expectProblem(await submitCompute(), 429, 'TOO_MANY_INVALID_PAYMENTS')
    expect((await s.get(`/api/v1/x402/wallets/${victim.address}`)).body.blocked).toBe(false)
    // Another client address has its own count.
    const other = await postFrom('127.0.0.2', s.port, '/api/v1/tasks/submit', JSON.parse(taskBody(o.agent.agentId)), { 'x-api-key': o.agent.apiKey, 'x-payment': await forged() }).catch((e: Error) => e)
    if (other instanceof Error) { console.warn(`not checked: cannot bind 127.0.0.2 as a source address (${other.message})`); return }
    expect(other.status).toBe(402)
    expect(other.body.code).toBe('PAYMENT_SIGNATURE_INVALID')
  })
})
