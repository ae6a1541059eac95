// The MCP door over real HTTP with the official SDK's client (Streamable HTTP): the six tools,
// their schemas, scoping by credential, refusals as isError results, and a receipt obtained
// through submit_task that verify_receipt and viem both accept.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { payWithX402 } from '../../sdk/src/index'
import { checkReceipt, textHash } from '../helpers/receipts'
import { startServer, type TestServer } from '../helpers/server'

let s: TestServer
let admin: string
let op: { token: string; id: string; agent: any }
const clients: Client[] = []

beforeAll(async () => {
  // data_analysis costs more than a new operator's credits: its tasks must be paid with x402
  s = await startServer({ TASKGATE_TEST_CLOCK: '1', TASKGATE_TASK_COST: JSON.stringify({ default: 1, data_analysis: 1000 }) })
  admin = await s.setupAdmin()
  op = await s.operatorWithAgent('mcp-op', ['general', 'sentiment_analysis'])
}, 30_000)
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => {})
  await s?.cleanup()
})

/** An MCP client as a user configures it: the URL and an Authorization header. */
async function connect(credential: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'taskgate-test', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(`${s.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${credential}`, ...headers } } })
  await client.connect(transport)
  clients.push(client)
  return client
}

describe('MCP door', () => {
  test('submit_task is paid with x402 v2: a PAYMENT-SIGNATURE header on the /mcp requests (docs/payments.md)', async () => {
    const poor = await s.operatorWithAgent('mcp-payer', ['data_analysis'])
    const args = { name: 'submit_task', arguments: { prompt: 'Analyse: paid through MCP.', taskType: 'data_analysis', waitSeconds: 30 } }
    const unpaid = await (await connect(poor.agent.apiKey)).callTool(args)
    expect(unpaid.isError).toBe(true)
    expect((unpaid.content as { text: string }[])[0]!.text).toStartWith('INSUFFICIENT_CREDITS:')
    // the requirements: those the REST submit states for the same task type
    const rest = await s.post('/api/v1/tasks/submit', { agentId: poor.agent.agentId, taskType: 'data_analysis', prompt: 'x' }, { key: poor.agent.apiKey })
    expect(rest.status).toBe(402)
    const wallet = privateKeyToAccount(generatePrivateKey())
    expect((await s.post('/api/v1/faucet/usdc', { wallet: wallet.address, amount: 10 })).status).toBe(200)
    const payment = await payWithX402({ headers: rest.headers, body: rest.body }, wallet)
    expect(Object.keys(payment)).toEqual(['PAYMENT-SIGNATURE'])
    const paid = await (await connect(poor.agent.apiKey, payment)).callTool(args)
    expect(paid.isError).toBeFalsy()
    expect((paid.structuredContent as any).task).toMatchObject({ status: 'COMPLETED', taskType: 'data_analysis', creditsCharged: 1000 })
    expect((await s.get(`/api/v1/usdc/${wallet.address}`)).body.balance).toBe('0')
  })

  test('lists the six tools, each with an input and an output schema', async () => {
    const c = await connect(op.agent.apiKey)
    const { tools } = await c.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual(['get_passport', 'get_task', 'list_tasks', 'pending_approvals', 'submit_task', 'verify_receipt'])
    for (const t of tools) {
      expect(t.inputSchema.type).toBe('object')
      expect(t.outputSchema?.type).toBe('object')
    }
    expect(c.getServerVersion()?.name).toBe('taskgate')
  })

  test('submit_task runs the pipeline; verify_receipt and viem accept its receipt', async () => {
    const c = await connect(op.agent.apiKey)
    const r = await c.callTool({ name: 'submit_task', arguments: { prompt: 'The gateway signs receipts. Receipts verify anywhere. That is the point.', waitSeconds: 30 } })
    expect(r.isError).toBeFalsy()
    const task = (r.structuredContent as any).task
    expect(task).toMatchObject({ status: 'COMPLETED', agentId: op.agent.agentId, taskType: 'general' })
    expect(task.receiptCid).toBeTruthy()
    const detail = (await s.get(`/api/v1/tasks/${task.id}`, { token: op.token })).body
    expect(detail.door).toBe('mcp')
    expect(detail.timeline).toHaveLength(8)
    const v = await c.callTool({ name: 'verify_receipt', arguments: { cid: task.receiptCid } })
    expect(v.structuredContent).toMatchObject({ kind: 'receipt', signatureValid: true, cidMatches: true, signerKnown: true, taskId: task.id })
    const receipt = await checkReceipt(s.url, task.receiptCid)
    expect(receipt.valid && receipt.listed).toBe(true)
    expect(receipt.message.outputHash).toBe(textHash(task.output))

    const got = await c.callTool({ name: 'get_task', arguments: { taskId: task.id } })
    expect((got.structuredContent as any).task.output).toBe(task.output)
    const list = await c.callTool({ name: 'list_tasks', arguments: { status: 'COMPLETED', limit: 5 } })
    expect((list.structuredContent as any).tasks.map((t: any) => t.id)).toContain(task.id)
    const passport = await c.callTool({ name: 'get_passport', arguments: { agentId: op.agent.agentId } })
    expect((passport.structuredContent as any).totalTasks).toBeGreaterThanOrEqual(1)
  })

  test('a client that lists the tools first checks every result against its output schema, and each passes', async () => {
    // The SDK's client validates structuredContent only against schemas it has listed (most MCP
    // hosts list first): a result with a member the schema closes out fails there, not on the server.
    const c = await connect(op.agent.apiKey)
    await c.listTools()
    const submitted = await c.callTool({ name: 'submit_task', arguments: { prompt: 'Listed first. Every result is checked.', waitSeconds: 30 } })
    const task = (submitted.structuredContent as any).task
    expect(task).toMatchObject({ status: 'COMPLETED', door: 'mcp' })
    const calls: [string, Record<string, unknown>][] = [
      ['get_task', { taskId: task.id }], ['list_tasks', { limit: 5 }], ['verify_receipt', { cid: task.receiptCid }],
      ['get_passport', { agentId: op.agent.agentId }], ['pending_approvals', {}],
    ]
    for (const [name, args] of calls) {
      const r = await c.callTool({ name, arguments: args })
      expect(r.isError).toBeFalsy()
      expect(r.structuredContent).toBeDefined()
    }
  })

  test('refusals are tool results with isError naming the code', async () => {
    const other = await s.operatorWithAgent('mcp-killed', ['general'])
    expect((await s.patch('/api/v1/operator/kill-switch', { active: true, reason: 'mcp test' }, { token: other.token })).status).toBe(200)
    const c = await connect(other.agent.apiKey)
    const r = await c.callTool({ name: 'submit_task', arguments: { prompt: 'anything at all' } })
    expect(r.isError).toBe(true)
    expect((r.content as any)[0].text).toStartWith('KILL_SWITCH_ACTIVE')
  })

  test('an agent-bound key acts only for its agent; another operator\'s task is not found', async () => {
    const other = await s.operatorWithAgent('mcp-other', ['general'])
    const c = await connect(op.agent.apiKey)
    const mismatch = await c.callTool({ name: 'submit_task', arguments: { prompt: 'hi there', agentId: other.agent.agentId } })
    expect(mismatch.isError).toBe(true)
    expect((mismatch.content as any)[0].text).toStartWith('AGENT_KEY_MISMATCH')
    const theirs = await (await connect(other.agent.apiKey)).callTool({ name: 'submit_task', arguments: { prompt: 'Their task. Private to them.' } })
    const id = (theirs.structuredContent as any).task.id
    const read = await c.callTool({ name: 'get_task', arguments: { taskId: id } })
    expect(read.isError).toBe(true)
    expect((read.content as any)[0].text).toStartWith('NOT_FOUND')
  })

  test('an operator token names the agent; pending_approvals lists held work', async () => {
    const held = await s.operatorWithAgent('mcp-held', ['general'])
    expect((await s.patch('/api/v1/operator/guardrails', { approvalThreshold: 10 }, { token: held.token })).status).toBe(200)
    expect((await s.post('/api/v1/admin/clock/advance', { ms: 31_000 }, { token: admin })).status).toBe(200)
    const sub = await s.post('/api/v1/tasks/submit?wait=0', { agentId: held.agent.agentId, taskType: 'general', prompt: 'Pay the invoice.', action: { requestedValue: 500 } }, { token: held.token })
    expect(sub.body.status).toBe('PENDING_APPROVAL')
    const c = await connect(held.token)
    const noAgent = await c.callTool({ name: 'submit_task', arguments: { prompt: 'who am I' } })
    expect(noAgent.isError).toBe(true)
    expect((noAgent.content as any)[0].text).toStartWith('AGENT_ID_REQUIRED')
    // the header every door reads names the agent for the whole client (as the console's MCP config sets it)
    const named = await (await connect(held.token, { 'x-taskgate-agent-id': held.agent.agentId })).callTool({ name: 'submit_task', arguments: { prompt: 'Named by the header. Runs as the agent.' } })
    expect(named.isError).toBeFalsy()
    expect((named.structuredContent as any).task.agentId).toBe(held.agent.agentId)
    const p = await c.callTool({ name: 'pending_approvals', arguments: {} })
    expect((p.structuredContent as any).pending.map((x: any) => x.taskId)).toContain(sub.body.id)
  })

  test('DNS rebinding: another site\'s Origin, or a non-loopback Host on a loopback server, → 403', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })
    const send = (headers: Record<string, string>) => fetch(`${s.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${op.agent.apiKey}`, ...headers }, body })
    const evil = await send({ origin: 'http://evil.example' })
    expect(evil.status).toBe(403)
    expect((await evil.json() as any).code).toBe('ORIGIN_NOT_ALLOWED')
    expect((await send({ host: 'evil.example' })).status).toBe(403)
    expect((await send({ origin: s.url })).status).toBe(200)
    expect((await send({ host: `localhost:${new URL(s.url).port}` })).status).toBe(200)
  })

  test('no credential or a bad one → 401 with WWW-Authenticate', async () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } })
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
    for (const auth of [{}, { authorization: 'Bearer tg_live_not_a_real_key' }] as Record<string, string>[]) {
      const r = await fetch(`${s.url}/mcp`, { method: 'POST', headers: { ...headers, ...auth }, body })
      expect(r.status).toBe(401)
      expect(r.headers.get('www-authenticate')).toContain('Bearer')
    }
    await expect(connect('tg_live_not_a_real_key')).rejects.toThrow()
  })
})
