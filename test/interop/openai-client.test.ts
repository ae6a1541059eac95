// The official `openai` npm client (optional interop group, test/interop/package.json) against a
// real server: no project code on the client side. It sends its own requests to /v1, parses our
// answers and streams with its own code, and maps our error answers onto its typed error classes.
// Every receipt it hands back is verified with viem against /.well-known/taskgate-signers. The
// door's own rules (each stage, refusals, buffering) are tested over raw HTTP in
// test/http/openai-door.test.ts.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import OpenAI from 'openai'
import { FakeLLM } from '../helpers/fake-llm'
import { expectReceiptCovers } from '../helpers/receipts'
import { startServer, type TestServer } from '../helpers/server'

let s: TestServer
let fake: FakeLLM
let admin: string
let op: { token: string; id: string; agent: any }
let client: OpenAI
const PROVIDER_KEY = 'sk-interop-openai-0001'

interface TaskGateMember { taskId: string; receiptCid: string; attestationUid: string; ipfsCid: string }

beforeAll(async () => {
  fake = await FakeLLM.start()
  fake.set(PROVIDER_KEY, { content: 'A remote model answers in pieces.' })
  // data_analysis costs more than a fresh operator's credits: the 402 case.
  s = await startServer({ TASKGATE_TEST_CLOCK: '1', TASKGATE_PROVIDER_TIMEOUT_MS: '5000', TASKGATE_TASK_COST: JSON.stringify({ default: 1, data_analysis: 1000 }) })
  admin = await s.setupAdmin()
  op = await s.operatorWithAgent('openai-client', ['general', 'data_analysis'])
  const p = await s.post('/api/v1/admin/providers', { name: 'interop-openai', kind: 'openai', baseUrl: fake.baseUrl, models: ['interop-gpt'], keys: [{ key: PROVIDER_KEY, concurrency: 8 }] }, { token: admin })
  expect(p.status).toBe(201)
  // No retries: a retried error would hide what the first answer was.
  client = new OpenAI({ baseURL: `${s.url}/v1`, apiKey: op.agent.apiKey, maxRetries: 0 })
}, 30_000)
afterAll(async () => {
  await s?.cleanup()
  fake?.stop()
})

const task = async (id: string, token = op.token) => (await s.get(`/api/v1/tasks/${id}`, { token })).body
const taskgateOf = (x: unknown): TaskGateMember => (x as { taskgate: TaskGateMember }).taskgate

const expectReceipt = (cid: string, taskId: string, output: string) => expectReceiptCovers(s.url, cid, taskId, output)

describe('models', () => {
  test('client.models.list() pages through every model of the pool, builtin included; retrieve() finds one', async () => {
    const ids: string[] = []
    for await (const m of client.models.list()) ids.push(m.id)
    expect(ids).toEqual(expect.arrayContaining(['builtin', 'interop-gpt']))
    const m = await client.models.retrieve('interop-gpt')
    expect(m).toMatchObject({ id: 'interop-gpt', object: 'model', owned_by: 'interop-openai' })
  })
})

