// sdk/ (@taskgate/sdk) against a real server: the client typed by sdk/src/schema.d.ts (the root
// typecheck compiles this file against it, so a call the document no longer allows fails there),
// verifyReceipt (viem, plus the CID of the bytes served) and payWithX402 (a PAYMENT-SIGNATURE or X-PAYMENT header for a
// 402, from the REST API's problem and from the OpenAI door's error). Whether schema.d.ts is the
// document the server serves today: test/interop/sdk-schema.test.ts.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { createTaskGateClient, payWithX402, verifyReceipt, type TaskGateClient } from '../../sdk/src/index'
import { textHash } from '../helpers/receipts'
import { startServer, type TestServer } from '../helpers/server'

let s: TestServer
let operator: TaskGateClient
let agentClient: TaskGateClient
let agentId: string
let agentKey: string

beforeAll(async () => {
  // data_analysis costs more than a fresh operator's 100 credits: the 402 that x402 pays.
  s = await startServer({ TASKGATE_TASK_COST: JSON.stringify({ default: 1, data_analysis: 200 }), TASKGATE_FAUCET_PER_ADDRESS_PER_DAY: '1000' })
  await s.setupAdmin()
  operator = createTaskGateClient({ baseUrl: s.url, token: await s.signup('sdk-operator') })
  const agent = await operator.POST('/api/v1/agents/register', { body: { displayName: 'SDK bot', capabilities: ['general', 'data_analysis'] } })
  if (!agent.data) throw new Error(`register: ${agent.response.status}`)
  agentId = agent.data.agentId
  agentKey = agent.data.apiKey
  agentClient = createTaskGateClient({ baseUrl: `${s.url}/`, apiKey: agentKey })
}, 30_000)
afterAll(async () => { await s?.cleanup() })

async function submit(prompt: string) {
  const r = await agentClient.POST('/api/v1/tasks/submit', { params: { query: { wait: 30 } }, body: { agentId, taskType: 'general', prompt } })
  if (!r.data) throw new Error(`submit: ${r.response.status} ${JSON.stringify(r.error)}`)
  return r.data
}

/** A wallet with 10 mock USDC from the faucet (through the typed client). */
async function fundedAccount() {
  const account = privateKeyToAccount(generatePrivateKey())
  const r = await createTaskGateClient({ baseUrl: s.url }).POST('/api/v1/faucet/usdc', { body: { wallet: account.address, amount: 10 } })
  expect(r.data?.usdcMinted).toBe('10')
  return account
}

const usdcUnits = async (address: string) => (await createTaskGateClient({ baseUrl: s.url }).GET('/api/v1/usdc/{address}', { params: { path: { address } } })).data!.balanceUnits

describe('createTaskGateClient', () => {
  test('with a token it acts as the operator; with an API key as the agent; without either, the typed 401 problem', async () => {
    const me = await operator.GET('/api/v1/auth/me')
    expect(me.data?.identityLogin).toBe('sdk-operator')
    const t = await submit('The typed client submits. The receipt proves it.')
    expect(t.status).toBe('COMPLETED')
    expect(t.agentId).toBe(agentId)
    expect(t.receiptCid).toMatch(/^baf/)
    const read = await operator.GET('/api/v1/tasks/{id}', { params: { path: { id: t.id } } })
    expect(read.data).toMatchObject({ id: t.id, status: 'COMPLETED', output: t.output!, receiptCid: t.receiptCid! })
    const anonymous = await createTaskGateClient({ baseUrl: s.url }).GET('/api/v1/auth/me')
    expect(anonymous.response.status).toBe(401)
    expect(anonymous.data).toBeUndefined()
    expect(anonymous.error?.code).toBe('UNAUTHENTICATED')
  })
})

describe('verifyReceipt', () => {
  test('a task\'s receipt: signature valid, signer listed, bytes match the CID; the message covers the task and its output', async () => {
    const t = await submit('Verify this one. It was signed by the gateway.')
    const check = await verifyReceipt(s.url, t.receiptCid!)
    expect(check).toMatchObject({ valid: true, signerKnown: true, cidMatches: true })
    const signers = (await createTaskGateClient({ baseUrl: s.url }).GET('/.well-known/taskgate-signers')).data!
    expect(signers.signers.map((x) => x.address)).toContain(check.signer)
    expect(check.message).toMatchObject({ taskId: t.id, agentId, outputHash: textHash(t.output!), ipfsCid: t.ipfsCid!, attestationUid: t.attestationUid! })
  })

  test('a gateway that alters the receipt or the signer list is caught', async () => {
    const t = await submit('A lying gateway is caught. The bytes give it away.')
    const cid = t.receiptCid!
    const tampering: typeof fetch = Object.assign(async (input: RequestInfo | URL, init?: RequestInit) => {
      const res = await fetch(input, init)
      const url = String(input)
      if (url.includes(`/ipfs/${cid}`)) {
        const doc = await res.json() as any
        doc.payload.message.outputHash = textHash('something else')
        return new Response(JSON.stringify(doc), { status: 200 })
      }
      if (url.endsWith('/.well-known/taskgate-signers')) return new Response(JSON.stringify({ signers: [{ address: privateKeyToAccount(generatePrivateKey()).address }] }), { status: 200 })
      return res
    }, { preconnect: fetch.preconnect })
    expect(await verifyReceipt(s.url, cid, { fetch: tampering })).toMatchObject({ valid: false, signerKnown: false, cidMatches: false })
  })

  test('a CID that is not a receipt (the task document) is refused', async () => {
    const t = await submit('Not every CID is a receipt. This one is a task.')
    await expect(verifyReceipt(s.url, t.ipfsCid!)).rejects.toThrow('not a signed receipt')
  })
})

