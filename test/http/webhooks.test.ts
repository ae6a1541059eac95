// Approval webhooks over real HTTP (docs/webhooks.md): a real receiver on
// loopback (Bun.serve) gets approval.required, approval.resolved (also the one-shot callback, once)
// and approval.expiring, each verified with both signatures by the code docs/webhooks.md shows; the
// derived secret and a configured one; the durable outbox retrying with backoff by the test clock,
// across a restart, until delivered or failed after 8 attempts; URL checks without the override;
// one DNS lookup per attempt, whose address the POST goes to (a fake DNS server: TASKGATE_DNS_SERVERS).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startFakeDns } from '../helpers/fake-dns'
import { expectProblem, startServer, type TestServer } from '../helpers/server'
import { verifyWebhook } from '../helpers/webhook-verify'

interface Hit { path: string; raw: string; headers: Headers; body: any }
let hits: Hit[] = []
/** Status codes the receiver answers, per path (consumed in order; then 200). */
const script = new Map<string, number[]>()
let receiver: ReturnType<typeof Bun.serve>
let s: TestServer
let admin: string
let release = () => {}
const hang = new Promise<void>((r) => { release = r })
let signers: { signers: { address: `0x${string}` }[]; eip712Domains: { webhook: { name: string; version: string; chainId: number } } }

beforeAll(async () => {
  receiver = Bun.serve({
    port: 0, hostname: '127.0.0.1',
    async fetch(req) {
      const path = new URL(req.url).pathname
      const raw = await req.text()
      hits.push({ path, raw, headers: req.headers, body: JSON.parse(raw) })
      if (path === '/hang' && at('/hang').length === 1) await hang // the first attempt never gets an answer
      const q = script.get(path)
      const status = q?.length ? q.shift()! : (q && path.startsWith('/down') ? 503 : 200)
      return new Response('ok', { status })
    },
  })
  s = await startServer({ TASKGATE_TEST_CLOCK: '1', TASKGATE_WEBHOOK_ALLOW_PRIVATE: '1' })
  admin = await s.setupAdmin()
  signers = (await s.get('/.well-known/taskgate-signers')).body
}, 30_000)
afterAll(async () => { release(); await s?.cleanup(); receiver?.stop(true) })

const hook = (path: string) => `http://127.0.0.1:${receiver.port}${path}`
const advance = async (ms: number) => expect((await s.post('/api/v1/admin/clock/advance', { ms }, { token: admin })).status).toBe(200)

async function until<T>(fn: () => Promise<T> | T, ok: (v: T) => boolean, tries = 250, ms = 20): Promise<T> {
  let v = await fn()
  for (let i = 0; i < tries && !ok(v); i++) { await Bun.sleep(ms); v = await fn() }
  if (!ok(v)) throw new Error(`condition not met: ${JSON.stringify(v).slice(0, 400)}`)
  return v
}

let n = 0
interface Op { token: string; id: string; agentId: string; agentKey: string }
async function operator(guardrails: Record<string, unknown>): Promise<Op> {
  const token = await s.signup(`hook-${++n}-${crypto.randomUUID().slice(0, 6)}`)
  const id = (await s.get('/api/v1/auth/me', { token })).body.id
  const r = await s.post('/api/v1/agents/register', { displayName: `Hooked ${n}`, capabilities: ['spend_control'] }, { token })
  expect((await s.patch('/api/v1/operator/guardrails', { approvalThreshold: 100, ...guardrails }, { token })).status).toBe(200)
  await advance(30_000)
  return { token, id, agentId: r.body.agentId, agentKey: r.body.apiKey }
}

async function hold(o: Op): Promise<{ taskId: string; approvalId: string }> {
  const r = await s.post('/api/v1/tasks/submit?wait=5', { agentId: o.agentId, taskType: 'spend_control', prompt: 'Pay vendor.', action: { actionType: 'spend_control', operation: 'invoice_payment', target: '0xVendor', requestedValue: 250.5, currency: 'USDC' } }, { key: o.agentKey })
  expect(r.status).toBe(202)
  return { taskId: r.body.id, approvalId: r.body.approvalId }
}