describe('chat completions', () => {
  test('a completion: the content is the task\'s output, the headers and the taskgate member name the same verified receipt', async () => {
    const { data, response } = await client.chat.completions.create({
      model: 'builtin', messages: [{ role: 'user', content: 'Summarise: receipts make agent work checkable. Each one is signed.' }],
    }).withResponse()
    const content = data.choices[0]!.message.content!
    expect(content.length).toBeGreaterThan(0)
    expect(data.object).toBe('chat.completion')
    expect(data.usage!.total_tokens).toBe(data.usage!.prompt_tokens + data.usage!.completion_tokens)
    const tg = taskgateOf(data)
    expect(response.headers.get('x-taskgate-task-id')).toBe(tg.taskId)
    expect(response.headers.get('x-taskgate-receipt-cid')).toBe(tg.receiptCid)
    expect(response.headers.get('x-taskgate-attestation-uid')).toBe(tg.attestationUid)
    expect(await task(tg.taskId)).toMatchObject({ status: 'COMPLETED', output: content, receiptCid: tg.receiptCid, door: 'openai' })
    await expectReceipt(tg.receiptCid, tg.taskId, content)
  })

  test('streaming: the client iterates the chunks; the text joined is the task\'s output; the last chunk carries the receipt', async () => {
    fake.next(PROVIDER_KEY, { chunks: ['Streamed ', 'through ', 'the ', 'door.'] })
    const { data: stream, response } = await client.chat.completions.create({
      model: 'interop-gpt', stream: true, messages: [{ role: 'user', content: 'Stream something.' }],
    }).withResponse()
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = []
    for await (const c of stream) chunks.push(c)
    const pieces = chunks.map((c) => c.choices[0]?.delta?.content ?? '').filter((x) => x !== '')
    // the provider's pieces arrive as separate chunks, not as one buffered answer
    expect(pieces).toEqual(['Streamed ', 'through ', 'the ', 'door.'])
    const text = pieces.join('')
    const last = chunks.at(-1)!
    expect(last.choices).toEqual([])
    const tg = taskgateOf(last)
    expect(tg.receiptCid).toMatch(/^baf/)
    expect(tg.taskId).toBe(response.headers.get('x-taskgate-task-id')!)
    expect(await task(tg.taskId)).toMatchObject({ status: 'COMPLETED', output: text, receiptCid: tg.receiptCid })
    await expectReceipt(tg.receiptCid, tg.taskId, text)
  })

  test('the client\'s stream helper accumulates our chunks into the final completion', async () => {
    fake.next(PROVIDER_KEY, { chunks: ['Helper ', 'joins ', 'pieces.'] })
    const runner = client.chat.completions.stream({ model: 'interop-gpt', messages: [{ role: 'user', content: 'Use the helper.' }] })
    const deltas: string[] = []
    runner.on('content', (delta) => deltas.push(delta))
    const final = await runner.finalChatCompletion()
    expect(deltas.join('')).toBe('Helper joins pieces.')
    expect(final.choices[0]!.message.content).toBe('Helper joins pieces.')
    expect(final.choices[0]!.finish_reason).toBe('stop')
    const taskId = final.id.replace(/^chatcmpl-/, '')
    const t = await task(taskId)
    expect(t.output).toBe('Helper joins pieces.')
    await expectReceipt(t.receiptCid, taskId, 'Helper joins pieces.')
  })
})

describe('responses', () => {
  test('responses.create: output_text (the client\'s own join) is the task\'s output, with a verified receipt', async () => {
    const { data, response } = await client.responses.create({
      model: 'builtin', instructions: 'Summarise.', input: 'The door turns calls into tasks. Tasks carry receipts anyone can check.',
    }).withResponse()
    expect(data.status).toBe('completed')
    expect(data.output_text.length).toBeGreaterThan(0)
    const tg = taskgateOf(data)
    expect(response.headers.get('x-taskgate-receipt-cid')).toBe(tg.receiptCid)
    expect((await task(tg.taskId)).output).toBe(data.output_text)
    await expectReceipt(tg.receiptCid, tg.taskId, data.output_text)
  })

  test('responses.create with stream: true: typed events, deltas joined = response.completed\'s text = the task\'s output', async () => {
    fake.next(PROVIDER_KEY, { chunks: ['Events ', 'in ', 'order.'] })
    const stream = await client.responses.create({ model: 'interop-gpt', stream: true, input: 'Stream a response.' })
    const types: string[] = []
    let deltas = ''
    let completed: OpenAI.Responses.Response | null = null
    for await (const e of stream) {
      types.push(e.type)
      if (e.type === 'response.output_text.delta') deltas += e.delta
      if (e.type === 'response.completed') completed = e.response
    }
    expect(types[0]).toBe('response.created')
    expect(types.at(-1)).toBe('response.completed')
    expect(types.filter((t) => t === 'response.output_text.delta').length).toBe(3)
    expect(deltas).toBe('Events in order.')
    const item = completed!.output[0] as OpenAI.Responses.ResponseOutputMessage
    expect((item.content[0] as OpenAI.Responses.ResponseOutputText).text).toBe(deltas)
    const tg = taskgateOf(completed)
    expect((await task(tg.taskId)).output).toBe(deltas)
    await expectReceipt(tg.receiptCid, tg.taskId, deltas)
  })

  test('the client\'s responses.stream helper checks our event sequence and builds the final response', async () => {
    fake.next(PROVIDER_KEY, { chunks: ['Final ', 'response.'] })
    const rs = client.responses.stream({ model: 'interop-gpt', input: 'Use the responses helper.' })
    const final = await rs.finalResponse()
    expect(final.output_text).toBe('Final response.')
    const tg = taskgateOf(final)
    await expectReceipt(tg.receiptCid, tg.taskId, 'Final response.')
  })
})

