// Malformed input to every route that exists: never a 500, always problem+json.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { expectProblem, startServer, type Res, type TestServer } from '../helpers/server'
import { isOpenAiPath } from '../helpers/operations'

let s: TestServer
let doc: any

beforeAll(async () => {
  s = await startServer({ TASKGATE_TEST_CLOCK: '1', TASKGATE_BEARER_RPM: '2000' }) // one token walks every route several times
  await s.setupAdmin('admin', 'admin-password')
  doc = (await s.get('/openapi.json')).body
})
afterAll(async () => { await s.cleanup() })

const login = async () => (await s.post('/api/v1/auth/login', { login: 'admin', password: 'admin-password' })).body.accessToken as string

function assertSane(r: Res, what: string) {
  if (r.status >= 500) throw new Error(`${what} → ${r.status}: ${r.text}`)
  if (r.status >= 400) {
    const path = what.split(' ')[1] ?? ''
    if (isOpenAiPath(path)) { // OpenAI's error shape (docs/doors.md)
      expect(r.headers.get('content-type') ?? '').toStartWith('application/json')
      expect(typeof r.body.error.code).toBe('string')
      return
    }
    if (path === '/mcp' && r.body?.jsonrpc === '2.0') { // the MCP SDK's own refusal of a message: a JSON-RPC error
      expect(typeof r.body.error.code).toBe('number')
      return
    }
    expect(r.headers.get('content-type') ?? '').toStartWith('application/problem+json')
    expect(typeof r.body.code).toBe('string')
  }
}

const WRONG: unknown[] = [null, 0, -1, 1e308, '', 'x'.repeat(5000), true, [], {}, [1, 2], { $ne: null }, '\u0000\ud800']

describe('every documented route', () => {
  test('survives garbage bodies, params and queries', async () => {
    const ops = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) => Object.entries(methods).map(([m, op]) => ({ path, method: m.toUpperCase(), op })))
    expect(ops.length).toBeGreaterThan(10)
    let checked = 0
    for (const { path, method, op } of ops) {
      if (path === '/api/v1/auth/logout') continue // covered in auth.test.ts; would end the session used here
      const token = await login()
      const concrete = path.replace(/\{[^}]+\}/g, 'x')
      const weird = path.replace(/\{[^}]+\}/g, encodeURIComponent('../..%00\u00e9' + 'z'.repeat(300)))
      const send = async (p: string, o: Parameters<TestServer['req']>[2]) => { const r = await s.req(method, p, o); assertSane(r, `${method} ${p}`); checked++; return r }
      await send(concrete, { token })
      await send(weird, { token })
      await send(`${concrete}?page=-1&limit=abc&shape=%3Cscript%3E&ui=${'9'.repeat(40)}&code=&state=${'a'.repeat(3000)}`, { token })
      if (op.security?.length) {
        const r = await send(concrete, {})
        if (!op.security.some((x: any) => Object.keys(x).length === 0)) expect(r.status).toBe(401)
      }
      if (op.requestBody) {
        const bad = await send(concrete, { token, raw: '{"a":', headers: { 'content-type': 'application/json' } })
        expect(bad.status).toBe(400)
        await send(concrete, { token, raw: 'not json at all', headers: { 'content-type': 'text/plain' } })
        await send(concrete, { token, raw: '', headers: { 'content-type': 'application/json' } })
        await send(concrete, { token, raw: '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\nb\r\n--x--\r\n', headers: { 'content-type': 'multipart/form-data; boundary=x' } })
        const big = await send(concrete, { token, raw: JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }), headers: { 'content-type': 'application/json' } })
        if ((op.requestBody['x-body-limit'] ?? 1024 * 1024) < 2 * 1024 * 1024) expect(big.status).toBe(413) // upload routes take more
        const props = Object.keys(op.requestBody.content['application/json'].schema.properties ?? {})
        for (const v of WRONG) {
          await send(concrete, { token, body: v })
          if (props.length) await send(concrete, { token, body: Object.fromEntries(props.map((p) => [p, v])) })
        }
      }
    }
    expect(checked).toBeGreaterThan(200)
  }, 120_000)

  test('wrong methods are 405 with Allow; unknown routes 404', async () => {
    const r = await s.req('PUT', '/api/v1/operator/keys')
    expectProblem(r, 405, 'METHOD_NOT_ALLOWED')
    expect(r.headers.get('allow')).toContain('GET')
    expect(r.headers.get('allow')).toContain('POST')
    expectProblem(await s.req('DELETE', '/healthz'), 405, 'METHOD_NOT_ALLOWED')
    expectProblem(await s.get('/api/v1/definitely/not/here'), 404, 'ROUTE_NOT_FOUND')
    expectProblem(await s.get('/ui-file-that-does-not-exist.js'), 404)
  })

  test('bodies over the limit are 413 even when chunked (no content-length)', async () => {
    const token = await login()
    const chunk = new TextEncoder().encode('x'.repeat(64 * 1024))
    let sent = 0
    const stream = new ReadableStream({ pull(c) { if (sent++ < 40) c.enqueue(chunk); else c.close() } })
    const res = await fetch(`${s.url}/api/v1/operator/keys`, { method: 'POST', body: stream, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, duplex: 'half' } as RequestInit)
    expect(res.status).toBe(413)
    expect(res.headers.get('content-type')).toStartWith('application/problem+json')
    expect((await res.json()).code).toBe('BODY_TOO_LARGE')
  })

  test('a JSON body sent with curl -d (form content-type) still works', async () => {
    const token = await login()
    const r = await s.req('POST', '/api/v1/operator/keys', { token, raw: '{"name":"from-curl"}', headers: { 'content-type': 'application/x-www-form-urlencoded' } })
    expect(r.status).toBe(200)
    expect(r.body.label).toBe('from-curl')
  })

  test('validation errors list the failing fields without echoing input', async () => {
    const token = await login()
    const r = await s.post('/api/v1/operator/keys', { name: 12345678, rateLimitRpm: 'lots' }, { token })
    expectProblem(r, 400, 'VALIDATION_FAILED')
    expect(r.body.errors.length).toBeGreaterThan(0)
    for (const e of r.body.errors) { expect(e.path).toStartWith('/body/'); expect(typeof e.message).toBe('string') }
    expect(r.text).not.toContain('12345678')
    expect(r.text).not.toContain('lots')
  })
})
