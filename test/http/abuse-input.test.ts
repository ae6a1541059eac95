// Attacks through input, performed over HTTP (issue 8; docs/security.md, "Limits"): pathological
// prompts against the event loop, bodies over the limits, multipart everywhere, non-object JSON
// bodies, upload floods, public outputs, forged proofs, bogus filters, and an agent whose failures
// never counted. Plus the response headers every page must carry.
import { TEST_POSTGRES } from '../helpers/postgres'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { cli, expectProblem, startServer, tempDir, type TestServer } from '../helpers/server'

let s: TestServer
let admin: string
let op: string
let agent: { agentId: string; apiKey: string }

beforeAll(async () => {
  s = await startServer({
    TASKGATE_TEST_CLOCK: '1', TASKGATE_METRICS_TOKEN: 'metrics-secret-token',
    TASKGATE_UPLOADS_PER_DAY: '4', TASKGATE_UPLOAD_BYTES_PER_DAY: String(3 * 1024 * 1024),
    TASKGATE_TIERS_FREE_MONTHLY_CREDITS: '1000',
  })
  admin = await s.setupAdmin()
  op = await s.signup('input-op')
  agent = (await s.post('/api/v1/agents/register', { displayName: 'Input Bot', capabilities: ['sentiment_analysis', 'trade_signal', 'general'] }, { token: op })).body
}, 30_000)
afterAll(async () => { await s?.cleanup() })

const MAX_PROMPT = 100_000

describe('pathological prompts stay linear', () => {
  // Each shape at the largest allowed prompt; the builtin model echoes or summarises it, so the
  // verification stage sees it too. A quadratic scan of 100,000 `{` blocked the event loop ~6 s.
  const shapes: Record<string, string> = {
    braces: '{'.repeat(MAX_PROMPT),
    'open-close': '{}'.repeat(MAX_PROMPT / 2),
    'json-prefixes': '{"a":'.repeat(MAX_PROMPT / 5),
    brackets: '['.repeat(MAX_PROMPT),
    quotes: '"'.repeat(MAX_PROMPT),
    whitespace: ' \n\t'.repeat(MAX_PROMPT / 3),
    'sentence-breaks': 'A. '.repeat(MAX_PROMPT / 3),
    'word-soup': 'BUY positive '.repeat(MAX_PROMPT / 13),
    unicode: 'é'.repeat(MAX_PROMPT),
  }
  for (const taskType of ['sentiment_analysis', 'trade_signal', 'general']) {
    test(`${taskType}: every shape completes while /healthz keeps answering`, async () => {
      let worst = 0
      let probing = true
      const probe = (async () => {
        while (probing) {
          const t0 = performance.now()
          expect((await fetch(`${s.url}/healthz`)).status).toBe(200)
          worst = Math.max(worst, performance.now() - t0)
        }
      })()
      const results = await Promise.all(Object.values(shapes).map((prompt) =>
        s.post('/api/v1/tasks/submit', { agentId: agent.agentId, taskType, prompt }, { key: agent.apiKey })))
      probing = false
      await probe
      for (const r of results) {
        expect(r.status).toBe(200)
        expect(r.body.status).toBe('COMPLETED')
        expect(['VERIFIED', 'FAILED']).toContain(r.body.verificationStatus)
      }
      // Generous: the point is that nothing blocks for seconds (the quadratic scan took ~6 s per task).
      expect(worst).toBeLessThan(1500)
    }, 60_000)
  }
})

