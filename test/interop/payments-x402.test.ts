// Paying with Coinbase's x402 client (@x402/fetch 2.x with @x402/evm's exact scheme; optional
// interop group, test/interop/package.json): no project code on the client side. In its default
// configuration (registerExactEvmScheme) it reads our 402's PAYMENT-REQUIRED header (x402 v2),
// signs the EIP-3009 authorization itself, retries with PAYMENT-SIGNATURE and decodes our
// PAYMENT-RESPONSE. The v1 path (X-PAYMENT, the body's requirements) is driven through the same
// library; what a v1-only client configuration meets is pinned here too (docs/payments.md). The
// defence under both versions (replays, underpayment, expiry, forgeries, rate limits, blocking) is
// in test/http/payments.test.ts.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client, x402HTTPClient } from '@x402/fetch'
import { registerExactEvmScheme } from '@x402/evm/exact/client'
import { ExactEvmSchemeV1 } from '@x402/evm/v1'
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { expectProblem, startServer, type TestServer } from '../helpers/server'

let s: TestServer

beforeAll(async () => {
  s = await startServer({ TASKGATE_TIERS_FREE_MONTHLY_CREDITS: '0', TASKGATE_FAUCET_PER_ADDRESS_PER_DAY: '1000' })
  await s.setupAdmin()
})
afterAll(async () => { await s.cleanup() })

const operator = (login: string) => s.operatorWithAgent(login)
async function fundedAccount() {
  const account = privateKeyToAccount(generatePrivateKey())
  expect((await s.post('/api/v1/faucet/usdc', { wallet: account.address, amount: 1 })).status).toBe(200)
  return account
}
const taskBody = (agentId: string) => JSON.stringify({ agentId, taskType: 'sentiment_analysis', prompt: 'Paid for with mock USDC and it works great.' })
/** The library's default client (x402 v2 on every eip155 network, and v1), signing with a viem account. */
const payer = (account: PrivateKeyAccount) => registerExactEvmScheme(new x402Client(), { signer: account })
/** A client configured for x402 v1 only, as the README told users before the server spoke v2. */
const payerV1Only = (account: PrivateKeyAccount) => new x402Client().registerV1('base-sepolia', new ExactEvmSchemeV1(account))

