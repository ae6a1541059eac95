// Paying with Coinbase's x402 client (@x402/fetch with @x402/evm's v1 exact scheme; optional interop
// group, test/interop/package.json): no project code on the client side. It reads our 402, signs the
// EIP-3009 authorization itself, retries with X-PAYMENT and decodes our X-PAYMENT-RESPONSE. The
// defence (replays, underpayment, expiry, forgeries, rate limits) is in test/http/payments.test.ts.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client, x402HTTPClient } from '@x402/fetch'
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
/** The library's client for x402 v1 on base-sepolia, signing with a viem account. */
const payer = (account: PrivateKeyAccount) => new x402Client().registerV1('base-sepolia', new ExactEvmSchemeV1(account))

describe('x402 client library', () => {
  test('wrapFetchWithPayment pays for a task end to end; billing shows the payment and the debit', async () => {
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
    const receipt = decodePaymentResponseHeader(res.headers.get('x-payment-response')!)
    expect(receipt).toMatchObject({ success: true, network: 'base-sepolia', payer: account.address })
    expect((await s.get(`/api/v1/usdc/${account.address}`)).body.balance).toBe('0.99')
    expect((await s.get(`/api/v1/usdc/${gate}`)).body.balanceUnits).toBe(gateBefore + 10_000)
    expect((await s.get(`/api/v1/usdc/tx/${receipt.transaction}`)).body).toMatchObject({ from: account.address.toLowerCase(), to: gate.toLowerCase(), amountUnits: 10_000, usedForCredits: true })
    const b = (await s.get('/api/v1/operator/billing', { token: o.token })).body
    expect(b.balance.balance).toBe(0)
    expect(b.transactions.slice(0, 2).map((t: any) => [t.reason.split(' ')[0], t.delta])).toEqual([['task_debit', -1], ['x402_payment', 1]])
    expect(b.transactions[1].reason).toBe(`x402_payment ${receipt.transaction}`)
  })

  test('compute requests are paid the same way (202 with X-PAYMENT-RESPONSE)', async () => {
    const o = await operator('compute-payer')
    const account = await fundedAccount()
    const res = await wrapFetchWithPayment(fetch, payer(account))(`${s.url}/api/v1/compute`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': o.agent.apiKey }, body: JSON.stringify({ model: 'builtin', prompt: 'Paid compute. It runs.' }) })
    expect(res.status).toBe(202)
    expect(decodePaymentResponseHeader(res.headers.get('x-payment-response')!)).toMatchObject({ success: true, payer: account.address })
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
    expect(Object.keys(headers)).toEqual(['X-PAYMENT'])
    expect((await submit(headers)).status).toBe(200)
    expectProblem(await submit(headers), 402, 'PAYMENT_REPLAYED')
  })
})
