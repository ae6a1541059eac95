// A2A push notifications over real HTTP (docs/doors.md, "A2A", "Push notifications"): configs made
// with the A2A SDK's own client (1.0) and as a 0.3 client's raw JSON-RPC, notifications received by a
// real receiver on loopback (Bun.serve; TASKGATE_WEBHOOK_ALLOW_PRIVATE=1 lets the outbound policy
// reach it). A completed task's notification is what GetTask answers, with the token header and both
// TaskGate signatures; a held task notifies auth-required, then working and completed once approved;
// get, list and delete; another agent's key reaches no config; refused URLs and values; the limits;
// a failing receiver retried by the outbox on the test clock; and the token in no log, GET answer,
// deliveries list or export, stored sealed.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { openTestDb } from '../helpers/data'
import { createHash, createHmac } from 'node:crypto'
import { StreamResponse, TaskState, type SendMessageRequest, type Task, type TaskPushNotificationConfig } from '@a2a-js/sdk'
import type { Client } from '@a2a-js/sdk/client'
import { TaskNotFoundError } from '@a2a-js/sdk/errors'
import { verifyTypedData } from 'viem'
import { artifactOf, asTask, connect as connectTo, message, rejection, rpcErrorOf } from '../helpers/a2a'
import { startServer, until, type TestServer } from '../helpers/server'

interface Hit { path: string; raw: string; headers: Headers }
let hits: Hit[] = []
/** Status codes the receiver answers, per path (consumed in order; then 200). */
const script = new Map<string, number[]>()
let receiver: ReturnType<typeof Bun.serve>
let s: TestServer
let admin: string
let signers: { signers: { address: `0x${string}` }[]; eip712Domains: { webhook: { name: string; version: string; chainId: number } } }
/** Every token and credential given to the server, looked for where they must not be (the last test). */
const SECRETS: string[] = []

beforeAll(async () => {
  receiver = Bun.serve({
    port: 0, hostname: '127.0.0.1',
    async fetch(req) {
      const path = new URL(req.url).pathname
      hits.push({ path, raw: await req.text(), headers: req.headers })
      const q = script.get(path)
      return new Response('ok', { status: q?.length ? q.shift()! : 200 })
    },
  })
  s = await startServer({ TASKGATE_TEST_CLOCK: '1', TASKGATE_WEBHOOK_ALLOW_PRIVATE: '1', TASKGATE_MAX_A2A_PUSH_CONFIGS: '12' })
  admin = await s.setupAdmin()
  signers = (await s.get('/.well-known/taskgate-signers')).body
}, 30_000)
afterAll(async () => { await s?.cleanup(); receiver?.stop(true) })

const connect = (credential: string, headers: Record<string, string> = {}): Promise<Client> => connectTo(s.url, credential, headers)
const hook = (path: string) => `http://127.0.0.1:${receiver.port}${path}`
const at = (path: string) => hits.filter((h) => h.path === path)
const advance = async (ms: number) => expect((await s.post('/api/v1/admin/clock/advance', { ms }, { token: admin })).status).toBe(200)
const secret = (prefix: string) => { const v = `${prefix}-${crypto.randomUUID()}`; SECRETS.push(v); return v }
const stateOf = (h: Hit) => (JSON.parse(h.raw) as { task: { status: { state: string } } }).task.status.state

/** A config as the SDK's types spell it. */
const config = (c: Partial<TaskPushNotificationConfig> & { url: string }): TaskPushNotificationConfig => ({ tenant: '', id: '', taskId: '', token: '', authentication: undefined, ...c })

/** A message carrying a push config (`configuration.taskPushNotificationConfig`). */
function withPush(req: SendMessageRequest, c: Partial<TaskPushNotificationConfig> & { url: string }): SendMessageRequest {
  return { ...req, configuration: { returnImmediately: false, acceptedOutputModes: [], historyLength: undefined, taskPushNotificationConfig: config(c) } }
}