describe('typed errors', () => {
  test('an unknown model → BadRequestError with code unknown_model', async () => {
    const err = await client.chat.completions.create({ model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] }).catch((e) => e)
    expect(err).toBeInstanceOf(OpenAI.BadRequestError)
    expect(err.status).toBe(400)
    expect(err.code).toBe('unknown_model')
    expect(err.type).toBe('invalid_request_error')
  })

  test('a bad key → AuthenticationError', async () => {
    const bad = new OpenAI({ baseURL: `${s.url}/v1`, apiKey: 'tg_test_not-a-real-key', maxRetries: 0 })
    const err = await bad.models.list().catch((e) => e)
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError)
    expect(err.status).toBe(401)
    expect(err.type).toBe('authentication_error')
  })

  test('what TaskGate cannot run → BadRequestError unsupported_parameter naming the param', async () => {
    const err = await client.chat.completions.create({
      model: 'builtin', messages: [{ role: 'user', content: 'hi' }],
      tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }],
    }).catch((e) => e)
    expect(err).toBeInstanceOf(OpenAI.BadRequestError)
    expect(err.code).toBe('unsupported_parameter')
    expect(err.param).toBe('tools')
  })

  test('short of credits → APIError 402 insufficient_credits (type insufficient_quota)', async () => {
    const err = await client.chat.completions.create(
      { model: 'builtin', messages: [{ role: 'user', content: 'Analyse this.' }] },
      { headers: { 'x-taskgate-task-type': 'data_analysis' } },
    ).catch((e) => e)
    expect(err).toBeInstanceOf(OpenAI.APIError)
    expect(err.status).toBe(402)
    expect(err.code).toBe('insufficient_credits')
    expect(err.type).toBe('insufficient_quota')
  })

  test('held for approval → PermissionDeniedError approval_required; the task waits, then completes once approved', async () => {
    const other = await s.operatorWithAgent('openai-client-approver', ['general'])
    expect((await s.patch('/api/v1/operator/guardrails', { approvalThreshold: 100 }, { token: other.token })).status).toBe(200)
    // guardrail changes take effect 30 s after they are made: past that on the test clock
    expect((await s.post('/api/v1/admin/clock/advance', { ms: 31_000 }, { token: admin })).status).toBe(200)
    const held = new OpenAI({
      baseURL: `${s.url}/v1`, apiKey: other.agent.apiKey, maxRetries: 0,
      defaultHeaders: { 'x-taskgate-action': JSON.stringify({ actionType: 'transfer', requestedValue: 5000, currency: 'USD' }) },
    })
    const err = await held.chat.completions.create({ model: 'builtin', messages: [{ role: 'user', content: 'Move the funds. It is a large transfer.' }] }).catch((e) => e)
    expect(err).toBeInstanceOf(OpenAI.PermissionDeniedError)
    expect(err.status).toBe(403)
    expect(err.code).toBe('approval_required')
    const taskId = err.headers.get('x-taskgate-task-id')
    const approvalId = err.headers.get('x-taskgate-approval-id')
    expect(taskId).toMatch(/^task_/)
    expect(approvalId).toBeTruthy()
    expect((await task(taskId, other.token)).status).toBe('PENDING_APPROVAL')
    expect((await s.patch(`/api/v1/approvals/${approvalId}`, { decision: 'approved' }, { token: other.token })).status).toBe(200)
    let t: any
    for (let i = 0; i < 200 && t?.status !== 'COMPLETED'; i++) { t = await task(taskId, other.token); if (t.status !== 'COMPLETED') await Bun.sleep(25) }
    expect(t.status).toBe('COMPLETED')
    await expectReceipt(t.receiptCid, taskId, t.output)
  })
})