describe('x402 client library, default configuration (v2)', () => {
  test('wrapFetchWithPayment pays for a task end to end with PAYMENT-SIGNATURE; billing shows the payment and the debit', async () => {
    const o = await operator('payer')
    const account = await fundedAccount()
    const unpaid = await s.req('POST', '/api/v1/tasks/submit', { key: o.agent.apiKey, raw: taskBody(o.agent.agentId), headers: { 'content-type': 'application/json' } })
    expectProblem(unpaid, 402, 'INSUFFICIENT_CREDITS')
    const gate = unpaid.body.accepts[0].payTo
    const gateBefore = (await s.get(`/api/v1/usdc/${gate}`)).body.balanceUnits
    const payFetch = wrapFetchWithPayment(fetch, payer(account))
    const res = await payFetch(`${s.url}/api/v1/tasks/submit`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': o.agent.apiKey }, body: taskBody(o.agent.agentId) })
    expect(res.status).toBe(200)
    expect((await res.json()) as any).toMatchObject({ status: 'COMPLETED', creditsCharged: 1 })
    expect(res.headers.get('x-payment-response')).toBeNull()
    const receipt = decodePaymentResponseHeader(res.headers.get('payment-response')!)
    expect(receipt).toMatchObject({ success: true, network: 'eip155:84532', payer: account.address })
    expect((await s.get(`/api/v1/usdc/${account.address}`)).body.balance).toBe('0.99')
    expect((await s.get(`/api/v1/usdc/${gate}`)).body.balanceUnits).toBe(gateBefore + 10_000)
    expect((await s.get(`/api/v1/usdc/tx/${receipt.transaction}`)).body).toMatchObject({ from: account.address.toLowerCase(), to: gate.toLowerCase(), amountUnits: 10_000, usedForCredits: true })
    const b = (await s.get('/api/v1/operator/billing', { token: o.token })).body
    expect(b.balance.balance).toBe(0)
    expect(b.transactions.slice(0, 2).map((t: any) => [t.reason.split(' ')[0], t.delta])).toEqual([['task_debit', -1], ['x402_payment', 1]])
    expect(b.transactions[1].reason).toBe(`x402_payment ${receipt.transaction}`)
  })

  test('compute requests and the OpenAI-compatible door are paid the same way', async () => {
    const o = await operator('compute-payer')
    const account = await fundedAccount()
    const pay = wrapFetchWithPayment(fetch, payer(account))
    const res = await pay(`${s.url}/api/v1/compute`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': o.agent.apiKey }, body: JSON.stringify({ model: 'builtin', prompt: 'Paid compute. It runs.' }) })
    expect(res.status).toBe(202)
    expect(decodePaymentResponseHeader(res.headers.get('payment-response')!)).toMatchObject({ success: true, payer: account.address })
    const chat = await pay(`${s.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${o.agent.apiKey}`, 'x-taskgate-task-type': 'sentiment_analysis' }, body: JSON.stringify({ model: 'builtin', messages: [{ role: 'user', content: 'Paid through the OpenAI door and it works great.' }] }) })
    expect(chat.status).toBe(200)
    expect(chat.headers.get('x-taskgate-receipt-cid')).toBeTruthy()
    expect(decodePaymentResponseHeader(chat.headers.get('payment-response')!)).toMatchObject({ success: true, network: 'eip155:84532', payer: account.address })
  })

  test('a payment the library made is settled once: its replay is 402 PAYMENT_REPLAYED', async () => {
    const o = await operator('replayer')
    const account = await fundedAccount()
    const submit = (headers: Record<string, string> = {}) => s.req('POST', '/api/v1/tasks/submit', { key: o.agent.apiKey, raw: taskBody(o.agent.agentId), headers: { 'content-type': 'application/json', ...headers } })
    const required = await submit()
    expectProblem(required, 402, 'INSUFFICIENT_CREDITS')
    const http = new x402HTTPClient(payer(account))
    const payload = await http.createPaymentPayload(http.getPaymentRequiredResponse((name) => required.headers.get(name), required.body))
    const headers = http.encodePaymentSignatureHeader(payload)
    expect(Object.keys(headers)).toEqual(['PAYMENT-SIGNATURE'])
    expect((await submit(headers)).status).toBe(200)
    expectProblem(await submit(headers), 402, 'PAYMENT_REPLAYED')
  })
})

describe('x402 client library, v1', () => {
  test('the body\'s v1 requirements, paid with X-PAYMENT, answer X-PAYMENT-RESPONSE', async () => {
    const o = await operator('payer-v1')
    const account = await fundedAccount()
    const submit = (headers: Record<string, string> = {}) => s.req('POST', '/api/v1/tasks/submit', { key: o.agent.apiKey, raw: taskBody(o.agent.agentId), headers: { 'content-type': 'application/json', ...headers } })
    const required = await submit()
    const http = new x402HTTPClient(payerV1Only(account))
    // a v1 client reads the body (x402 1.x clients never look at PAYMENT-REQUIRED)
    const payload = await http.createPaymentPayload(http.getPaymentRequiredResponse(() => null, required.body))
    const headers = http.encodePaymentSignatureHeader(payload)
    expect(Object.keys(headers)).toEqual(['X-PAYMENT'])
    const res = await submit(headers)
    expect(res.status).toBe(200)
    expect(res.headers.get('payment-response')).toBeNull()
    expect(decodePaymentResponseHeader(res.headers.get('x-payment-response')!)).toMatchObject({ success: true, network: 'base-sepolia', payer: account.address })
  })

  test('a 2.x client registered for v1 only fails on our 402 before paying: "No client registered for x402 version: 2" (docs/payments.md)', async () => {
    const o = await operator('v1-only')
    const account = await fundedAccount()
    const res = await wrapFetchWithPayment(fetch, payerV1Only(account))(`${s.url}/api/v1/tasks/submit`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': o.agent.apiKey }, body: taskBody(o.agent.agentId) })
      .then(() => null, (e: Error) => e)
    expect(res?.message).toContain('No client registered for x402 version: 2')
    expect((await s.get(`/api/v1/usdc/${account.address}`)).body.balance).toBe('1') // nothing was paid
  })
})