const FIELDS = ['event', 'approvalId', 'taskId', 'agentId', 'actionType', 'operation', 'target', 'requestedValue', 'currency', 'triggerPolicy', 'triggerReason', 'resolveUrl', 'decision', 'decidedBy', 'timestamp']
const verify = (h: Hit, secret: string) => verifyWebhook(h.raw, h.headers, secret, signers.signers[0]!.address, signers.eip712Domains.webhook)
const at = (path: string) => hits.filter((h) => h.path === path)

describe('signed webhooks', () => {
  test('the webhook EIP-712 domain is published', () => {
    expect(signers.eip712Domains.webhook).toEqual({ name: 'TaskGate Webhook', version: '1', chainId: 84532 })
  })

  test('approval.required and approval.resolved with the derived secret; the one-shot callback once', async () => {
    const o = await operator({ approvalWebhookUrl: hook('/a') })
    const secret = (await s.post('/api/v1/operator/webhooks/secret', undefined, { token: o.token })).body.secret as string
    expect(secret).toMatch(/^whsec_[0-9a-f]{64}$/)
    const h = await hold(o)
    const [req] = await until(() => at('/a'), (x) => x.length === 1)
    expect(Object.keys(req!.body)).toEqual(FIELDS)
    expect(req!.body).toMatchObject({
      event: 'approval.required', approvalId: h.approvalId, taskId: h.taskId, agentId: o.agentId, actionType: 'spend_control', operation: 'invoice_payment',
      target: '0xVendor', requestedValue: 250.5, currency: 'USDC', triggerPolicy: 'human_approval_threshold', resolveUrl: `${s.url}/#/approvals/${h.approvalId}`,
      decision: null, decidedBy: null,
    })
    expect(req!.headers.get('x-taskgate-event')).toBe('approval.required')
    expect(req!.headers.get('x-taskgate-delivery')).toMatch(/^whd_/)
    expect(req!.headers.get('content-type')).toBe('application/json')
    expect(await verify(req!, secret)).toBe(true)
    expect(await verify(req!, secret.replace(/.$/, (c) => (c === '0' ? '1' : '0')))).toBe(false) // another secret
    expect(await verifyWebhook(req!.raw.replace('250.5', '25.5'), req!.headers, secret, signers.signers[0]!.address, signers.eip712Domains.webhook)).toBe(false) // tampered

    // the one-shot callback, then the decision
    expect((await s.post(`/api/v1/approvals/${h.approvalId}/callback`, { callbackUrl: hook('/cb') }, { key: o.agentKey })).body).toEqual({ registered: true, approvalId: h.approvalId })
    expect((await s.patch(`/api/v1/approvals/${h.approvalId}`, { decision: 'approved' }, { token: o.token })).status).toBe(200)
    const [resolved] = await until(() => at('/a').slice(1), (x) => x.length === 1)
    const [cb] = await until(() => at('/cb'), (x) => x.length === 1)
    for (const x of [resolved!, cb!]) {
      expect(x.body).toMatchObject({ event: 'approval.resolved', approvalId: h.approvalId, decision: 'approved', decidedBy: o.id })
      expect(await verify(x, secret)).toBe(true)
    }
    expect(cb!.raw).toBe(resolved!.raw)
    expect(cb!.headers.get('x-taskgate-delivery')).not.toBe(resolved!.headers.get('x-taskgate-delivery'))
    // the callback is gone once used: registering on a resolved request → 409
    expectProblem(await s.post(`/api/v1/approvals/${h.approvalId}/callback`, { callbackUrl: hook('/cb') }, { token: o.token }), 409, 'APPROVAL_ALREADY_RESOLVED')
    await advance(3600_000)
    expect(at('/cb')).toHaveLength(1)
    const d = await until(async () => (await s.get('/api/v1/operator/webhooks/deliveries', { token: o.token })).body, (x) => x.data.every((y: any) => y.status === 'delivered'))
    expect(d.total).toBe(3)
    expect(d.page).toBe(1)
    expect(d.data.map((x: any) => [x.event, x.status, x.attempts, x.lastStatus])).toEqual([
      ['approval.resolved', 'delivered', 1, 200], ['approval.resolved', 'delivered', 1, 200], ['approval.required', 'delivered', 1, 200]])
    expect(d.data.every((x: any) => x.nextAttemptAt === null && x.lastError === null && x.url.startsWith(hook('/')))).toBe(true)
    // rotating changes the key
    const next = (await s.post('/api/v1/operator/webhooks/secret', undefined, { token: o.token })).body.secret
    expect(next).not.toBe(secret)
  })

  test('a configured approvalWebhookSecret is the HMAC key; denial and expiring events', async () => {
    const configured = 'configured-secret-0123456789'
    const o = await operator({ approvalWebhookUrl: hook('/b'), approvalWebhookSecret: configured, approvalTtlHours: 3 })
    const d = await hold(o)
    const e = await hold(o)
    await until(() => at('/b'), (x) => x.length === 2)
    expect(await verify(at('/b')[0]!, configured)).toBe(true)
    expect((await s.patch(`/api/v1/approvals/${d.approvalId}`, { decision: 'denied', note: 'no' }, { token: o.token })).status).toBe(200)
    const denied = (await until(() => at('/b'), (x) => x.length === 3))[2]!
    expect(denied.body).toMatchObject({ event: 'approval.resolved', approvalId: d.approvalId, decision: 'denied' })
    await advance(2 * 3600_000) // 1 h before e expires
    const expiring = (await until(() => at('/b'), (x) => x.length === 4))[3]!
    expect(expiring.body).toMatchObject({ event: 'approval.expiring', approvalId: e.approvalId, decision: null })
    expect(expiring.headers.get('x-taskgate-event')).toBe('approval.expiring')
    expect(await verify(expiring, configured)).toBe(true)
    await advance(3600_000)
    const expired = (await until(() => at('/b'), (x) => x.length === 5))[4]!
    expect(expired.body).toMatchObject({ event: 'approval.resolved', approvalId: e.approvalId, decision: 'expired', decidedBy: null })
  })
})

