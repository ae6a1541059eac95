// The A2A door over real HTTP with the A2A SDK's own client (@a2a-js/sdk 1.3, JSON-RPC, protocol
// 1.0): card discovery, a message to completion whose receipt verifies with viem, a stream in
// order, a task held for approval (auth-required) that completes once approved, refusals
// (rejected tasks, JSON-RPC errors), cancel, scoping by credential and 401 without one, push config
// URLs the outbound policy refuses (push notifications themselves: a2a-push.test.ts); and a v0.3
// client's raw JSON-RPC message/send. Guardrail changes activate through the test clock.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { AgentCard, TaskState, type StreamResponse, type Task } from '@a2a-js/sdk'
import type { Client } from '@a2a-js/sdk/client'
import { agentCardHandler } from '@a2a-js/sdk/server/express'
import { TaskNotCancelableError, TaskNotFoundError } from '@a2a-js/sdk/errors'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { payWithX402 } from '../../sdk/src/index'
import { artifactOf, asTask, connect as connectTo, message, rejection, rpcErrorOf } from '../helpers/a2a'
import { FakeLLM, gate } from '../helpers/fake-llm'
import { expectReceiptCovers } from '../helpers/receipts'
import { expectProblem, startServer, type TestServer } from '../helpers/server'

let s: TestServer
let fake: FakeLLM
let admin: string
let op: { token: string; id: string; agent: any }

const TASK_TYPES = ['general', 'code', 'analysis', 'creative', 'trade_signal', 'sentiment_analysis', 'evm_action', 'spend_control', 'data_analysis', 'external_comms', 'deploy_actions', 'content_publication']

beforeAll(async () => {
  fake = await FakeLLM.start()
  // data_analysis costs more than a new operator's credits: a 402 without any other setup
  s = await startServer({ TASKGATE_TEST_CLOCK: '1', TASKGATE_TASK_COST: JSON.stringify({ default: 1, data_analysis: 1000 }) })
  admin = await s.setupAdmin()
  op = await s.operatorWithAgent('a2a-op', ['general', 'sentiment_analysis'])
}, 30_000)
afterAll(async () => {
  await s?.cleanup()
  fake?.stop()
})

/** An A2A client of this server (test/helpers/a2a.ts). */
const connect = (credential: string, headers: Record<string, string> = {}): Promise<Client> => connectTo(s.url, credential, headers)

const advance = async (ms: number) => expect((await s.post('/api/v1/admin/clock/advance', { ms }, { token: admin })).status).toBe(200)

/** One raw JSON-RPC call (as a v0.3 client, or curl, sends it). */
const rpc = (body: Record<string, unknown>, headers: Record<string, string> = {}, credential: string | null = op.agent.apiKey) =>
  s.post('/a2a', { jsonrpc: '2.0', id: 1, ...body }, { headers: { ...(credential ? { authorization: `Bearer ${credential}` } : {}), ...headers } })