describe('body limits and content types', () => {
  test('a multipart body is refused on a non-upload route before it is read (413 over the JSON limit)', async () => {
    const big = await s.req('POST', '/api/v1/auth/login', { raw: 'x'.repeat(2 * 1024 * 1024), headers: { 'content-type': 'multipart/form-data; boundary=zz' } })
    expectProblem(big, 413, 'BODY_TOO_LARGE')
    const small = await s.req('POST', '/api/v1/auth/login', { raw: '--zz--', headers: { 'content-type': 'multipart/form-data; boundary=zz' } })
    expectProblem(small, 415, 'UNSUPPORTED_MEDIA_TYPE')
  })

  test('an upload over the upload limit gets a problem+json 413, declared or chunked', async () => {
    const declared = await s.req('POST', '/v1/prior/claim', { token: op, raw: new Uint8Array(30 * 1024 * 1024), headers: { 'content-type': 'multipart/form-data; boundary=zz' } })
    expectProblem(declared, 413, 'BODY_TOO_LARGE')
    let sent = 0
    const chunked = new ReadableStream<Uint8Array>({ pull(c) { if (sent >= 12 * 1024 * 1024) return c.close(); sent += 1024 * 1024; c.enqueue(new Uint8Array(1024 * 1024)) } })
    const res = await fetch(`${s.url}/v1/prior/claim`, { method: 'POST', body: chunked, duplex: 'half', headers: { authorization: `Bearer ${op}`, 'content-type': 'multipart/form-data; boundary=zz' } } as RequestInit)
    expect(res.status).toBe(413)
    expect(res.headers.get('content-type')).toStartWith('application/problem+json')
    expect((await res.json()).code).toBe('BODY_TOO_LARGE')
  })

  test('JSON bodies that are not objects are refused where the route takes an object, and nothing is spent', async () => {
    const keys = async () => (await s.get('/api/v1/operator/keys', { token: op })).body as any[]
    for (const raw of ['false', '"abc"', '[1,2]', '42', 'true']) {
      expectProblem(await s.req('POST', `/api/v1/agents/${agent.agentId}/test-run`, { token: op, raw, headers: { 'content-type': 'application/json' } }), 400, 'VALIDATION_FAILED')
      expectProblem(await s.req('POST', '/api/v1/faucet/usdc', { raw, headers: { 'content-type': 'application/json' } }), 400, 'VALIDATION_FAILED')
      expectProblem(await s.req('POST', '/api/v1/tasks/submit', { key: agent.apiKey, raw, headers: { 'content-type': 'application/json' } }), 400, 'VALIDATION_FAILED')
    }
    expect((await keys()).some((k) => k.isTestKey)).toBe(false) // no test run happened
    const faucet = await s.post('/api/v1/faucet/usdc', {}) // the developer wallet's cooldown never started
    expect(faucet.status).toBe(200)
  })
})

describe('upload quota', () => {
  test('per operator: uploads and bytes per rolling 24 h, parallel requests included', async () => {
    const other = await s.signup('uploader-2')
    const up = (token: string, body: unknown) => s.post('/v1/prior/claim', body, { token })
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => up(other, { n: i })))
    expect(results.filter((r) => r.status === 201)).toHaveLength(4)
    for (const r of results.filter((x) => x.status !== 201)) {
      expectProblem(r, 429, 'UPLOAD_QUOTA_EXCEEDED')
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0)
    }
    // bytes: 3 MiB a day; a 2 MiB file then another 2 MiB file
    const third = await s.signup('uploader-3')
    const file = (n: number) => { const f = new FormData(); f.append('file', new Blob([new Uint8Array(n)]), 'blob.bin'); return f }
    expect((await s.req('POST', '/v1/prior/claim', { token: third, raw: file(2 * 1024 * 1024) })).status).toBe(201)
    expectProblem(await s.req('POST', '/v1/prior/claim', { token: third, raw: file(2 * 1024 * 1024) }), 429, 'UPLOAD_QUOTA_EXCEEDED')
    expect((await s.post('/api/v1/admin/clock/advance', { ms: 24 * 3_600_000 + 1000 }, { token: admin })).status).toBe(200)
    const again = await s.post('/api/v1/auth/login', { login: 'uploader-3', password: 'operator-password' })
    expect((await s.req('POST', '/v1/prior/claim', { token: again.body.accessToken, raw: file(2 * 1024 * 1024) })).status).toBe(201)
    admin = (await s.post('/api/v1/auth/login', { login: 'admin', password: 'admin-password' })).body.accessToken
    op = (await s.post('/api/v1/auth/login', { login: 'input-op', password: 'operator-password' })).body.accessToken
  }, 30_000)
})