describe('the outbox', () => {
  test('retries with backoff by the service clock, the same delivery id, across a restart', async () => {
    script.set('/flaky', [500, 502, 200])
    const o = await operator({ approvalWebhookUrl: hook('/flaky') })
    await hold(o)
    const list = async () => (await s.get('/api/v1/operator/webhooks/deliveries', { token: o.token })).body.data[0]
    const first = await until(list, (x) => x?.attempts === 1)
    expect(first).toMatchObject({ event: 'approval.required', status: 'pending', lastStatus: 500, lastError: 'HTTP 500' })
    expect(Date.parse(first.nextAttemptAt) - Date.parse(first.createdAt)).toBeGreaterThanOrEqual(10_000)
    expect(Date.parse(first.nextAttemptAt) - Date.parse(first.createdAt)).toBeLessThan(11_000)
    await advance(9_000)
    expect((await list()).attempts).toBe(1) // not before its time
    await advance(1_000)
    const second = await until(list, (x) => x.attempts === 2)
    expect(second).toMatchObject({ status: 'pending', lastStatus: 502 })
    expect(Date.parse(second.nextAttemptAt) - Date.parse(first.nextAttemptAt)).toBeGreaterThanOrEqual(20_000)
    // the server stops with the retry pending; after the restart it continues on schedule
    await s.restart()
    expect((await list()).attempts).toBe(2)
    await advance(20_000)
    const done = await until(list, (x) => x.status === 'delivered')
    expect(done).toMatchObject({ attempts: 3, lastStatus: 200, nextAttemptAt: null, lastError: null })
    const ids = new Set(at('/flaky').map((h) => h.headers.get('x-taskgate-delivery')))
    expect(at('/flaky')).toHaveLength(3)
    expect([...ids]).toEqual([done.id])
    expect(new Set(at('/flaky').map((h) => h.raw)).size).toBe(1)
  }, 30_000)

  test('a delivery stopped in mid-attempt is attempted again after the restart, with the same id', async () => {
    const o = await operator({ approvalWebhookUrl: hook('/hang') })
    await hold(o)
    await until(() => at('/hang'), (x) => x.length === 1) // the receiver holds this one open
    await s.restart()
    const [first, second] = await until(() => at('/hang'), (x) => x.length === 2)
    expect(second!.headers.get('x-taskgate-delivery')).toBe(first!.headers.get('x-taskgate-delivery'))
    expect(second!.raw).toBe(first!.raw)
    const d = await until(async () => (await s.get('/api/v1/operator/webhooks/deliveries', { token: o.token })).body.data[0], (x) => x.status === 'delivered')
    expect(d.attempts).toBe(1) // the interrupted attempt was never recorded
  }, 30_000)

  test('gives up after 8 attempts (failed); the pipeline is never blocked', async () => {
    script.set('/down', [])
    const o = await operator({ approvalWebhookUrl: hook('/down') })
    await hold(o)
    const list = async () => (await s.get('/api/v1/operator/webhooks/deliveries', { token: o.token })).body.data[0]
    await until(list, (x) => x?.attempts === 1)
    // while its webhook keeps failing, the operator's other work runs as usual
    const free = await s.post('/api/v1/tasks/submit?wait=5', { agentId: o.agentId, taskType: 'spend_control', prompt: 'Small one.', action: { requestedValue: 5 } }, { key: o.agentKey })
    expect(free.body.status).toBe('COMPLETED')
    for (let i = 1; i < 8; i++) {
      await advance(10_000 * 2 ** (i - 1))
      await until(list, (x) => x.attempts === i + 1)
    }
    expect(await list()).toMatchObject({ status: 'failed', attempts: 8, lastStatus: 503, nextAttemptAt: null })
    expect(at('/down')).toHaveLength(8)
  }, 30_000)
})