/** One raw JSON-RPC call: 1.0 with `A2A-Version: 1.0`, else 0.3. */
const rpc = (credential: string, method: string, params: Record<string, unknown>, version?: '1.0') =>
  s.post('/a2a', { jsonrpc: '2.0', id: 1, method, params }, { headers: { authorization: `Bearer ${credential}`, ...(version ? { 'A2A-Version': version } : {}) } })

/** The operator's webhook deliveries (bearer), newest first. */
const deliveries = async (token: string) => (await s.get('/api/v1/operator/webhooks/deliveries?limit=100', { token })).body.data as { id: string; event: string; url: string; status: string; attempts: number; lastStatus: number | null }[]

/** An operator whose actions above 10 are held for approval, and whose blocked word is `forbidden-word`. */
async function gatedOperator(login: string) {
  const o = await s.operatorWithAgent(login, ['general'])
  expect((await s.patch('/api/v1/operator/guardrails', { approvalThreshold: 10, blockedPatterns: ['forbidden-word'] }, { token: o.token })).status).toBe(200)
  await advance(31_000)
  return o
}
const action = { actionType: 'payment', target: 'supplier', requestedValue: 500, currency: 'USD' }

const DELIVERY_TYPES = { WebhookDelivery: [{ name: 'event', type: 'string' }, { name: 'deliveryId', type: 'string' }, { name: 'bodySha256', type: 'bytes32' }] } as const