describe('A2A door', () => {
  test('the Agent Card: skills are the task types, JSON-RPC at <base>/a2a (1.0 and 0.3), API key schemes, cacheable; the 0.3 shape is the SDK\'s own translation', async () => {
    const c = await connect(op.agent.apiKey)
    const card = await c.getAgentCard()
    expect(card.name).toBe('TaskGate')
    expect(card.skills.map((x) => x.id)).toEqual(TASK_TYPES)
    expect(card.supportedInterfaces.map((i) => [i.url, i.protocolBinding, i.protocolVersion])).toEqual([[`${s.url}/a2a`, 'JSONRPC', '1.0'], [`${s.url}/a2a`, 'JSONRPC', '0.3']])
    expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: true })
    expect(card.securitySchemes.bearer!.scheme).toMatchObject({ $case: 'httpAuthSecurityScheme', value: { scheme: 'Bearer' } })
    expect(card.securitySchemes.apiKey!.scheme).toMatchObject({ $case: 'apiKeySecurityScheme', value: { location: 'header', name: 'x-api-key' } })
    expect(card.securityRequirements.map((r) => Object.keys(r.schemes))).toEqual([['bearer'], ['apiKey']])
    expect(c.protocolVersion).toBe('1.0')

    const v1 = await s.get('/.well-known/agent-card.json', { headers: { 'A2A-Version': '1.0' } })
    expect(v1.status).toBe(200)
    expect(v1.headers.get('cache-control')).toBe('public, max-age=300')
    expect(v1.headers.get('vary')).toContain('A2A-Version')
    const legacy = await s.get('/.well-known/agent-card.json')
    expect(legacy.body).toMatchObject({ url: `${s.url}/a2a`, preferredTransport: 'JSONRPC', protocolVersion: '0.3', security: [{ bearer: [] }, { apiKey: [] }] })

    // The SDK's own card handler (express, with its 0.3 layer) makes the same 0.3 card of the 1.0 one.
    const express = (await import('express' as string)).default
    const app = express()
    app.use('/card', agentCardHandler({ agentCardProvider: async () => AgentCard.fromJSON(v1.body), legacyCompat: { enabled: true } }))
    const server = await new Promise<any>((resolve) => { const x = app.listen(0, '127.0.0.1', () => resolve(x)) })
    try {
      const sdkLegacy = await fetch(`http://127.0.0.1:${server.address().port}/card`).then((r) => r.json())
      expect(legacy.body).toEqual(sdkLegacy)
      // and the 1.0 card is the SDK's protobuf JSON of itself
      expect(AgentCard.toJSON(AgentCard.fromJSON(v1.body))).toEqual(v1.body)
    } finally {
      server.close()
    }
  })

  test('SendMessage runs a task through all 8 stages: completed, an artifact with the output and { taskId, receiptCid, attestationUid }, a receipt viem verifies', async () => {
    const c = await connect(op.agent.apiKey)
    const t = asTask(await c.sendMessage(message('Receipts travel with every A2A task. Summarise that.')))
    expect(t.status!.state).toBe(TaskState.TASK_STATE_COMPLETED)
    expect(t.contextId).toBe(t.id) // no contextId sent: the task's own id
    const { text, data } = artifactOf(t)
    expect(data.taskId).toBe(t.id)
    expect(data.receiptCid).toBeTruthy()
    expect(data.attestationUid).toBeTruthy()
    await expectReceiptCovers(s.url, data.receiptCid, t.id, text)
    const detail = (await s.get(`/api/v1/tasks/${t.id}`, { token: op.token })).body
    expect(detail).toMatchObject({ status: 'COMPLETED', door: 'a2a', taskType: 'general', agentId: op.agent.agentId, output: text, receiptCid: data.receiptCid })
    expect(detail.timeline).toHaveLength(8)
    // GetTask answers the same task
    const again = await c.getTask({ tenant: '', id: t.id, historyLength: undefined })
    expect(again.status!.state).toBe(TaskState.TASK_STATE_COMPLETED)
    expect(artifactOf(again).data).toEqual(data)
  })

  test('metadata.taskType picks the type; a client\'s contextId is kept with the task', async () => {
    const c = await connect(op.agent.apiKey)
    const t = asTask(await c.sendMessage(message('I love how fast this gateway is.', { taskType: 'sentiment_analysis', note: 'kept' }, 'conversation-42')))
    expect(t.contextId).toBe('conversation-42')
    expect(t.status!.state).toBe(TaskState.TASK_STATE_COMPLETED)
    expect((await c.getTask({ tenant: '', id: t.id, historyLength: undefined })).contextId).toBe('conversation-42')
    const detail = (await s.get(`/api/v1/tasks/${t.id}`, { token: op.token })).body
    expect(detail).toMatchObject({ taskType: 'sentiment_analysis', metadata: { note: 'kept', a2aContextId: 'conversation-42' } })
  })

  test('SendStreamingMessage: the task (working), status updates, the artifact, then completed', async () => {
    const c = await connect(op.agent.apiKey)
    const events: StreamResponse[] = []
    for await (const e of c.sendMessageStream(message('Stream me a short note on verifiable receipts.'))) events.push(e)
    const kinds = events.map((e) => e.payload!.$case)
    expect(kinds[0]).toBe('task')
    expect(kinds.at(-2)).toBe('artifactUpdate')
    expect(kinds.at(-1)).toBe('statusUpdate')
    const first = events[0]!.payload!.value as Task
    expect(first.status!.state).toBe(TaskState.TASK_STATE_WORKING)
    const updates = events.slice(1, -2)
    expect(updates.length).toBeGreaterThan(0)
    for (const u of updates) {
      expect(u.payload!.$case).toBe('statusUpdate')
      expect((u.payload!.value as { status: { state: TaskState } }).status.state).toBe(TaskState.TASK_STATE_WORKING)
    }
    const last = events.at(-1)!.payload!.value as { taskId: string; status: { state: TaskState } }
    expect(last.taskId).toBe(first.id)
    expect(last.status.state).toBe(TaskState.TASK_STATE_COMPLETED)
    const artifact = (events.at(-2)!.payload!.value as { artifact: Task['artifacts'][number] }).artifact
    const data = artifact.parts.find((p) => p.content?.$case === 'data')!.content!.value as { taskId: string; receiptCid: string }
    const output = artifact.parts.find((p) => p.content?.$case === 'text')!.content!.value as string
    expect(data.taskId).toBe(first.id)
    await expectReceiptCovers(s.url, data.receiptCid, first.id, output)
  })

  describe('approvals, refusals and cancel', () => {
    let gated: { token: string; id: string; agent: any }
    beforeAll(async () => {
      gated = await s.operatorWithAgent('a2a-gated', ['general'])
      expect((await s.patch('/api/v1/operator/guardrails', { approvalThreshold: 10, blockedPatterns: ['forbidden-word'] }, { token: gated.token })).status).toBe(200)
      await advance(31_000)
    })
    const action = { actionType: 'payment', target: 'supplier', requestedValue: 500, currency: 'USD' }

    test('a held message answers auth-required; once the operator approves, GetTask shows it completed', async () => {
      const c = await connect(gated.agent.apiKey)
      const t = asTask(await c.sendMessage(message('Pay the supplier.', { action })))
      expect(t.status!.state).toBe(TaskState.TASK_STATE_AUTH_REQUIRED)
      const approvalId = t.metadata!.taskgate.approvalId as string
      expect(approvalId).toMatch(/^apr_/)
      expect((t.status!.message!.parts[0]!.content!.value as string)).toContain(approvalId)
      // the stream of a held message ends at auth-required
      const events: StreamResponse[] = []
      for await (const e of c.sendMessageStream(message('Pay the other supplier.', { action }))) events.push(e)
      expect(events).toHaveLength(1)
      expect((events[0]!.payload!.value as Task).status!.state).toBe(TaskState.TASK_STATE_AUTH_REQUIRED)

      const approved = await s.patch(`/api/v1/approvals/${approvalId}`, { decision: 'approved' }, { token: gated.token })
      expect(approved.status).toBe(200)
      expect(approved.body.receipt.status).toBe('COMPLETED')
      const done = await c.getTask({ tenant: '', id: t.id, historyLength: undefined })
      expect(done.status!.state).toBe(TaskState.TASK_STATE_COMPLETED)
      const { text, data } = artifactOf(done)
      await expectReceiptCovers(s.url, data.receiptCid, t.id, text)
    })

    test('a guardrail refusal is a rejected task; the kill-switch is a JSON-RPC error naming KILL_SWITCH_ACTIVE, and no task', async () => {
      const c = await connect(gated.agent.apiKey)
      const t = asTask(await c.sendMessage(message('This has the forbidden-word in it.')))
      expect(t.status!.state).toBe(TaskState.TASK_STATE_REJECTED)
      expect(t.status!.message!.parts[0]!.content!.value as string).toStartWith('GUARDRAIL_BLOCKED')
      expect((await s.get(`/api/v1/tasks/${t.id}`, { token: gated.token })).body).toMatchObject({ status: 'FAILED', failureCode: 'GUARDRAIL_BLOCKED', door: 'a2a' })

      const killed = await s.operatorWithAgent('a2a-killed', ['general'])
      expect((await s.patch('/api/v1/operator/kill-switch', { active: true, reason: 'a2a test' }, { token: killed.token })).status).toBe(200)
      const e = rpcErrorOf(await rejection((await connect(killed.agent.apiKey)).sendMessage(message('anything at all'))))
      expect(e).toMatchObject({ code: -32000, reason: 'KILL_SWITCH_ACTIVE' })
      expect(e.message).toStartWith('KILL_SWITCH_ACTIVE')
      expect((await s.get('/api/v1/operator/tasks', { token: killed.token })).body.total).toBe(0)
    })

    test('CancelTask: a held task → canceled (twice harmless); a completed task → not cancelable', async () => {
      const c = await connect(gated.agent.apiKey)
      const t = asTask(await c.sendMessage(message('Pay the third supplier.', { action })))
      expect(t.status!.state).toBe(TaskState.TASK_STATE_AUTH_REQUIRED)
      const cancelled = await c.cancelTask({ tenant: '', id: t.id, metadata: undefined })
      expect(cancelled.status!.state).toBe(TaskState.TASK_STATE_CANCELED)
      expect((await c.cancelTask({ tenant: '', id: t.id, metadata: undefined })).status!.state).toBe(TaskState.TASK_STATE_CANCELED)
      expect((await c.getTask({ tenant: '', id: t.id, historyLength: undefined })).status!.state).toBe(TaskState.TASK_STATE_CANCELED)
      const apr = (await s.get(`/api/v1/approvals/${t.metadata!.taskgate.approvalId}`, { token: gated.token })).body
      expect(apr.decision).toBe('EXPIRED')

      const done = asTask(await c.sendMessage(message('A plain task that completes.')))
      expect(done.status!.state).toBe(TaskState.TASK_STATE_COMPLETED)
      const e = await rejection(c.cancelTask({ tenant: '', id: done.id, metadata: undefined }))
      expect(e).toBeInstanceOf(TaskNotCancelableError)
      expect(rpcErrorOf(e).code).toBe(-32002)
    })
  })

  test('an agent key reaches only its agent\'s tasks; an operator token names the agent in x-taskgate-agent-id', async () => {
    const mine = asTask(await (await connect(op.agent.apiKey)).sendMessage(message('Mine, and only mine.')))
    const second = await s.post('/api/v1/agents/register', { displayName: 'second', capabilities: ['general'] }, { token: op.token })
    const other = await connect(second.body.apiKey)
    for (const call of [other.getTask({ tenant: '', id: mine.id, historyLength: undefined }), other.cancelTask({ tenant: '', id: mine.id, metadata: undefined })]) {
      const e = await rejection(call)
      expect(e).toBeInstanceOf(TaskNotFoundError)
      expect(rpcErrorOf(e).code).toBe(-32001)
    }
    const stranger = await s.operatorWithAgent('a2a-stranger', ['general'])
    expect(await rejection((await connect(stranger.token, { 'x-taskgate-agent-id': stranger.agent.agentId })).getTask({ tenant: '', id: mine.id, historyLength: undefined }))).toBeInstanceOf(TaskNotFoundError)
    // an agent key naming another agent
    expect(rpcErrorOf(await rejection((await connect(op.agent.apiKey, { 'x-taskgate-agent-id': second.body.agentId })).sendMessage(message('not yours'))))).toMatchObject({ code: -32000, reason: 'AGENT_KEY_MISMATCH' })

    // the operator's token: the agent named in the header, else the door's error
    const named = asTask(await (await connect(op.token, { 'x-taskgate-agent-id': op.agent.agentId })).sendMessage(message('Named by the header.')))
    expect(named.metadata!.taskgate.agentId).toBe(op.agent.agentId)
    expect(named.status!.state).toBe(TaskState.TASK_STATE_COMPLETED)
    expect(rpcErrorOf(await rejection((await connect(op.token)).sendMessage(message('who am I'))))).toMatchObject({ code: -32602, reason: 'AGENT_ID_REQUIRED' })
  })

  test('not enough credits: a JSON-RPC error naming INSUFFICIENT_CREDITS with the x402 payment requirements, and no task', async () => {
    const poor = await s.operatorWithAgent('a2a-poor', ['data_analysis'])
    const e = rpcErrorOf(await rejection((await connect(poor.agent.apiKey)).sendMessage(message('Analyse this.', { taskType: 'data_analysis' }))))
    expect(e).toMatchObject({ code: -32000, reason: 'INSUFFICIENT_CREDITS' })
    const raw = await rpc({ method: 'SendMessage', params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'Analyse this.' }], metadata: { taskType: 'data_analysis' } } } }, { 'A2A-Version': '1.0' }, poor.agent.apiKey)
    const info = raw.body.error.data[0]
    expect(info).toMatchObject({ reason: 'INSUFFICIENT_CREDITS', domain: 'taskgate', metadata: { status: '402', needed: '1000' } })
    expect(JSON.parse(info.metadata.accepts)[0]).toMatchObject({ scheme: 'exact' })
    expect((await s.get('/api/v1/operator/tasks', { token: poor.token })).body.total).toBe(0)

    // the answer carries the x402 v2 requirements too (header PAYMENT-REQUIRED): paying with PAYMENT-SIGNATURE completes the task
    expect(raw.headers.get('payment-required')).toBeTruthy()
    const wallet = privateKeyToAccount(generatePrivateKey())
    expect((await s.post('/api/v1/faucet/usdc', { wallet: wallet.address, amount: 10 })).status).toBe(200)
    const payment = await payWithX402({ headers: raw.headers, body: null }, wallet)
    expect(Object.keys(payment)).toEqual(['PAYMENT-SIGNATURE'])
    const paid = asTask(await (await connect(poor.agent.apiKey, payment)).sendMessage(message('Analyse this.', { taskType: 'data_analysis' })))
    expect(paid.status!.state).toBe(TaskState.TASK_STATE_COMPLETED)
    expect((await s.get(`/api/v1/usdc/${wallet.address}`)).body.balance).toBe('0')
    const billing = (await s.get('/api/v1/operator/billing', { token: poor.token })).body
    expect(billing.transactions[0]).toMatchObject({ delta: -1000 })
    expect(billing.transactions[1].reason).toMatch(/^x402_payment 0x[0-9a-f]{64}$/)
  })

  test('returnImmediately answers working; SubscribeToTask follows it to completed; ListTasks lists it; a finished task cannot be subscribed to', async () => {
    const KEY = `sk-a2a-${crypto.randomUUID()}`
    const g = gate()
    fake.set(KEY, { content: 'A slow but verifiable answer.', gate: g })
    expect((await s.post('/api/v1/admin/providers', { name: 'a2a-slow', kind: 'openai', baseUrl: fake.baseUrl, models: ['a2a-slow-model'], keys: [{ key: KEY }] }, { token: admin })).status).toBe(201)
    const c = await connect(op.agent.apiKey)
    const req = message('Take your time.', { model: 'a2a-slow-model' })
    req.configuration = { returnImmediately: true, acceptedOutputModes: [], taskPushNotificationConfig: undefined, historyLength: undefined }
    const t = asTask(await c.sendMessage(req))
    expect(t.status!.state).toBe(TaskState.TASK_STATE_WORKING)
    expect(t.artifacts).toHaveLength(0)
    await fake.waitForRequest((r) => r.key === KEY)
    const events: StreamResponse[] = []
    const done = (async () => { for await (const e of c.resubscribeTask({ tenant: '', id: t.id })) events.push(e) })()
    // the first event (the task) is there before the provider answers
    for (let i = 0; i < 250 && events.length === 0; i++) await Bun.sleep(20)
    expect((events[0]!.payload!.value as Task).status!.state).toBe(TaskState.TASK_STATE_WORKING)
    g.release()
    await done
    expect(events.at(-2)!.payload!.$case).toBe('artifactUpdate')
    expect((events.at(-1)!.payload!.value as { status: { state: TaskState } }).status.state).toBe(TaskState.TASK_STATE_COMPLETED)

    const list = await c.listTasks({ tenant: '', contextId: '', status: TaskState.TASK_STATE_COMPLETED, pageSize: 2, pageToken: '', historyLength: undefined, statusTimestampAfter: undefined, includeArtifacts: true })
    expect(list.tasks[0]!.id).toBe(t.id)
    expect(list.tasks.every((x) => x.status!.state === TaskState.TASK_STATE_COMPLETED)).toBe(true)
    expect(list.tasks[0]!.artifacts).toHaveLength(1)
    expect(list.totalSize).toBeGreaterThan(2)
    expect(list.nextPageToken).toBe('2')
    const e = await rejection((async () => { for await (const _ of c.resubscribeTask({ tenant: '', id: t.id })) { /* none */ } })())
    expect(rpcErrorOf(e).code).toBe(-32004)
  })

  test('no credential or a bad one → HTTP 401 with WWW-Authenticate', async () => {
    for (const credential of [null, 'tg_live_not_a_real_key']) {
      const r = await rpc({ method: 'GetTask', params: { id: 'task_x' } }, { 'A2A-Version': '1.0' }, credential)
      expectProblem(r, 401)
      expect(r.headers.get('www-authenticate')).toContain('Bearer')
    }
    const e = await rejection((await connect('tg_live_not_a_real_key')).sendMessage(message('hello')))
    expect(String((e as Error).message)).toContain('401')
  })

  test('bad input is a JSON-RPC error, never a 500: no text, a file part, a bad action, an unknown task type, a follow-up message, an unknown method or version', async () => {
    const v1 = { 'A2A-Version': '1.0' }
    const send = (msg: Record<string, unknown>, metadata?: Record<string, unknown>) => rpc({ method: 'SendMessage', params: { message: { messageId: 'm1', role: 'ROLE_USER', parts: [{ text: 'hello there' }], ...msg, ...(metadata ? { metadata } : {}) } } }, v1)
    const cases: [Promise<any>, number, string?][] = [
      [send({ parts: [{ text: '   ' }] }), -32602, 'PROMPT_REQUIRED'],
      [send({ parts: [{ url: 'https://example.com/a.pdf', mediaType: 'application/pdf' }] }), -32005],
      [send({}, { action: { requestedValue: 'lots' } }), -32602, 'VALIDATION_FAILED'],
      [send({}, { taskType: 'system' }), -32602, 'INVALID_TASK_TYPE'],
      [send({ taskId: 'task_earlier' }), -32004],
      [rpc({ method: 'SendMessage', params: {} }, v1), -32602, 'VALIDATION_FAILED'],
      [rpc({ method: 'SendMessage', params: { message: { parts: [null] } } }, v1), -32602],
      [rpc({ method: 'NoSuchMethod', params: {} }, v1), -32601],
      [rpc({ method: 'GetTask', params: { id: 'task_x' } }, { 'A2A-Version': '2.0' }), -32009],
      [rpc({ method: 'CreateTaskPushNotificationConfig', params: { taskId: 'task_x', url: 'https://example.com/hook' } }, v1), -32001],
    ]
    for (const [p, code, reason] of cases) {
      const r = await p
      expect(r.status).toBe(200)
      expect(r.body.error.code).toBe(code)
      if (reason) expect(r.body.error.data[0]).toMatchObject({ reason, domain: 'taskgate' })
    }
    const before = (await s.get('/api/v1/operator/tasks', { token: op.token })).body.total
    expect(before).toBeGreaterThan(0)
    expectProblem(await s.post('/a2a', { jsonrpc: '1.0', method: 'x' }, { key: op.agent.apiKey }), 400, 'VALIDATION_FAILED')
  })

  test('push configs: a URL the outbound policy refuses (here loopback, link-local, metadata: no TASKGATE_WEBHOOK_ALLOW_PRIVATE) → -32602 WEBHOOK_URL_NOT_ALLOWED, at creation and with a message, which then makes no task', async () => {
    const c = await connect(op.agent.apiKey)
    const t = asTask(await c.sendMessage(message('A task to hang push configs on.')))
    for (const url of ['http://127.0.0.1:9/hook', 'http://[::1]:9/hook', 'http://169.254.169.254/latest/meta-data', 'http://metadata.google.internal/', 'http://10.0.0.7/hook']) {
      const e = rpcErrorOf(await rejection(c.createTaskPushNotificationConfig({ tenant: '', id: '', taskId: t.id, url, token: 'tok-refused', authentication: undefined })))
      expect({ url, ...e }).toMatchObject({ url, code: -32602, reason: 'WEBHOOK_URL_NOT_ALLOWED' })
      expect(e.message).not.toContain('tok-refused')
    }
    expect((await c.listTaskPushNotificationConfig({ tenant: '', taskId: t.id, pageSize: 0, pageToken: '' })).configs).toEqual([])
    const before = (await s.get('/api/v1/operator/tasks', { token: op.token })).body.total
    const req = message('Tell my loopback receiver when this is done.')
    req.configuration = { returnImmediately: false, acceptedOutputModes: [], historyLength: undefined, taskPushNotificationConfig: { tenant: '', id: '', taskId: '', url: 'http://127.0.0.1:9/hook', token: 'tok-refused', authentication: undefined } }
    expect(rpcErrorOf(await rejection(c.sendMessage(req)))).toMatchObject({ code: -32602, reason: 'WEBHOOK_URL_NOT_ALLOWED' })
    expect((await s.get('/api/v1/operator/tasks', { token: op.token })).body.total).toBe(before)
  })

  test('Idempotency-Key replays the original task; the same key with another message is refused', async () => {
    const send = (text: string) => rpc({ method: 'SendMessage', params: { message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] } } }, { 'A2A-Version': '1.0', 'Idempotency-Key': 'a2a-retry-1' })
    const first = await send('Once, however often it is retried.')
    const again = await send('Once, however often it is retried.')
    expect(first.body.result.task.status.state).toBe('TASK_STATE_COMPLETED')
    expect(again.body.result.task.id).toBe(first.body.result.task.id)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    const other = await send('Something else entirely.')
    expect(other.body.error).toMatchObject({ code: -32602, data: [{ reason: 'IDEMPOTENCY_KEY_REUSED' }] })
  })

  test('a v0.3 client: message/send, tasks/get and tasks/cancel as raw JSON-RPC without A2A-Version', async () => {
    const sent = await rpc({ method: 'message/send', params: { message: { kind: 'message', messageId: 'legacy-1', role: 'user', parts: [{ kind: 'text', text: 'An old client still gets receipts.' }], contextId: 'legacy-ctx' } } })
    expect(sent.status).toBe(200)
    const t = sent.body.result
    expect(t).toMatchObject({ kind: 'task', contextId: 'legacy-ctx', status: { state: 'completed' } })
    expect(t.artifacts[0].parts.map((p: any) => p.kind)).toEqual(['text', 'data'])
    const data = t.artifacts[0].parts[1].data
    await expectReceiptCovers(s.url, data.receiptCid, t.id, t.artifacts[0].parts[0].text)
    const got = await rpc({ method: 'tasks/get', params: { id: t.id } })
    expect(got.body.result).toMatchObject({ id: t.id, contextId: 'legacy-ctx', status: { state: 'completed' } })
    const notCancelable = await rpc({ method: 'tasks/cancel', params: { id: t.id } })
    expect(notCancelable.body.error.code).toBe(-32002)
    const missing = await rpc({ method: 'tasks/get', params: { id: 'task_nope' } })
    expect(missing.body.error.code).toBe(-32001)
    // the 1.0 method names are not 0.3's
    expect((await rpc({ method: 'SendMessage', params: {} })).body.error.code).toBe(-32601)
  })

  test('a v0.3 message/stream: server-sent events of JSON-RPC responses, the last a final completed status', async () => {
    const r = await fetch(`${s.url}/a2a`, {
      method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${op.agent.apiKey}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'stream-1', method: 'message/stream', params: { message: { kind: 'message', messageId: 'legacy-2', role: 'user', parts: [{ kind: 'text', text: 'Stream, old style.' }] } } }),
    })
    expect(r.headers.get('content-type')).toStartWith('text/event-stream')
    const body = await r.text()
    await s.checkContract('POST', '/a2a', { status: r.status, headers: r.headers, text: body })
    const events = body.split('\n\n').filter((b) => b.includes('data: ')).map((b) => JSON.parse(b.slice(b.indexOf('data: ') + 6)))
    expect(events.every((e) => e.jsonrpc === '2.0' && e.id === 'stream-1')).toBe(true)
    expect(events[0].result.kind).toBe('task')
    expect(events.at(-2).result).toMatchObject({ kind: 'artifact-update', lastChunk: true })
    expect(events.at(-1).result).toMatchObject({ kind: 'status-update', final: true, status: { state: 'completed' } })
  })
})