describe('webhook URLs without TASKGATE_WEBHOOK_ALLOW_PRIVATE', () => {
  test('loopback, private, link-local and metadata addresses → 400 WEBHOOK_URL_NOT_ALLOWED, also behind a name', async () => {
    const t = await startServer({ TASKGATE_TEST_CLOCK: '1' })
    try {
      const adm = await t.setupAdmin()
      const token = await t.signup('strict-hooks')
      for (const url of ['http://127.0.0.1:9/hook', 'http://10.0.0.5/hook', 'http://192.168.1.20/hook', 'http://169.254.169.254/latest/meta-data', 'http://[::1]/hook', 'http://localhost:9/hook']) {
        const r = await t.patch('/api/v1/operator/guardrails', { approvalWebhookUrl: url }, { token })
        expectProblem(r, 400, 'WEBHOOK_URL_NOT_ALLOWED')
      }
      expectProblem(await t.patch('/api/v1/operator/guardrails', { approvalWebhookUrl: 'ftp://example.com/x' }, { token }), 400, 'VALIDATION_FAILED')
      expect((await t.patch('/api/v1/operator/guardrails', { approvalWebhookUrl: 'https://93.184.216.34/hook', approvalThreshold: 1 }, { token })).status).toBe(200)
      expect((await t.post('/api/v1/admin/clock/advance', { ms: 30_000 }, { token: adm })).status).toBe(200)
      const agent = (await t.post('/api/v1/agents/register', { displayName: 'strict', capabilities: ['general'] }, { token })).body
      const held = await t.post('/api/v1/tasks/submit?wait=5', { agentId: agent.agentId, taskType: 'general', prompt: 'x', action: { requestedValue: 5 } }, { token })
      expect(held.status).toBe(202)
      expectProblem(await t.post(`/api/v1/approvals/${held.body.approvalId}/callback`, { callbackUrl: 'http://127.0.0.1:9/cb' }, { token }), 400, 'WEBHOOK_URL_NOT_ALLOWED')
    } finally {
      await t.cleanup()
    }
  }, 30_000)
})