describe('payWithX402', () => {
  test('pays the REST API\'s 402 with x402 v2 (its PAYMENT-REQUIRED header): the retried submit completes, PAYMENT-RESPONSE names the payer, the wallet pays the price once', async () => {
    const account = await fundedAccount()
    const body = { agentId, taskType: 'data_analysis' as const, prompt: 'Paid analysis. Worth every credit.' }
    const unpaid = await agentClient.POST('/api/v1/tasks/submit', { body })
    expect(unpaid.response.status).toBe(402)
    expect(unpaid.error?.code).toBe('INSUFFICIENT_CREDITS')
    const before = await usdcUnits(account.address)
    const payment = await payWithX402({ headers: unpaid.response.headers, body: unpaid.error }, account)
    expect(Object.keys(payment)).toEqual(['PAYMENT-SIGNATURE'])
    const paid = await agentClient.POST('/api/v1/tasks/submit', { params: { query: { wait: 30 }, header: payment }, body })
    expect(paid.response.status).toBe(200)
    expect(paid.data).toMatchObject({ status: 'COMPLETED', taskType: 'data_analysis', creditsCharged: 200 })
    const settled = JSON.parse(atob(paid.response.headers.get('payment-response')!))
    expect(settled).toMatchObject({ success: true, network: 'eip155:84532', payer: account.address })
    expect(before - await usdcUnits(account.address)).toBe(200 * 10_000)
    expect((await verifyReceipt(s.url, paid.data!.receiptCid!)).valid).toBe(true)
    const replay = await agentClient.POST('/api/v1/tasks/submit', { params: { header: payment }, body })
    expect(replay.response.status).toBe(402)
    expect(replay.error?.code).toBe('PAYMENT_REPLAYED')
  })

  test('given the 402\'s body alone, pays with x402 v1 (X-PAYMENT; X-PAYMENT-RESPONSE confirms)', async () => {
    const account = await fundedAccount()
    const body = { agentId, taskType: 'data_analysis' as const, prompt: 'Paid analysis, the v1 way.' }
    const unpaid = await agentClient.POST('/api/v1/tasks/submit', { body })
    const payment = await payWithX402(unpaid.error, account)
    expect(Object.keys(payment)).toEqual(['X-PAYMENT'])
    const paid = await agentClient.POST('/api/v1/tasks/submit', { params: { query: { wait: 30 }, header: payment }, body })
    expect(paid.response.status).toBe(200)
    expect(JSON.parse(atob(paid.response.headers.get('x-payment-response')!))).toMatchObject({ success: true, network: 'base-sepolia', payer: account.address })
  })

  test('pays the OpenAI door\'s 402 (its `x402` member); the completion\'s receipt verifies', async () => {
    const account = await fundedAccount()
    const call = (headers: Record<string, string> = {}) => fetch(`${s.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agentKey}`, 'content-type': 'application/json', 'x-taskgate-task-type': 'data_analysis', ...headers },
      body: JSON.stringify({ model: 'builtin', messages: [{ role: 'user', content: 'Analyse the quarter. Sales rose, costs fell.' }] }),
    })
    const unpaid = await call()
    expect(unpaid.status).toBe(402)
    const challenge = await unpaid.json() as any
    expect(challenge.error.code).toBe('insufficient_credits')
    const paid = await call(await payWithX402({ headers: unpaid.headers, body: challenge }, account))
    expect(paid.status).toBe(200)
    const completion = await paid.json() as any
    const check = await verifyReceipt(s.url, completion.taskgate.receiptCid)
    expect(check).toMatchObject({ valid: true, signerKnown: true, cidMatches: true })
    expect(check.message.outputHash).toBe(textHash(completion.choices[0].message.content))
  })

  test('a body that asks for no payment, or for one it cannot make, is refused before anything is signed', async () => {
    const account = privateKeyToAccount(generatePrivateKey())
    await expect(payWithX402({ code: 'NOT_FOUND' }, account)).rejects.toThrow('no `accepts`')
    await expect(payWithX402({ accepts: [{ scheme: 'upto', network: 'base-sepolia', maxAmountRequired: '1', payTo: account.address, asset: account.address, maxTimeoutSeconds: 60 }] }, account)).rejects.toThrow('no payable requirement')
  })
})
