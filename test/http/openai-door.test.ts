// The OpenAI-compatible door over real HTTP (docs/doors.md): every call is a task through all 8
// stages, so each stage a door could skip has a test here that fails if it does (guardrails,
// kill-switch, credits and x402, approvals, compute through the pool, the receipt). Streaming is
// checked against a fake provider that holds its stream: the first piece must reach the client
// before the provider sends the second. The official `openai` client is exercised in
// test/interop/openai-client.test.ts.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createParser } from 'eventsource-parser'
import { FakeLLM, gate } from '../helpers/fake-llm'
import { checkReceipt, textHash } from '../helpers/receipts'
import { startServer, type TestServer } from '../helpers/server'

let s: TestServer
let fake: FakeLLM
let admin: string
let op: { token: string; id: string; agent: any }
const PROVIDER_KEY = 'sk-door-openai-0001'
const ANTHROPIC_KEY = 'sk-door-anthropic-0002'

beforeAll(async () => {
  fake = await FakeLLM.start()
  fake.set(PROVIDER_KEY, { content: 'The remote model answers in several pieces.' })
  fake.set(ANTHROPIC_KEY, { content: 'Claude answers too.' })
  // data_analysis costs more than a fresh operator's 100 credits: the 402 case.
  s = await startServer({ TASKGATE_TEST_CLOCK: '1', TASKGATE_PROVIDER_TIMEOUT_MS: '5000', TASKGATE_TASK_COST: JSON.stringify({ default: 1, data_analysis: 1000 }) })
  admin = await s.setupAdmin()
  op = await s.operatorWithAgent('door-op', ['general', 'sentiment_analysis'])
  for (const [name, kind, model, key] of [['door-openai', 'openai', 'door-gpt', PROVIDER_KEY], ['door-claude', 'anthropic', 'door-claude', ANTHROPIC_KEY]]) {
    const r = await s.post('/api/v1/admin/providers', { name, kind, baseUrl: fake.baseUrl, models: [model], keys: [{ key, concurrency: 8 }] }, { token: admin })
    expect(r.status).toBe(201)
  }
}, 30_000)
afterAll(async () => {
  await s?.cleanup()
  fake?.stop()
})

