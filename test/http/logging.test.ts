// One log line per request, and no secret ever reaches the logs.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Writable } from 'node:stream'
import { createLogger } from '../../src/log'
import { startServer, type TestServer } from '../helpers/server'

let s: TestServer
beforeAll(async () => { s = await startServer() })
afterAll(async () => { await s.cleanup() })

describe('request logs', () => {
  test('each request is one JSON line with method, route, status, ms and requestId', async () => {
    await s.get('/healthz', { headers: { 'x-request-id': 'log-line-check' } })
    await Bun.sleep(50) // pino writes asynchronously
    const lines = s.stdout.split('\n').filter((l) => l.includes('log-line-check'))
    expect(lines).toHaveLength(1)
    const entry = JSON.parse(lines[0]!)
    expect(entry).toMatchObject({ method: 'GET', route: '/healthz', status: 200, requestId: 'log-line-check', msg: 'request' })
    expect(typeof entry.ms).toBe('number')
  })

  test('passwords, bearer tokens, API keys, setup and query tokens never appear', async () => {
    const setupToken = s.setupToken()!
    const password = 'Sup3r-Secret-Passw0rd'
    const admin = (await s.post('/api/v1/setup', { token: setupToken, login: 'admin', password })).body.accessToken as string
    await s.post('/api/v1/auth/login', { login: 'admin', password: 'Wrong-' + password })
    await s.post('/api/v1/auth/login', { login: 'admin', password })
    const key = (await s.createKey(admin, 'secret-key')).key
    await s.get('/api/v1/whoami', { key })
    await s.get('/api/v1/whoami', { key: key.slice(0, -2) + 'zz' })
    await s.get(`/api/v1/auth/me?access_token=${admin}`, { token: admin })
    await s.req('POST', '/api/v1/operator/keys', { token: admin, raw: `{"name": "${password}", "oops"`, headers: { 'content-type': 'application/json' } })
    await s.post('/api/v1/auth/signup', { login: 'bad login!', password })
    await s.get('/metrics', { headers: { authorization: `Bearer ${admin}`, cookie: `session=${admin}` } })
    await Bun.sleep(100)
    const logs = s.stdout + s.stderr.replace(/setup\?token=[A-Za-z0-9]+/g, '')
    expect(logs.length).toBeGreaterThan(500)
    for (const secret of [password, admin, admin.split('.')[2]!, key, key.slice(8), setupToken]) expect(logs).not.toContain(secret)
  })
})

describe('logger redaction (defence in depth)', () => {
  test('redacts secret-looking fields if a caller ever logs them', async () => {
    let out = ''
    const sink = new Writable({ write(chunk, _enc, cb) { out += chunk.toString(); cb() } })
    const log = createLogger('info', sink as never)
    log.info({ password: 'p1', headers: { authorization: 'Bearer t1', 'x-api-key': 'k1', cookie: 'c1' }, body: { apiKey: 'k2', secret: 's1', token: 't2' }, user: 'visible' }, 'x')
    log.flush()
    await Bun.sleep(10)
    for (const v of ['p1', 'Bearer t1', 'k1', 'c1', 'k2', 's1', 't2']) expect(out).not.toContain(`"${v}"`)
    expect(out).toContain('[REDACTED]')
    expect(out).toContain('visible')
  })
})