describe('one DNS lookup per attempt (TASKGATE_DNS_SERVERS names a fake DNS server)', () => {
  /** An operator of `t` whose active guardrails send webhooks to `url` (`saved` runs right after the PATCH). */
  async function hooked(t: TestServer, login: string, url: string, saved: () => void) {
    const adm = await t.setupAdmin()
    const token = await t.signup(login)
    const advance = async (ms: number) => expect((await t.post('/api/v1/admin/clock/advance', { ms }, { token: adm })).status).toBe(200)
    const save = async (u: string) => expect((await t.patch('/api/v1/operator/guardrails', { approvalWebhookUrl: u, approvalThreshold: 1 }, { token })).status).toBe(200)
    await save(url)
    saved()
    await advance(30_000)
    const agent = (await t.post('/api/v1/agents/register', { displayName: login, capabilities: ['general'] }, { token })).body
    return {
      advance, save,
      hold: async () => expect((await t.post('/api/v1/tasks/submit?wait=5', { agentId: agent.agentId, taskType: 'general', prompt: 'x', action: { requestedValue: 5 } }, { token })).status).toBe(202),
      deliveries: async () => (await t.get('/api/v1/operator/webhooks/deliveries', { token })).body.data,
    }
  }

  test('DNS rebinding: a name public when saved and loopback at delivery is refused before any connection; the list shows the refusal, no status', async () => {
    const name = 'hook.rebind.test' // a public address on the first lookup, 127.0.0.1 on every later one
    const dns = await startFakeDns((q, n) => (q.name !== name ? null : q.type === 'A' ? [n === 1 ? '93.184.215.14' : '127.0.0.1'] : []))
    const t = await startServer({ TASKGATE_TEST_CLOCK: '1', TASKGATE_DNS_SERVERS: dns.server })
    const lookups = () => dns.queries.filter((q) => q.name === name && q.type === 'A').length
    try {
      const url = `http://${name}:${receiver.port}/rebind`
      const o = await hooked(t, 'rebind-hooks', url, () => expect(lookups()).toBe(1)) // saved: the check saw the public address
      await o.hold()
      const [d] = await until(o.deliveries, (x) => x[0]?.status === 'failed')
      expect(d).toMatchObject({ url, event: 'approval.required', status: 'failed', attempts: 1, lastStatus: null, nextAttemptAt: null, lastError: `not delivered: the host ${name} resolves to a loopback address` })
      expect(at('/rebind')).toHaveLength(0) // the loopback receiver never got the POST
      expect(lookups()).toBe(2) // one when saved, one for the attempt: none at connect time
    } finally {
      await t.cleanup()
      dns.stop()
    }
  }, 30_000)

  test('also with TASKGATE_WEBHOOK_ALLOW_PRIVATE=1: the POST goes to the address of the attempt\'s one lookup; a name that does not resolve is retried', async () => {
    const name = 'hook.pin.test' // 127.0.0.1 on the first lookup, 127.0.0.2 on every later one
    let late = false // hook.late.test: no such name until `late`, then 127.0.0.1
    const dns = await startFakeDns((q, n) => {
      if (q.name === name) return q.type === 'A' ? [n === 1 ? '127.0.0.1' : '127.0.0.2'] : []
      if (q.name === 'hook.late.test' && late) return q.type === 'A' ? ['127.0.0.1'] : []
      return null
    })
    let decoyHits = 0
    const decoy = Bun.serve({ port: receiver.port, hostname: '127.0.0.2', fetch: () => { decoyHits++; return new Response('ok') } })
    const t = await startServer({ TASKGATE_TEST_CLOCK: '1', TASKGATE_WEBHOOK_ALLOW_PRIVATE: '1', TASKGATE_DNS_SERVERS: dns.server })
    const lookups = () => dns.queries.filter((q) => q.name === name && q.type === 'A').length
    try {
      const url = `http://${name}:${receiver.port}/pinned`
      const o = await hooked(t, 'pinned-hooks', url, () => expect(lookups()).toBe(0)) // no address check, so no lookup when saved
      await o.hold()
      const [hit] = await until(() => at('/pinned'), (x) => x.length === 1)
      expect(hit!.headers.get('host')).toBe(`${name}:${receiver.port}`)
      const [d] = await until(o.deliveries, (x) => x[0]?.status === 'delivered')
      expect(d).toMatchObject({ url, status: 'delivered', attempts: 1, lastStatus: 200 })
      expect(lookups()).toBe(1) // the attempt's one lookup
      expect(decoyHits).toBe(0) // a second lookup would have answered 127.0.0.2

      // a name that does not resolve (yet): retried like a refused connection, not failed at once
      const lateUrl = `http://hook.late.test:${receiver.port}/late`
      await o.save(lateUrl)
      await o.advance(30_000)
      await o.hold()
      const [pending] = await until(o.deliveries, (x) => x[0]?.url === lateUrl && x[0].attempts === 1)
      expect(pending).toMatchObject({ status: 'pending', lastStatus: null, lastError: 'the host hook.late.test does not resolve' })
      late = true
      await o.advance(10_000)
      const [done] = await until(o.deliveries, (x) => x[0]?.status === 'delivered')
      expect(done).toMatchObject({ url: lateUrl, attempts: 2, lastStatus: 200 })
      expect(at('/late')).toHaveLength(1)
    } finally {
      await t.cleanup()
      decoy.stop(true)
      dns.stop()
    }
  }, 30_000)
})