describe('A2A push notifications', () => {
  test('the card offers them, in both shapes', async () => {
    expect((await s.get('/.well-known/agent-card.json', { headers: { 'A2A-Version': '1.0' } })).body.capabilities).toMatchObject({ pushNotifications: true })
    expect((await s.get('/.well-known/agent-card.json')).body.capabilities).toMatchObject({ pushNotifications: true })
  })

  test('a completed task: one POST with the token header, the task as GetTask answers it (the artifact names the receipt), HMAC and EIP-712 signed; the SDK reads it', async () => {
    const o = await s.operatorWithAgent('push-done', ['general'])
    const hmacKey = (await s.post('/api/v1/operator/webhooks/secret', undefined, { token: o.token })).body.secret as string
    const c = await connect(o.agent.apiKey)
    const token = secret('tok-done')
    const t = asTask(await c.sendMessage(withPush(message('Tell my receiver once this is done.'), { url: hook('/done'), token })))
    expect(t.status!.state).toBe(TaskState.TASK_STATE_COMPLETED)
    const [h] = await until(() => at('/done'), (x) => x.length === 1)
    expect(h!.headers.get('x-a2a-notification-token')).toBe(token)
    expect(h!.headers.get('authorization')).toBeNull()
    expect(h!.headers.get('content-type')).toBe('application/a2a+json')
    expect(h!.headers.get('x-taskgate-event')).toBe('a2a.push')

    // the body is the 1.0 StreamResponse of the task, exactly what GetTask answers for it
    const body = JSON.parse(h!.raw)
    const got = await rpc(o.agent.apiKey, 'GetTask', { id: t.id }, '1.0')
    expect(body).toEqual({ task: got.body.result })
    const read = StreamResponse.fromJSON(body)
    expect(read.payload!.$case).toBe('task')
    const pushed = read.payload!.value as Task
    expect(pushed.status!.state).toBe(TaskState.TASK_STATE_COMPLETED)
    expect(artifactOf(pushed)).toEqual(artifactOf(t))
    expect(artifactOf(pushed).data).toMatchObject({ taskId: t.id, receiptCid: expect.stringMatching(/^baf/) })

    // TaskGate's signatures: the HMAC of the raw body with the operator's webhook secret; EIP-712 over its SHA-256
    expect(h!.headers.get('x-taskgate-signature')).toBe(`sha256=${createHmac('sha256', hmacKey).update(h!.raw).digest('hex')}`)
    const signer = signers.signers[0]!.address
    expect(h!.headers.get('x-taskgate-signer')?.toLowerCase()).toBe(signer.toLowerCase())
    const deliveryId = h!.headers.get('x-taskgate-delivery')!
    const message_ = { event: 'a2a.push', deliveryId, bodySha256: `0x${createHash('sha256').update(h!.raw).digest('hex')}` as `0x${string}` }
    const signature = h!.headers.get('x-taskgate-eip712-sig') as `0x${string}`
    expect(await verifyTypedData({ address: signer, domain: signers.eip712Domains.webhook, primaryType: 'WebhookDelivery', types: DELIVERY_TYPES, message: message_, signature })).toBe(true)
    expect(await verifyTypedData({ address: signer, domain: signers.eip712Domains.webhook, primaryType: 'WebhookDelivery', types: DELIVERY_TYPES, message: { ...message_, bodySha256: `0x${'0'.repeat(64)}` }, signature })).toBe(false)

    // one delivery in the operator's list, delivered
    const list = await until(() => deliveries(o.token), (d) => d[0]?.status === 'delivered')
    expect(list.map((d) => [d.id, d.event, d.url, d.attempts])).toEqual([[deliveryId, 'a2a.push', hook('/done'), 1]])
  })

  describe('held, refused and cancelled tasks; get, list, delete', () => {
    let gated: { token: string; id: string; agent: any }
    beforeAll(async () => { gated = await gatedOperator('push-gated') })

    test('a held task notifies auth-required (naming its approval request), then working and completed once approved', async () => {
      const c = await connect(gated.agent.apiKey)
      const token = secret('tok-held')
      const t = asTask(await c.sendMessage(withPush(message('Pay the supplier.', { action }), { url: hook('/held'), token })))
      expect(t.status!.state).toBe(TaskState.TASK_STATE_AUTH_REQUIRED)
      const approvalId = t.metadata!.taskgate.approvalId as string
      const [held] = await until(() => at('/held'), (x) => x.length === 1)
      const first = JSON.parse(held!.raw).task
      expect(first).toMatchObject({ id: t.id, status: { state: 'TASK_STATE_AUTH_REQUIRED' }, metadata: { taskgate: { approvalId, status: 'PENDING_APPROVAL' } } })
      expect(first.status.message.parts[0].text).toContain(approvalId)
      expect(held!.headers.get('x-a2a-notification-token')).toBe(token)

      expect((await s.patch(`/api/v1/approvals/${approvalId}`, { decision: 'approved' }, { token: gated.token })).status).toBe(200)
      const all = await until(() => at('/held'), (x) => x.length === 3)
      // each notification is delivered on its own: compare states, not arrival order
      expect(all.map(stateOf).sort()).toEqual(['TASK_STATE_AUTH_REQUIRED', 'TASK_STATE_COMPLETED', 'TASK_STATE_WORKING'])
      const completed = JSON.parse(all.find((h) => stateOf(h) === 'TASK_STATE_COMPLETED')!.raw)
      expect(completed).toEqual({ task: (await rpc(gated.agent.apiKey, 'GetTask', { id: t.id }, '1.0')).body.result })
      expect(artifactOf(StreamResponse.fromJSON(completed).payload!.value as Task).data.receiptCid).toBeTruthy()
    })

    test('a message a guardrail refuses is the rejected task, and its config is told so at once', async () => {
      const c = await connect(gated.agent.apiKey)
      const t = asTask(await c.sendMessage(withPush(message('This has the forbidden-word in it.'), { url: hook('/rejected'), token: secret('tok-rejected') })))
      expect(t.status!.state).toBe(TaskState.TASK_STATE_REJECTED)
      const [h] = await until(() => at('/rejected'), (x) => x.length === 1)
      expect(JSON.parse(h!.raw).task).toMatchObject({ id: t.id, status: { state: 'TASK_STATE_REJECTED' }, metadata: { taskgate: { failureCode: 'GUARDRAIL_BLOCKED' } } })
    })

    test('create, get, list and delete with the SDK client; the same id replaces; no id is the task\'s id; a deleted config is not notified, Authorization goes instead of the token', async () => {
      const c = await connect(gated.agent.apiKey)
      const t = asTask(await c.sendMessage(message('Pay another supplier.', { action })))
      expect(t.status!.state).toBe(TaskState.TASK_STATE_AUTH_REQUIRED)
      const tokenA = secret('tok-a')
      const created = await c.createTaskPushNotificationConfig(config({ id: 'cfg-a', taskId: t.id, url: hook('/cfg-a'), token: tokenA }))
      expect(created).toMatchObject({ id: 'cfg-a', taskId: t.id, url: hook('/cfg-a'), token: tokenA })
      const credentials = secret('cred-b')
      const byAuth = await c.createTaskPushNotificationConfig(config({ taskId: t.id, url: hook('/cfg-b'), token: secret('tok-b'), authentication: { scheme: 'Bearer', credentials } }))
      expect(byAuth.id).toBe(t.id)
      expect(byAuth.authentication).toEqual({ scheme: 'Bearer', credentials })
      const replaced = await c.createTaskPushNotificationConfig(config({ id: 'cfg-c', taskId: t.id, url: hook('/cfg-c-old') }))
      expect(replaced.url).toBe(hook('/cfg-c-old'))
      await c.createTaskPushNotificationConfig(config({ id: 'cfg-c', taskId: t.id, url: hook('/cfg-c') }))

      const get = (id: string) => c.getTaskPushNotificationConfig({ tenant: '', taskId: t.id, id })
      expect(await get('cfg-a')).toEqual(created)
      expect((await get('')).url).toBe(hook('/cfg-b')) // no id: the task's
      const list = async () => (await c.listTaskPushNotificationConfig({ tenant: '', taskId: t.id, pageSize: 0, pageToken: '' })).configs
      expect((await list()).map((x) => [x.id, x.url])).toEqual([['cfg-a', hook('/cfg-a')], [t.id, hook('/cfg-b')], ['cfg-c', hook('/cfg-c')]])

      await c.deleteTaskPushNotificationConfig({ tenant: '', taskId: t.id, id: 'cfg-a' })
      await c.deleteTaskPushNotificationConfig({ tenant: '', taskId: t.id, id: 'cfg-a' }) // again: nothing to delete, no error
      expect((await list()).map((x) => x.id)).toEqual([t.id, 'cfg-c'])
      const e = await rejection(get('cfg-a'))
      expect(e).toBeInstanceOf(TaskNotFoundError)
      expect(rpcErrorOf(e).code).toBe(-32001)

      // cancelled: the two configs left are told, the deleted and the replaced ones are not
      expect((await c.cancelTask({ tenant: '', id: t.id, metadata: undefined })).status!.state).toBe(TaskState.TASK_STATE_CANCELED)
      const [b] = await until(() => at('/cfg-b'), (x) => x.length === 1)
      expect(b!.headers.get('authorization')).toBe(`Bearer ${credentials}`)
      expect(b!.headers.get('x-a2a-notification-token')).toBeNull() // as the SDK: authentication wins over the token
      expect(stateOf(b!)).toBe('TASK_STATE_CANCELED')
      await until(() => at('/cfg-c'), (x) => x.length === 1)
      const pushed = (await deliveries(gated.token)).filter((d) => d.event === 'a2a.push').map((d) => d.url)
      expect(pushed).not.toContain(hook('/cfg-a'))
      expect(pushed).not.toContain(hook('/cfg-c-old'))
      expect(at('/cfg-a')).toEqual([])
      // a finished task's configs stay readable
      expect((await list()).map((x) => x.id)).toEqual([t.id, 'cfg-c'])
    })

    test('another agent\'s key (or operator) cannot create, read, list or delete configs of a task it does not own: task not found', async () => {
      const c = await connect(gated.agent.apiKey)
      const t = asTask(await c.sendMessage(message('Pay a third supplier.', { action })))
      await c.createTaskPushNotificationConfig(config({ id: 'mine', taskId: t.id, url: hook('/mine'), token: secret('tok-mine') }))
      const second = await s.post('/api/v1/agents/register', { displayName: 'push-second', capabilities: ['general'] }, { token: gated.token })
      const stranger = await s.operatorWithAgent('push-stranger', ['general'])
      for (const other of [await connect(second.body.apiKey), await connect(stranger.agent.apiKey)]) {
        // one call at a time: a call made before the previous one's rejection is awaited could reject unobserved
        const calls = [
          () => other.createTaskPushNotificationConfig(config({ id: 'theirs', taskId: t.id, url: hook('/theirs'), token: secret('tok-theirs') })),
          () => other.getTaskPushNotificationConfig({ tenant: '', taskId: t.id, id: 'mine' }),
          () => other.listTaskPushNotificationConfig({ tenant: '', taskId: t.id, pageSize: 0, pageToken: '' }),
          () => other.deleteTaskPushNotificationConfig({ tenant: '', taskId: t.id, id: 'mine' }),
        ]
        for (const call of calls) {
          const e = await rejection(call())
          expect(e).toBeInstanceOf(TaskNotFoundError)
          expect(rpcErrorOf(e).code).toBe(-32001)
        }
      }
      expect((await c.listTaskPushNotificationConfig({ tenant: '', taskId: t.id, pageSize: 0, pageToken: '' })).configs.map((x) => x.id)).toEqual(['mine'])
      // the operator's own token reaches them, naming no agent
      expect((await (await connect(gated.token)).getTaskPushNotificationConfig({ tenant: '', taskId: t.id, id: 'mine' })).url).toBe(hook('/mine'))
    })
  })

  test('refused values: a URL that is not http(s) or carries credentials (WEBHOOK_URL_NOT_ALLOWED), a token or scheme that is not header-safe (VALIDATION_FAILED, the value not echoed)', async () => {
    const o = await s.operatorWithAgent('push-refused', ['general'])
    const c = await connect(o.agent.apiKey)
    const t = asTask(await c.sendMessage(message('Something to configure.')))
    for (const url of ['ftp://127.0.0.1/hook', `http://user:pw@127.0.0.1:${receiver.port}/hook`, 'not a url']) {
      expect(rpcErrorOf(await rejection(c.createTaskPushNotificationConfig(config({ taskId: t.id, url }))))).toMatchObject({ code: -32602, reason: 'WEBHOOK_URL_NOT_ALLOWED' })
    }
    const leaky = secret('tok-leaky')
    for (const bad of [{ token: `${leaky}\r\nx-injected: 1` }, { authentication: { scheme: 'Bearer token', credentials: leaky } }, { authentication: { scheme: 'Bearer', credentials: `${leaky}\n` } }]) {
      const e = rpcErrorOf(await rejection(c.createTaskPushNotificationConfig(config({ taskId: t.id, url: hook('/never'), ...bad }))))
      expect(e).toMatchObject({ code: -32602, reason: 'VALIDATION_FAILED' })
      expect(e.message).not.toContain(leaky)
    }
    expect((await c.listTaskPushNotificationConfig({ tenant: '', taskId: t.id, pageSize: 0, pageToken: '' })).configs).toEqual([])
  })

  test('limits: 10 configs per task; TASKGATE_MAX_A2A_PUSH_CONFIGS (12 here) on the operator\'s unfinished tasks, also before a message runs; a finished task\'s configs no longer count', async () => {
    const o = await gatedOperator('push-limits')
    const c = await connect(o.agent.apiKey)
    const held = async () => asTask(await c.sendMessage(message('Pay for the limits test.', { action })))
    const a = await held()
    for (let i = 0; i < 10; i++) await c.createTaskPushNotificationConfig(config({ id: `a${i}`, taskId: a.id, url: hook('/limits') }))
    expect(rpcErrorOf(await rejection(c.createTaskPushNotificationConfig(config({ id: 'a10', taskId: a.id, url: hook('/limits') }))))).toMatchObject({ code: -32000, reason: 'PUSH_CONFIG_LIMIT_REACHED' })
    await c.createTaskPushNotificationConfig(config({ id: 'a0', taskId: a.id, url: hook('/limits-again') })) // replacing one is not one more
    const b = await held()
    for (let i = 0; i < 2; i++) await c.createTaskPushNotificationConfig(config({ id: `b${i}`, taskId: b.id, url: hook('/limits') }))
    const over = rpcErrorOf(await rejection(c.createTaskPushNotificationConfig(config({ id: 'b2', taskId: b.id, url: hook('/limits') }))))
    expect(over).toMatchObject({ code: -32000, reason: 'PUSH_CONFIG_LIMIT_REACHED' })
    expect(over.message).toContain('TASKGATE_MAX_A2A_PUSH_CONFIGS')
    const tasks = (await s.get('/api/v1/operator/tasks', { token: o.token })).body.total
    expect(rpcErrorOf(await rejection(c.sendMessage(withPush(message('One more with a config.'), { url: hook('/limits') }))))).toMatchObject({ code: -32000, reason: 'PUSH_CONFIG_LIMIT_REACHED' })
    expect((await s.get('/api/v1/operator/tasks', { token: o.token })).body.total).toBe(tasks) // refused before any task
    // task a finishes (cancelled): its 10 configs are done, so b takes more
    await c.cancelTask({ tenant: '', id: a.id, metadata: undefined })
    await c.createTaskPushNotificationConfig(config({ id: 'b2', taskId: b.id, url: hook('/limits') }))
    expect((await c.listTaskPushNotificationConfig({ tenant: '', taskId: b.id, pageSize: 0, pageToken: '' })).configs).toHaveLength(3)
  })

  test('a receiver that fails is retried by the outbox (10 s, then 20 s, by the test clock): the same delivery id and body each time, then delivered', async () => {
    const o = await s.operatorWithAgent('push-flaky', ['general'])
    script.set('/flaky', [503, 503])
    const c = await connect(o.agent.apiKey)
    const token = secret('tok-flaky')
    const t = asTask(await c.sendMessage(withPush(message('My receiver is having a bad day.'), { url: hook('/flaky'), token })))
    expect(t.status!.state).toBe(TaskState.TASK_STATE_COMPLETED)
    await until(() => deliveries(o.token), (d) => d[0]?.attempts === 1 && d[0].status === 'pending')
    expect((await deliveries(o.token))[0]).toMatchObject({ event: 'a2a.push', status: 'pending', attempts: 1, lastStatus: 503 })
    await advance(10_000)
    await until(() => deliveries(o.token), (d) => d[0]?.attempts === 2)
    expect(at('/flaky')).toHaveLength(2)
    await advance(20_000)
    const [d] = await until(() => deliveries(o.token), (x) => x[0]?.status === 'delivered')
    expect(d).toMatchObject({ attempts: 3, lastStatus: 200 })
    const tries = at('/flaky')
    expect(tries).toHaveLength(3)
    expect(new Set(tries.map((h) => h.headers.get('x-taskgate-delivery')))).toEqual(new Set([d!.id]))
    expect(new Set(tries.map((h) => h.raw)).size).toBe(1)
    expect(tries.every((h) => h.headers.get('x-a2a-notification-token') === token)).toBe(true)
    expect(stateOf(tries[0]!)).toBe('TASK_STATE_COMPLETED')
  })

  test('a v0.3 client: message/send with pushNotificationConfig gets the 0.3 Task tasks/get answers (application/json); tasks/pushNotificationConfig/set, get, list, delete', async () => {
    const o = await s.operatorWithAgent('push-legacy', ['general'])
    const key = o.agent.apiKey as string
    const token = secret('tok-legacy')
    const sent = await rpc(key, 'message/send', {
      message: { kind: 'message', messageId: 'legacy-push-1', role: 'user', parts: [{ kind: 'text', text: 'An old client wants a push.' }], contextId: 'legacy-push-ctx' },
      configuration: { blocking: true, pushNotificationConfig: { url: hook('/legacy'), token } },
    })
    const t = sent.body.result
    expect(t).toMatchObject({ kind: 'task', contextId: 'legacy-push-ctx', status: { state: 'completed' } })
    const [h] = await until(() => at('/legacy'), (x) => x.length === 1)
    expect(h!.headers.get('content-type')).toBe('application/json')
    expect(h!.headers.get('x-a2a-notification-token')).toBe(token)
    expect(JSON.parse(h!.raw)).toEqual((await rpc(key, 'tasks/get', { id: t.id })).body.result)

    expect((await rpc(key, 'tasks/pushNotificationConfig/get', { id: t.id })).body.result).toEqual({ taskId: t.id, pushNotificationConfig: { id: t.id, url: hook('/legacy'), token } })
    const set = await rpc(key, 'tasks/pushNotificationConfig/set', { taskId: t.id, pushNotificationConfig: { id: 'second', url: hook('/legacy-2'), authentication: { schemes: ['Basic'], credentials: secret('cred-legacy') } } })
    expect(set.body.result).toMatchObject({ taskId: t.id, pushNotificationConfig: { id: 'second', url: hook('/legacy-2'), authentication: { schemes: ['Basic'] } } })
    expect((await rpc(key, 'tasks/pushNotificationConfig/get', { id: t.id, pushNotificationConfigId: 'second' })).body.result.pushNotificationConfig.url).toBe(hook('/legacy-2'))
    expect((await rpc(key, 'tasks/pushNotificationConfig/list', { id: t.id })).body.result.map((x: any) => x.pushNotificationConfig.id)).toEqual([t.id, 'second'])
    expect((await rpc(key, 'tasks/pushNotificationConfig/delete', { id: t.id, pushNotificationConfigId: 'second' })).body).toMatchObject({ result: null })
    expect((await rpc(key, 'tasks/pushNotificationConfig/list', { id: t.id })).body.result.map((x: any) => x.pushNotificationConfig.id)).toEqual([t.id])
    expect((await rpc(key, 'tasks/pushNotificationConfig/get', { id: t.id, pushNotificationConfigId: 'second' })).body.error.code).toBe(-32001)
  })

  test('tokens and credentials: not in the server log, GET answers, the deliveries list or the export; sealed in the database', async () => {
    expect(SECRETS.length).toBeGreaterThan(10)
    const o = await s.operatorWithAgent('push-secrets', ['general'])
    const c = await connect(o.agent.apiKey)
    const token = secret('tok-export')
    const t = asTask(await c.sendMessage(withPush(message('Export me with my config.'), { id: 'exported', url: hook('/export'), token })))
    await until(() => deliveries(o.token), (d) => d[0]?.status === 'delivered')
    const texts = [
      s.stdout, s.stderr,
      (await s.get(`/api/v1/tasks/${t.id}`, { token: o.token })).text,
      (await s.get('/api/v1/operator/webhooks/deliveries?limit=100', { token: o.token })).text,
    ]
    const exported = await s.get('/api/v1/operator/export', { token: o.token })
    expect(exported.status).toBe(200)
    texts.push(exported.text)
    expect(exported.body.a2aPushConfigs).toEqual([expect.objectContaining({ id: 'exported', taskId: t.id, url: hook('/export'), protocolVersion: '1.0', tokenSet: true, authenticationScheme: null })])
    expect(exported.body.a2aPushConfigs[0].doneAt).toBeString() // the task completed
    const db = await openTestDb(s.dataDir, { readonly: true })
    try {
      const configs = db.query('SELECT * FROM a2a_push_configs').all() as Record<string, unknown>[]
      expect(configs.length).toBeGreaterThan(10)
      expect(configs.filter((r) => r.token_sealed !== null).every((r) => String(r.token_sealed).startsWith('v1.'))).toBe(true)
      texts.push(JSON.stringify(configs), JSON.stringify(db.query('SELECT * FROM webhook_deliveries').all()))
    } finally { db.close() }
    for (const v of SECRETS) for (const [i, text] of texts.entries()) expect({ secret: v, where: i, found: text.includes(v) }).toEqual({ secret: v, where: i, found: false })
  })
})
