// Health, readiness, metrics, OpenAPI, docs, public config, request ids, the test clock.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { expectProblem, startServer, type TestServer } from '../helpers/server'

let s: TestServer
let admin: string

beforeAll(async () => {
  s = await startServer({ TASKGATE_TEST_CLOCK: '1', TASKGATE_METRICS_TOKEN: 'metrics-secret', TASKGATE_TIERS_FREE_MONTHLY_CREDITS: '123', TASKGATE_PIONEER_TASK_POINTS: '7' })
  admin = await s.setupAdmin()
})
afterAll(async () => { await s.cleanup() })

describe('health', () => {
  test('healthz and readyz', async () => {
    expect((await s.get('/healthz')).body).toMatchObject({ status: 'ok' })
    const r = await s.get('/readyz')
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ status: 'ready', checks: { db: 'ok', database: 'ok', storage: 'ok', jobs: 'ok', ipfs: 'ok' } })
  })

  test('request ids: generated, or echoed when the client sends a sane one', async () => {
    const a = await s.get('/healthz')
    expect(a.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    const b = await s.get('/healthz', { headers: { 'x-request-id': 'trace-123' } })
    expect(b.headers.get('x-request-id')).toBe('trace-123')
    const c = await s.get('/nope', { headers: { 'x-request-id': 'bad id with spaces' } })
    expect(c.headers.get('x-request-id')).not.toBe('bad id with spaces')
    expect(c.body.requestId).toBe(c.headers.get('x-request-id'))
  })

  test('issue 30: an empty or malformed x-request-id is ignored, never refused, echoed or logged; the document says so', async () => {
    // Schemathesis' request: an empty x-request-id, an unknown header, a valid body
    const victim = (await s.get('/api/v1/auth/me', { token: await s.signup('rid-victim') })).body.id
    const bogus = '2mDAZ"@g"rtr\'=H'
    const r = await s.post('/api/v1/admin/credits', { reason: '1e100', operatorId: victim, amount: 1548 }, { token: admin, headers: { jd: bogus, 'x-request-id': '' } })
    expect(r.status).toBe(200)
    expect(r.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    for (const sent of ['', bogus, 'a'.repeat(129), 'id with spaces', 'id\u00e9']) {
      const x = await fetch(`${s.url}/api/v1/public/stats`, { headers: { 'x-request-id': sent } })
      expect(x.status).toBe(200)
      const id = x.headers.get('x-request-id')!
      expect(id).toMatch(/^[0-9a-f-]{36}$/)
      expect(id).not.toBe(sent)
    }
    await Bun.sleep(50)
    expect(s.stdout).not.toContain('2mDAZ')
    expect(s.stdout).not.toContain('id with spaces')
    const param = (await s.get('/openapi.json')).body.components.parameters.RequestId
    expect(param).toMatchObject({ name: 'x-request-id', in: 'header', required: false, schema: { type: 'string' } })
    expect(param.description).toContain('Any other value, the empty one included, is ignored')
    expect(param.description).toContain('^[A-Za-z0-9._:-]{1,128}$')
  })

  test('routes answered by Bun\'s router (exact GET paths) take a query string and HEAD; other methods and paths still reach the full router', async () => {
    const q = await s.get('/healthz?probe=1', { headers: { 'x-request-id': 'probe-1' } })
    expect(q.status).toBe(200)
    expect(q.body).toMatchObject({ status: 'ok' })
    expect(q.headers.get('x-request-id')).toBe('probe-1')
    expect(q.headers.get('x-content-type-options')).toBe('nosniff')
    const head = await fetch(`${s.url}/healthz`, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    expect(await head.text()).toBe('')
    expectProblem(await s.post('/healthz', {}), 405)
    const me = await s.get('/api/v1/auth/me?x=1', { token: admin })
    expect(me.status).toBe(200)
    expectProblem(await s.get('/api/v1/auth/me?x=1'), 401)
  })
})

describe('metrics', () => {
  test('are token-protected when TASKGATE_METRICS_TOKEN is set', async () => {
    expectProblem(await s.get('/metrics'), 401)
    expectProblem(await s.get('/metrics', { token: 'wrong' }), 401)
  })

  test('count requests and record latency histograms by route and status', async () => {
    for (let i = 0; i < 3; i++) await s.get('/api/v1/config/public')
    await s.get('/api/v1/auth/me')
    const r = await s.get('/metrics', { token: 'metrics-secret' })
    expect(r.headers.get('content-type')).toContain('text/plain')
    const line = r.text.split('\n').find((l) => l.startsWith('taskgate_http_requests_total{method="GET",route="/api/v1/config/public",status="200"}'))
    expect(Number(line?.split(' ').pop())).toBeGreaterThanOrEqual(3)
    expect(r.text).toContain('taskgate_http_requests_total{method="GET",route="/api/v1/auth/me",status="401"}')
    expect(r.text).toMatch(/taskgate_http_request_duration_seconds_bucket\{method="GET",route="\/api\/v1\/config\/public",status="200",le="\+Inf"\} \d+/)
    expect(r.text).toContain('# TYPE taskgate_http_request_duration_seconds histogram')
    // unknown paths share one label value, so scanners cannot blow up the series count
    await s.get('/random-path-1'); await s.get('/random-path-2')
    const again = (await s.get('/metrics', { token: 'metrics-secret' })).text
    expect(again).not.toContain('random-path')
    expect(again).toContain('route="unmatched",status="404"')
    expect(again).toMatch(/taskgate_compute_queue_depth \d+/)
    expect(again).toMatch(/taskgate_jobs_pending \d+/)
  })

  test('the signing worker signs, and its receipts verify', async () => {
    const { token, agent } = await s.operatorWithAgent('signs-on-worker')
    const submit = () => s.post('/api/v1/tasks/submit?wait=30', { agentId: agent.agentId, taskType: 'sentiment_analysis', prompt: 'A clear, verified answer.' }, { token })
    expect((await submit()).body.status).toBe('COMPLETED') // the first signature starts the worker
    const metric = async () => (await s.get('/metrics', { token: 'metrics-secret' })).text
    const onWorker = /^taskgate_signing_worker 1$/m
    for (let i = 0; i < 200 && !onWorker.test(await metric()); i++) await Bun.sleep(25) // the worker thread starting, not a clock
    expect(await metric()).toMatch(onWorker)
    for (let i = 0; i < 3; i++) {
      const t = (await submit()).body
      const proof = (await s.get(`/api/v1/public/proof/${t.receiptCid}`)).body
      expect(proof.verification).toEqual({ signatureValid: true, signer: expect.any(String), signerKnown: true, cidMatches: true })
    }
  })
})

describe('public config', () => {
  test('has the documented keys (docs/foundation.md, "Tiers and the public configuration"), with values from configuration', async () => {
    const c = (await s.get('/api/v1/config/public')).body
    expect(c['tiers.free.monthlyCredits']).toBe(123)
    expect(c['tiers.pro.monthlyCredits']).toBe(1000)
    expect(c['tiers.pro.priceMonthlyUsd']).toBe(15)
    expect(c['leaderboard.pioneer.taskPoints']).toBe(7)
    expect(c['leaderboard.pioneer.explorerThreshold']).toBe(500)
    expect(c['leaderboard.pioneer.founderThreshold']).toBe(25000)
    expect(c['credits.topUpPacks']).toBeArray()
    for (const p of c['credits.topUpPacks']) { expect(typeof p.credits).toBe('number'); expect(typeof p.priceUsd).toBe('number') }
    expect(JSON.stringify(c)).not.toMatch(/secret/i)
  })
})

describe('OpenAPI and docs', () => {
  test('every declared route is documented with its accepted credentials', async () => {
    const doc = (await s.get('/openapi.json')).body
    expect(doc.openapi).toBe('3.2.0')
    expect(doc.components.securitySchemes.bearer.scheme).toBe('bearer')
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-api-key' })
    const keys = doc.paths['/api/v1/operator/keys']
    expect(keys.get.security).toEqual([{ bearer: [] }])
    expect(keys.post.requestBody.content['application/json'].schema.required).toContain('name')
    expect(doc.paths['/api/v1/operator/keys/{keyId}'].delete.parameters[0]).toMatchObject({ name: 'keyId', in: 'path', required: true })
    expect(doc.paths['/api/v1/whoami'].get.security).toEqual([{ bearer: [] }, { apiKey: [] }])
    expect(doc.paths['/api/v1/config/public'].get.security).toEqual([])
    expect(doc.paths['/api/v1/admin/operators'].get['x-taskgate-auth']).toBe('admin')
    expect(doc.paths['/api/v1/auth/me'].get.responses['401'].content['application/problem+json']).toBeDefined()
    const me = doc.paths['/api/v1/auth/me'].get.responses['200'].content['application/json'].schema
    expect(Object.keys(me.properties)).toContain('effectiveTier')
  })

  test('/docs renders the reference from /openapi.json', async () => {
    const r = await s.get('/docs')
    expect(r.headers.get('content-type')).toContain('text/html')
    expect(r.text).toContain('/openapi.json')
  })
})

describe('test clock', () => {
  test('admin advances the service clock; bearer tokens expire by it', async () => {
    const t = await s.signup('sleeper')
    expect((await s.get('/api/v1/auth/me', { token: t })).status).toBe(200)
    const u = await s.signup('plain-user')
    expectProblem(await s.post('/api/v1/admin/clock/advance', { ms: 1000 }, { token: u }), 403, 'ADMIN_REQUIRED')
    expectProblem(await s.post('/api/v1/admin/clock/advance', { ms: -5 }, { token: admin }), 400, 'VALIDATION_FAILED')
    const r = await s.post('/api/v1/admin/clock/advance', { ms: 12 * 3600 * 1000 + 1000 }, { token: admin })
    expect(r.status).toBe(200)
    expect(r.body.offsetMs).toBeGreaterThanOrEqual(12 * 3600 * 1000)
    expect(Date.parse(r.body.now)).toBeGreaterThan(Date.now() + 12 * 3600 * 1000 - 5000)
    expectProblem(await s.get('/api/v1/auth/me', { token: t }), 401, 'INVALID_TOKEN')
    // the offset survives a restart
    await s.restart()
    const fresh = (await s.post('/api/v1/auth/login', { login: 'sleeper', password: 'operator-password' })).body.accessToken
    const payload = JSON.parse(Buffer.from(fresh.split('.')[1], 'base64url').toString())
    expect(payload.exp * 1000).toBeGreaterThan(Date.now() + 24 * 3600 * 1000 - 60_000)
    admin = (await s.post('/api/v1/auth/login', { login: 'admin', password: 'admin-password' })).body.accessToken
  })

  test('does not exist without the flag', async () => {
    const plain = await startServer()
    try {
      const t = await plain.setupAdmin()
      expectProblem(await plain.post('/api/v1/admin/clock/advance', { ms: 1 }, { token: t }), 404, 'ROUTE_NOT_FOUND')
    } finally { await plain.cleanup() }
  })
})