/** A call as an OpenAI client makes it: Bearer key, JSON body. */
async function door(path: string, body: unknown, o: { key?: string; token?: string; headers?: Record<string, string> } = {}): Promise<Response> {
  const credential = o.token ?? o.key ?? op.agent.apiKey
  const r = await fetch(`${s.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/json', ...o.headers }, body: JSON.stringify(body) })
  // Checked against /openapi.json like every other answer (a stream by status and media type).
  const streamed = (r.headers.get('content-type') ?? '').startsWith('text/event-stream')
  await s.checkContract('POST', path, { status: r.status, headers: r.headers, text: streamed ? null : await r.clone().text() })
  return r
}

/** The server-sent events of a response, each as it arrives, with the time it arrived. */
async function* events(res: Response): AsyncGenerator<{ event?: string; data: string; at: number }> {
  const queue: { event?: string; data: string; at: number }[] = []
  const parser = createParser({ onEvent: (e) => queue.push({ event: e.event, data: e.data, at: performance.now() }) })
  const decoder = new TextDecoder()
  for await (const bytes of res.body as unknown as AsyncIterable<Uint8Array>) {
    parser.feed(decoder.decode(bytes, { stream: true }))
    while (queue.length) yield queue.shift()!
  }
}

/** Guardrail changes take effect 30 s after they are made (docs/governance.md): past that on the test clock. */
const activate = async () => expect((await s.post('/api/v1/admin/clock/advance', { ms: 31_000 }, { token: admin })).status).toBe(200)

const task = async (id: string) => (await s.get(`/api/v1/tasks/${id}`, { token: op.token })).body

describe('GET /v1/models', () => {
  test('lists every model of the pool in OpenAI\'s shape, builtin included', async () => {
    const r = await fetch(`${s.url}/v1/models`, { headers: { authorization: `Bearer ${op.agent.apiKey}` } })
    expect(r.status).toBe(200)
    const body = await r.json() as any
    expect(body.object).toBe('list')
    const ids = body.data.map((m: any) => m.id)
    expect(ids).toEqual(expect.arrayContaining(['builtin', 'door-gpt', 'door-claude']))
    expect(body.data.find((m: any) => m.id === 'door-gpt')).toMatchObject({ object: 'model', owned_by: 'door-openai' })
    expect((await fetch(`${s.url}/v1/models/door-gpt`, { headers: { authorization: `Bearer ${op.agent.apiKey}` } }).then((x) => x.json()) as any).id).toBe('door-gpt')
  })

  test('without a credential: 401 in OpenAI\'s error shape with WWW-Authenticate', async () => {
    const r = await fetch(`${s.url}/v1/models`)
    expect(r.status).toBe(401)
    expect(r.headers.get('www-authenticate')).toContain('Bearer')
    const body = await r.json() as any
    expect(body.error).toMatchObject({ type: 'authentication_error', code: 'unauthenticated' })
    expect(typeof body.error.message).toBe('string')
  })

  test('an unknown /v1 route answers 404 in OpenAI\'s shape too', async () => {
    const r = await fetch(`${s.url}/v1/embeddings`, { method: 'POST', headers: { authorization: `Bearer ${op.agent.apiKey}` } })
    expect(r.status).toBe(404)
    expect(((await r.json()) as any).error.code).toBe('route_not_found')
  })
})

describe('POST /v1/chat/completions', () => {
  test('a completion is a task through all 8 stages, with a receipt that verifies', async () => {
    const r = await door('/v1/chat/completions', { model: 'builtin', messages: [{ role: 'user', content: 'TaskGate runs every call as a task. Each task gets a receipt. Receipts verify offline.' }] })
    expect(r.status).toBe(200)
    const body = await r.json() as any
    expect(body.object).toBe('chat.completion')
    expect(body.choices[0].message.role).toBe('assistant')
    const text = body.choices[0].message.content as string
    expect(text.length).toBeGreaterThan(0)
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens + body.usage.completion_tokens)
    expect(body.usage.prompt_tokens).toBeGreaterThan(0)
    const taskId = r.headers.get('x-taskgate-task-id')!
    expect(body.taskgate.taskId).toBe(taskId)
    expect(r.headers.get('x-taskgate-receipt-cid')).toBe(body.taskgate.receiptCid)
    expect(r.headers.get('x-taskgate-attestation-uid')).toMatch(/^0x[0-9a-f]{64}$/)
    const t = await task(taskId)
    expect(t).toMatchObject({ status: 'COMPLETED', door: 'openai', output: text, stage: 8 })
    expect(t.timeline.map((e: any) => e.name)).toEqual(['policy', 'debit', 'compute', 'verification', 'ipfs', 'fingerprint', 'attestation', 'receipt'])
    expect(t.usage).toEqual({ promptTokens: body.usage.prompt_tokens, completionTokens: body.usage.completion_tokens, totalTokens: body.usage.total_tokens })
    // the door is public: the operator's task list and the public one name it too
    for (const list of [await s.get('/api/v1/operator/tasks?limit=100', { token: op.token }), await s.get(`/api/v1/tasks?agentId=${op.agent.agentId}&limit=100`)]) {
      expect(list.status).toBe(200)
      expect(list.body.data.find((x: any) => x.id === taskId)).toMatchObject({ id: taskId, door: 'openai' })
    }
    const receipt = await checkReceipt(s.url, body.taskgate.receiptCid)
    expect(receipt.valid).toBe(true)
    expect(receipt.listed).toBe(true)
    expect(receipt.message.outputHash).toBe(textHash(text))
    expect(receipt.message.taskId).toBe(taskId)
  })

  test('a remote provider gets the conversation and sampling parameters; the prompt is its rendering', async () => {
    const before = fake.requestsFor(PROVIDER_KEY).length
    const messages = [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: [{ type: 'text', text: 'Hello' }] }, { role: 'assistant', content: 'Hi.' }, { role: 'user', content: 'Again?' }]
    const r = await door('/v1/chat/completions', { model: 'door-gpt', messages, temperature: 0.2, max_tokens: 50, stop: 'END', user: 'ignored', seed: 7 })
    expect(r.status).toBe(200)
    const body = await r.json() as any
    expect(body.choices[0].message.content).toBe('The remote model answers in several pieces.')
    const sent = fake.requestsFor(PROVIDER_KEY).slice(before)
    expect(sent).toHaveLength(1)
    expect(sent[0]!.body).toMatchObject({ model: 'door-gpt', temperature: 0.2, max_tokens: 50, stop: ['END'] })
    expect(sent[0]!.body.messages).toEqual([{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hello' }, { role: 'assistant', content: 'Hi.' }, { role: 'user', content: 'Again?' }])
    const t = await task(body.taskgate.taskId)
    expect(t.prompt).toBe('system: Be brief.\n\nuser: Hello\n\nassistant: Hi.\n\nuser: Again?')
    expect(t.usage.completionTokens).toBeGreaterThan(0)
  })

  test('an operator key or token names the agent in x-taskgate-agent-id; without it 400', async () => {
    const missing = await door('/v1/chat/completions', { model: 'builtin', messages: [{ role: 'user', content: 'hi there' }] }, { token: op.token })
    expect(missing.status).toBe(400)
    expect(((await missing.json()) as any).error).toMatchObject({ code: 'agent_id_required', type: 'invalid_request_error' })
    const named = await door('/v1/chat/completions', { model: 'builtin', messages: [{ role: 'user', content: 'hi there' }] }, { token: op.token, headers: { 'x-taskgate-agent-id': op.agent.agentId } })
    expect(named.status).toBe(200)
  })

  test('an agent-bound key cannot act for another agent', async () => {
    const r = await door('/v1/chat/completions', { model: 'builtin', messages: [{ role: 'user', content: 'hi' }] }, { headers: { 'x-taskgate-agent-id': 'agent_someone_else' } })
    expect(r.status).toBe(403)
    expect(((await r.json()) as any).error).toMatchObject({ code: 'agent_key_mismatch', type: 'permission_error' })
  })

  test('stage 1: a guardrail blocks the call (403 guardrail_blocked, the FAILED task named)', async () => {
    const other = await s.operatorWithAgent('door-guarded', ['general'])
    expect((await s.patch('/api/v1/operator/guardrails', { blockedPatterns: ['forbidden-word'] }, { token: other.token })).status).toBe(200)
    await activate()
    const r = await door('/v1/chat/completions', { model: 'builtin', messages: [{ role: 'user', content: 'this has a forbidden-word in it' }] }, { key: other.agent.apiKey })
    expect(r.status).toBe(403)
    expect(((await r.json()) as any).error.code).toBe('guardrail_blocked')
    const id = r.headers.get('x-taskgate-task-id')!
    const t = (await s.get(`/api/v1/tasks/${id}`, { token: other.token })).body
    expect(t).toMatchObject({ status: 'FAILED', failureCode: 'GUARDRAIL_BLOCKED', door: 'openai', creditsCharged: 0 })
  })

  test('stage 1: the kill-switch refuses the call', async () => {
    const other = await s.operatorWithAgent('door-killed', ['general'])
    expect((await s.patch('/api/v1/operator/kill-switch', { active: true, reason: 'door test' }, { token: other.token })).status).toBe(200)
    const r = await door('/v1/chat/completions', { model: 'builtin', messages: [{ role: 'user', content: 'anything' }] }, { key: other.agent.apiKey })
    expect(r.status).toBe(403)
    expect(((await r.json()) as any).error.code).toBe('kill_switch_active')
  })

  test('stage 2: without credits → 402 insufficient_credits with the x402 requirements', async () => {
    const r = await door('/v1/chat/completions', { model: 'builtin', messages: [{ role: 'user', content: 'anything' }] }, { headers: { 'x-taskgate-task-type': 'data_analysis' } })
    expect(r.status).toBe(402)
    const body = await r.json() as any
    expect(body.error).toMatchObject({ code: 'insufficient_credits', type: 'insufficient_quota' })
    expect(body.x402.x402Version).toBe(1)
    expect(body.x402.accepts[0].scheme).toBe('exact')
  })

  test('approvals: x-taskgate-action above the threshold holds the call (403 approval_required); approved, the task completes', async () => {
    const other = await s.operatorWithAgent('door-approver', ['general'])
    expect((await s.patch('/api/v1/operator/guardrails', { approvalThreshold: 100 }, { token: other.token })).status).toBe(200)
    await activate()
    const r = await door('/v1/chat/completions', { model: 'builtin', messages: [{ role: 'user', content: 'Move the funds. It is a large transfer.' }] },
      { key: other.agent.apiKey, headers: { 'x-taskgate-action': JSON.stringify({ actionType: 'transfer', requestedValue: 5000, currency: 'USD' }) } })
    expect(r.status).toBe(403)
    const body = await r.json() as any
    expect(body.error.code).toBe('approval_required')
    const taskId = r.headers.get('x-taskgate-task-id')!
    const approvalId = r.headers.get('x-taskgate-approval-id')!
    expect(body.taskgate).toEqual({ taskId, approvalId })
    expect((await s.get(`/api/v1/tasks/${taskId}`, { token: other.token })).body.status).toBe('PENDING_APPROVAL')
    expect((await s.patch(`/api/v1/approvals/${approvalId}`, { decision: 'approved' }, { token: other.token })).status).toBe(200)
    let t: any
    for (let i = 0; i < 100 && t?.status !== 'COMPLETED'; i++) { t = (await s.get(`/api/v1/tasks/${taskId}`, { token: other.token })).body; if (t.status !== 'COMPLETED') await Bun.sleep(20) }
    expect(t.status).toBe('COMPLETED')
    expect(t.output.length).toBeGreaterThan(0)
  })

  test('x-taskgate-action that is not the action shape → 400 invalid_action_header', async () => {
    for (const bad of ['{not json', '[1,2]', JSON.stringify({ requestedValue: 'lots' })]) {
      const r = await door('/v1/chat/completions', { model: 'builtin', messages: [{ role: 'user', content: 'hi' }] }, { headers: { 'x-taskgate-action': bad } })
      expect(r.status).toBe(400)
      expect(((await r.json()) as any).error.code).toBe('invalid_action_header')
    }
  })

  test('what TaskGate cannot run is refused with unsupported_parameter and its param', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ tools: [{ type: 'function', function: { name: 'f' } }] }, 'tools'],
      [{ n: 2 }, 'n'],
      [{ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'http://x' } }] }] }, 'messages.0.content[0]'],
      [{ messages: [{ role: 'tool', content: 'x', tool_call_id: '1' }] }, 'messages.0.role'],
    ]
    for (const [extra, param] of cases) {
      const r = await door('/v1/chat/completions', { model: 'builtin', messages: [{ role: 'user', content: 'hi' }], ...extra })
      const body = await r.json() as any
      expect(r.status).toBe(param === 'n' ? 400 : 400)
      expect(body.error.code).toBe(param === 'n' ? 'validation_failed' : 'unsupported_parameter')
      if (param !== 'n') expect(body.error.param).toBe(param)
    }
  })

  test('a body that breaks the schema → 400 in OpenAI\'s shape with the field in param', async () => {
    const r = await door('/v1/chat/completions', { model: 'builtin' })
    expect(r.status).toBe(400)
    const body = await r.json() as any
    expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'validation_failed', param: 'messages' })
  })

  test('an unknown model → 400 unknown_model', async () => {
    const r = await door('/v1/chat/completions', { model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }] })
    expect(r.status).toBe(400)
    expect(((await r.json()) as any).error.code).toBe('unknown_model')
  })

  test('Idempotency-Key replays the original task', async () => {
    const body = { model: 'builtin', messages: [{ role: 'user', content: 'Replay me. Twice over.' }] }
    const a = await door('/v1/chat/completions', body, { headers: { 'idempotency-key': 'door-replay-1' } })
    const b = await door('/v1/chat/completions', body, { headers: { 'idempotency-key': 'door-replay-1' } })
    expect(a.status).toBe(200)
    expect(b.status).toBe(200)
    expect(b.headers.get('x-taskgate-task-id')).toBe(a.headers.get('x-taskgate-task-id'))
    expect(b.headers.get('idempotent-replayed')).toBe('true')
  })
})

describe('streaming', () => {
  test('each provider chunk is forwarded as it arrives; the last chunk carries the receipt of the whole text', async () => {
    const hold = gate()
    fake.next(PROVIDER_KEY, { chunks: ['First ', 'second ', 'third.'], streamGate: hold })
    const r = await door('/v1/chat/completions', { model: 'door-gpt', stream: true, messages: [{ role: 'user', content: 'Stream it' }] })
    expect(r.status).toBe(200)
    expect(r.headers.get('content-type')).toContain('text/event-stream')
    const taskId = r.headers.get('x-taskgate-task-id')!
    expect(taskId).toMatch(/^task_/)
    const chunks: any[] = []
    let done = false
    for await (const e of events(r)) {
      if (e.data === '[DONE]') { done = true; break }
      const c = JSON.parse(e.data)
      chunks.push(c)
      // The provider holds its second piece until the client has the first: buffering would hang here.
      if (c.choices?.[0]?.delta?.content === 'First ') hold.release()
    }
    expect(done).toBe(true)
    const text = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('')
    expect(text).toBe('First second third.')
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.id === `chatcmpl-${taskId}`)).toBe(true)
    expect(chunks[0].choices[0].delta.role).toBe('assistant')
    const last = chunks[chunks.length - 1]
    expect(last.choices).toEqual([])
    expect(last.taskgate.taskId).toBe(taskId)
    expect(chunks[chunks.length - 2].choices[0].finish_reason).toBe('stop')
    const t = await task(taskId)
    expect(t).toMatchObject({ status: 'COMPLETED', output: text, receiptCid: last.taskgate.receiptCid })
    const receipt = await checkReceipt(s.url, last.taskgate.receiptCid)
    expect(receipt.valid && receipt.listed).toBe(true)
    expect(receipt.message.outputHash).toBe(textHash(text))
    expect(fake.requestsFor(PROVIDER_KEY).at(-1)!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } })
  })

  test('the builtin provider\'s output is sent whole, then the receipt', async () => {
    const r = await door('/v1/chat/completions', { model: 'builtin', stream: true, messages: [{ role: 'user', content: 'Short text to summarise. It has two sentences.' }] })
    const chunks: any[] = []
    for await (const e of events(r)) { if (e.data === '[DONE]') break; chunks.push(JSON.parse(e.data)) }
    const text = chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('')
    const t = await task(r.headers.get('x-taskgate-task-id')!)
    expect(text).toBe(t.output)
    expect(chunks.at(-1).taskgate.receiptCid).toBe(t.receiptCid)
  })

  test('Anthropic-kind providers stream through the same door', async () => {
    fake.next(ANTHROPIC_KEY, { chunks: ['Claude ', 'streams.'] })
    const r = await door('/v1/chat/completions', { model: 'door-claude', stream: true, messages: [{ role: 'system', content: 'Be terse.' }, { role: 'user', content: 'Go' }] })
    const chunks: any[] = []
    for await (const e of events(r)) { if (e.data === '[DONE]') break; chunks.push(JSON.parse(e.data)) }
    expect(chunks.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toBe('Claude streams.')
    const sent = fake.requestsFor(ANTHROPIC_KEY).at(-1)!
    expect(sent.body).toMatchObject({ stream: true, system: 'Be terse.', messages: [{ role: 'user', content: 'Go' }] })
    const t = await task(r.headers.get('x-taskgate-task-id')!)
    expect(t.status).toBe('COMPLETED')
    expect(t.usage.completionTokens).toBeGreaterThan(0)
  })

  test('a provider that fails mid-stream is not retried on another key: an error event, the task FAILED and refunded', async () => {
    fake.next(PROVIDER_KEY, { chunks: ['Partial ', 'answer ', 'never ends'], failAfter: 1 })
    const before = fake.requestsFor(PROVIDER_KEY).length
    const balance = (await s.get(`/api/v1/credits/balance/${op.id}`, { token: op.token })).body.balance
    const r = await door('/v1/chat/completions', { model: 'door-gpt', stream: true, messages: [{ role: 'user', content: 'fail please' }] })
    const got: any[] = []
    for await (const e of events(r)) { if (e.data === '[DONE]') break; got.push(JSON.parse(e.data)) }
    const err = got.at(-1)
    expect(err.error.code).toBe('compute_failed')
    expect(fake.requestsFor(PROVIDER_KEY).length - before).toBe(1)
    const t = await task(r.headers.get('x-taskgate-task-id')!)
    expect(t).toMatchObject({ status: 'FAILED', failureCode: 'COMPUTE_FAILED', creditsCharged: 0 })
    expect((await s.get(`/api/v1/credits/balance/${op.id}`, { token: op.token })).body.balance).toBe(balance)
  })
})

describe('POST /v1/responses', () => {
  test('a response: output text, usage, and taskgate', async () => {
    const r = await door('/v1/responses', { model: 'builtin', instructions: 'Summarise.', input: 'The door turns calls into tasks. Tasks carry receipts.' })
    expect(r.status).toBe(200)
    const body = await r.json() as any
    expect(body).toMatchObject({ object: 'response', status: 'completed', model: 'builtin' })
    const text = body.output[0].content[0].text
    expect(body.output[0]).toMatchObject({ type: 'message', role: 'assistant', status: 'completed' })
    expect(body.usage.total_tokens).toBe(body.usage.input_tokens + body.usage.output_tokens)
    expect(body.taskgate.taskId).toBe(r.headers.get('x-taskgate-task-id'))
    const t = await task(body.taskgate.taskId)
    expect(t.output).toBe(text)
    expect(t.prompt).toBe('system: Summarise.\n\nuser: The door turns calls into tasks. Tasks carry receipts.')
  })

  test('streamed: the typed events in order, response.completed last with the receipt', async () => {
    fake.next(PROVIDER_KEY, { chunks: ['One ', 'two.'] })
    const r = await door('/v1/responses', { model: 'door-gpt', stream: true, input: [{ role: 'user', content: [{ type: 'input_text', text: 'Count' }] }] })
    const seen: { event?: string; data: any }[] = []
    for await (const e of events(r)) seen.push({ event: e.event, data: JSON.parse(e.data) })
    const types = seen.map((e) => e.event)
    expect(types).toEqual(['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added',
      'response.output_text.delta', 'response.output_text.delta', 'response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed'])
    expect(seen.every((e) => e.data.type === e.event)).toBe(true)
    expect(seen.map((e) => e.data.sequence_number)).toEqual(seen.map((_, i) => i))
    const completed = seen.at(-1)!.data.response
    expect(completed.output[0].content[0].text).toBe('One two.')
    const receipt = await checkReceipt(s.url, completed.taskgate.receiptCid)
    expect(receipt.valid).toBe(true)
    expect(receipt.message.outputHash).toBe(textHash('One two.'))
  })

  test('previous_response_id and tools are refused', async () => {
    for (const extra of [{ previous_response_id: 'resp_x' }, { tools: [{ type: 'web_search' }] }]) {
      const r = await door('/v1/responses', { model: 'builtin', input: 'hi', ...extra })
      expect(r.status).toBe(400)
      expect(((await r.json()) as any).error.code).toBe('unsupported_parameter')
    }
  })
})

describe('usage and cost', () => {
  test('a task records its tokens and its cost from the model\'s price at compute time', async () => {
    const put = await s.req('PUT', '/api/v1/admin/prices/door-gpt', { body: { inputUsdPerMTok: 2.5, outputUsdPerMTok: 10 }, token: admin })
    expect(put.status).toBe(200)
    expect((await s.get('/api/v1/admin/prices', { token: admin })).body).toEqual(expect.arrayContaining([expect.objectContaining({ model: 'door-gpt', inputUsdPerMTok: 2.5, outputUsdPerMTok: 10 })]))
    const r = await door('/v1/chat/completions', { model: 'door-gpt', messages: [{ role: 'user', content: 'price me' }] })
    const body = await r.json() as any
    const t = await task(body.taskgate.taskId)
    const expected = Math.round(body.usage.prompt_tokens * 2.5 + body.usage.completion_tokens * 10) / 1e6
    expect(t.costUsd).toBeCloseTo(expected, 9)
    expect(t.costUsd).toBeGreaterThan(0)
    // builtin has no price: its cost stays null
    const b = await door('/v1/chat/completions', { model: 'builtin', messages: [{ role: 'user', content: 'free text here' }] })
    expect((await task(((await b.json()) as any).taskgate.taskId)).costUsd).toBeNull()
    expect((await s.del('/api/v1/admin/prices/door-gpt', { token: admin })).status).toBe(204)
    expect((await s.del('/api/v1/admin/prices/door-gpt', { token: admin })).status).toBe(404)
    // an operator cannot set prices
    expect((await s.req('PUT', '/api/v1/admin/prices/door-gpt', { body: { inputUsdPerMTok: 0, outputUsdPerMTok: 0 }, token: op.token })).status).toBe(403)
  })
})