describe('outputs and proofs', () => {
  let task: any
  beforeAll(async () => {
    task = (await s.post('/api/v1/tasks/submit', { agentId: agent.agentId, taskType: 'general', prompt: 'A private memo. The launch date is secret-falcon-42. Do not share it.' }, { key: agent.apiKey })).body
    expect(task.status).toBe('COMPLETED')
    expect(task.output).toContain('secret-falcon-42')
  })

  test('the public task document, proof, list and detail carry the output hash, never the output', async () => {
    const doc = await (await fetch(`${s.url}/ipfs/${task.ipfsCid}`)).text()
    expect(doc).not.toContain('secret-falcon-42')
    expect(JSON.parse(doc).outputHash).toMatch(/^0x[0-9a-f]{64}$/)
    for (const path of [`/api/v1/public/proof/${task.ipfsCid}`, `/api/v1/public/proof/${task.receiptCid}`, '/api/v1/tasks?limit=100', `/api/v1/tasks/${task.id}`, `/explorer/verification/${task.verificationProof}`]) {
      const r = await s.get(path)
      expect(r.status).toBe(200)
      expect(r.text).not.toContain('secret-falcon-42')
      expect(r.text).not.toContain('A private memo')
    }
  })

  test('an operator who turns publishOutputs on publishes the output in its task documents', async () => {
    const pub = await s.signup('publisher')
    const a = (await s.post('/api/v1/agents/register', { displayName: 'Open Bot', capabilities: ['general'] }, { token: pub })).body
    expect((await s.patch('/api/v1/operator/guardrails', { publishOutputs: true }, { token: pub })).status).toBe(200)
    expect((await s.post('/api/v1/admin/clock/advance', { ms: 31_000 }, { token: admin })).status).toBe(200)
    const t = (await s.post('/api/v1/tasks/submit', { agentId: a.agentId, taskType: 'general', prompt: 'A public note. The answer is open-heron-7.' }, { key: a.apiKey })).body
    const doc = JSON.parse(await (await fetch(`${s.url}/ipfs/${t.ipfsCid}`)).text())
    expect(doc.output).toBe(t.output)
    expect(doc.output).toContain('open-heron-7')
    // the private operator's document is unchanged by another operator's setting
    expect(await (await fetch(`${s.url}/ipfs/${task.ipfsCid}`)).text()).not.toContain('secret-falcon-42')
  })

  test('an uploaded look-alike task document is not a proof', async () => {
    const forged = await s.post('/v1/prior/claim', { type: 'taskgate.task/v1', taskId: task.id, output: 'forged', verification: { status: 'VERIFIED' } }, { token: op })
    expect(forged.status).toBe(201)
    expectProblem(await s.get(`/api/v1/public/proof/${forged.body.cid}`), 404, 'NOT_FOUND')
    expect((await s.get(`/api/v1/public/proof/${task.ipfsCid}`)).body.kind).toBe('task')
    // a receipt naming the task in its message, and other content: not proofs either
    const receipt = (await s.get(`/api/v1/public/proof/${task.receiptCid}`)).body.receipt
    const lookalike = await s.post('/v1/prior/claim', { ...receipt, type: 'taskgate.receipt/v1', signature: `0x${'1'.repeat(130)}` }, { token: op })
    expect(lookalike.status).toBe(201)
    expect(lookalike.body.cid).not.toBe(task.receiptCid)
    expectProblem(await s.get(`/api/v1/public/proof/${lookalike.body.cid}`), 404, 'NOT_FOUND')
    const other = await s.post('/v1/prior/claim', { note: 'not a document of the pipeline', taskId: task.id }, { token: op })
    expectProblem(await s.get(`/api/v1/public/proof/${other.body.cid}`), 404, 'NOT_FOUND')
    expectProblem(await s.get('/api/v1/public/proof/bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy'), 404, 'NOT_FOUND') // stored nowhere here
    expect((await s.get(`/api/v1/public/proof/${task.receiptCid}`)).body).toMatchObject({ kind: 'receipt', verification: { signatureValid: true, cidMatches: true }, task: { id: task.id } })
  })
})

describe('task list filters', () => {
  test('unknown status or taskType values are 400 on the public and the operator list', async () => {
    for (const path of ['/api/v1/tasks', '/api/v1/operator/tasks']) {
      expectProblem(await s.get(`${path}?taskType=not_a_type`, { token: op }), 400, 'VALIDATION_FAILED')
      expectProblem(await s.get(`${path}?status=BOGUS`, { token: op }), 400, 'VALIDATION_FAILED')
      expect((await s.get(`${path}?taskType=general&status=COMPLETED`, { token: op })).status).toBe(200)
    }
  })
})

describe('agent failures reach the passport', () => {
  test('an agent whose tasks keep failing falls to QUARANTINE', async () => {
    const a = (await s.post('/api/v1/agents/register', { displayName: 'Flaky Bot', capabilities: ['general'] }, { token: op })).body
    for (let i = 0; i < 5; i++) expect((await s.post('/api/v1/tasks/submit', { agentId: a.agentId, taskType: 'general', prompt: `ok ${i}` }, { key: a.apiKey })).body.status).toBe('COMPLETED')
    const before = (await s.get(`/api/v1/public/agent/${a.agentId}/passport`)).body
    for (let i = 0; i < 10; i++) expectProblem(await s.post('/api/v1/tasks/submit', { agentId: a.agentId, taskType: 'code', prompt: 'not allowed' }, { key: a.apiKey }), 403, 'GUARDRAIL_BLOCKED')
    const after = (await s.get(`/api/v1/public/agent/${a.agentId}/passport`)).body
    expect(after.ari).toBeLessThan(before.ari)
    expect(after.ari).toBeLessThan(0.5)
    expect(after.trustLevel).toBe('QUARANTINE')
  })
})

describe('headers and operations', () => {
  test('nosniff on every response; UI pages with a strict CSP, no framing and no referrer', async () => {
    for (const path of ['/healthz', '/api/v1/tasks', '/nope', '/openapi.json', '/', '/app.js', '/docs']) {
      expect((await fetch(`${s.url}${path}`)).headers.get('x-content-type-options')).toBe('nosniff')
    }
    for (const path of ['/', '/docs']) {
      const r = await fetch(`${s.url}${path}`)
      const csp = r.headers.get('content-security-policy') ?? ''
      expect(csp).toContain("default-src 'self'")
      expect(csp).toContain("frame-ancestors 'none'")
      // /docs: Scalar injects its styles at run time, so only its script-src stays free of 'unsafe-inline' (docs/api.md)
      const strict = path === '/docs' ? csp.split(';').find((d) => d.trim().startsWith('script-src'))! : csp
      expect(strict).toContain("'self'")
      expect(strict).not.toContain('unsafe-inline')
      expect(r.headers.get('referrer-policy')).toBe('no-referrer')
      expect(await r.text()).not.toMatch(/<script>|<style>/) // nothing inline for the CSP to block
    }
  })

  test('/metrics needs the exact token', async () => {
    expect((await fetch(`${s.url}/metrics`)).status).toBe(401)
    expect((await fetch(`${s.url}/metrics`, { headers: { authorization: 'Bearer metrics-secret-toke' } })).status).toBe(401)
    expect((await fetch(`${s.url}/metrics`, { headers: { authorization: 'Bearer metrics-secret-token' } })).status).toBe(200)
  })

  // SQLite's own backup (PostgreSQL mode: pg_dump's job, test/http/cli.test.ts)
  test.skipIf(TEST_POSTGRES !== null)('taskgate backup writes files only the owner can read', async () => {
    const out = join(tempDir('taskgate-backup-'), 'snap.db')
    const r = await cli(['backup', out, '--data-dir', s.dataDir])
    expect(r.code).toBe(0)
    expect(statSync(out).mode & 0o777).toBe(0o600)
    expect(statSync(`${out}.ipfs`).mode & 0o777).toBe(0o600)
  })
})
