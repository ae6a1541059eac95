// Agents beyond the happy path: limits, archive, diagnostic test runs, the operator's task feed,
// and context uploads.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { importBytes } from 'ipfs-unixfs-importer'
import { expectProblem, startServer, type TestServer } from '../helpers/server'

let s: TestServer
let op: string

beforeAll(async () => {
  s = await startServer({
    TASKGATE_UPLOAD_BODY_LIMIT: String(256 * 1024),
    TASKGATE_EXPLORER_ATTESTATION_URL: 'https://base-sepolia.easscan.org/offchain/attestation/view/{uid}',
  })
  await s.setupAdmin()
  op = await s.signup('agent-owner')
})
afterAll(async () => { await s.cleanup() })

const register = (token: string, name: string, caps = ['general']) => s.post('/api/v1/agents/register', { displayName: name, capabilities: caps }, { token })

describe('limits and archive', () => {
  test('FREE allows 3 active agents; agent keys do not count against the key limit', async () => {
    const t = await s.signup('agent-limited')
    for (const n of ['a1', 'a2', 'a3']) expect((await register(t, n)).status).toBe(201)
    expectProblem(await register(t, 'a4'), 403, 'AGENT_LIMIT_REACHED')
    for (const n of ['k1', 'k2', 'k3']) await s.createKey(t, n)
    const keys = (await s.get('/api/v1/operator/keys', { token: t })).body
    expect(keys.filter((k: any) => k.agentId).length).toBe(3)
    expect(keys.filter((k: any) => !k.agentId).length).toBe(3)
  })

  test('DELETE archives the agent, revokes its key at once, and frees a slot', async () => {
    const t = await s.signup('archiver')
    const a = (await register(t, 'short-lived')).body
    expect((await s.get('/api/v1/whoami', { key: a.apiKey })).status).toBe(200)
    const d = await s.del(`/api/v1/agents/${a.agentId}`, { token: t })
    expect(d.status).toBe(204)
    expectProblem(await s.get('/api/v1/whoami', { key: a.apiKey }), 401, 'INVALID_API_KEY')
    const detail = (await s.get(`/api/v1/agents/${a.agentId}`, { token: t })).body
    expect(detail.status).toBe('ARCHIVED')
    expect(detail.policyStatus.keyActive).toBe(false)
    expectProblem(await s.patch(`/api/v1/agents/${a.agentId}`, { description: 'x' }, { token: t }), 403, 'AGENT_ARCHIVED')
    const other = await s.signup('not-the-archiver')
    expectProblem(await s.del(`/api/v1/agents/${a.agentId}`, { token: other }), 404, 'NOT_FOUND')
  })

  test('an agent key cannot submit for another agent of the same operator', async () => {
    const a = (await register(op, 'first')).body
    const b = (await register(op, 'second')).body
    expectProblem(await s.post('/api/v1/tasks/submit', { agentId: b.agentId, taskType: 'general', prompt: 'hi there' }, { key: a.apiKey }), 403, 'AGENT_KEY_MISMATCH')
    const opKey = await s.createKey(op, 'operator-key')
    expect((await s.post('/api/v1/tasks/submit', { agentId: b.agentId, taskType: 'general', prompt: 'Operator keys may submit for any agent. This is one.' }, { key: opKey.key })).status).toBe(200)
  })
})

test('a submit sees the agent as last edited: capabilities and archive take effect on the very next submit', async () => {
  const t = await s.signup('agent-editor')
  const a = (await register(t, 'editable', ['general'])).body
  const submit = (taskType: string) => s.post('/api/v1/tasks/submit', { agentId: a.agentId, taskType, prompt: 'The release was fast and the support team was wonderful.' }, { token: t })
  expect((await submit('general')).status).toBe(200) // the agent's identity is now cached
  const blocked = await submit('sentiment_analysis')
  expectProblem(blocked, 403, 'GUARDRAIL_BLOCKED')
  expect((await s.patch(`/api/v1/agents/${a.agentId}`, { capabilities: ['general', 'sentiment_analysis'] }, { token: t })).status).toBe(200)
  const ok = await submit('sentiment_analysis')
  expect(ok.status).toBe(200)
  expect(ok.body.status).toBe('COMPLETED')
  expect((await s.del(`/api/v1/agents/${a.agentId}`, { token: t })).status).toBe(204)
  const archived = await submit('general')
  expectProblem(archived, 403, 'GUARDRAIL_BLOCKED')
  expect(archived.body.detail).toContain('archived')
  expectProblem(await s.post('/api/v1/tasks/submit', { agentId: a.agentId, taskType: 'general', prompt: 'another operator' }, { token: op }), 404, 'NOT_FOUND')
})

describe('diagnostic test runs', () => {
  test('use a system test key with 5 free uses, listed with the keys and not counted in the limit', async () => {
    const t = await s.signup('tester')
    const a = (await register(t, 'diag', ['sentiment_analysis'])).body
    for (const n of ['k1', 'k2', 'k3']) await s.createKey(t, n) // the FREE key limit is now full
    for (let i = 0; i < 5; i++) {
      const r = await s.post(`/api/v1/agents/${a.agentId}/test-run`, undefined, { token: t })
      expect(r.status).toBe(200)
      expect(r.body).toMatchObject({ status: 'COMPLETED', taskType: 'sentiment_analysis', creditsCharged: 0 })
    }
    const keys = (await s.get('/api/v1/operator/keys', { token: t })).body
    const testKey = keys.find((k: any) => k.isTestKey)
    expect(testKey).toMatchObject({ isTestKey: true, testUsesRemaining: 0 })
    expect(keys.filter((k: any) => k.isTestKey).length).toBe(1)
    expectProblem(await s.post(`/api/v1/agents/${a.agentId}/test-run`, {}, { token: t }), 403, 'TEST_KEY_EXHAUSTED')
    expect((await s.get('/api/v1/auth/me', { token: t })).body.pioneerPoints).toBe(0) // diagnostic runs earn nothing
    const prod = keys.find((k: any) => !k.isTestKey && !k.agentId)
    expect(prod.testUsesRemaining).toBeNull()
  })
})

describe('operator task feed', () => {
  test('GET /operator/tasks lists only the caller\'s tasks', async () => {
    const t = await s.signup('feeder')
    const a = (await register(t, 'feeder-bot')).body
    const task = (await s.post('/api/v1/tasks/submit', { agentId: a.agentId, taskType: 'general', prompt: 'Feed me. Two sentences.' }, { key: a.apiKey })).body
    expect(task.attestationExplorerUrl).toBe(`https://base-sepolia.easscan.org/offchain/attestation/view/${task.attestationUid}`)
    expect(task.verificationExplorerUrl).toBe(`${s.url}/explorer/verification/${task.verificationProof}`) // default template
    const mine = (await s.get('/api/v1/operator/tasks', { token: t })).body
    expect(mine.data.map((x: any) => x.id)).toEqual([task.id])
    expect(mine.total).toBe(1)
    expect((await s.get('/api/v1/auth/me', { token: t })).body.pioneerPoints).toBe(25) // leaderboard.pioneer.taskPoints
    expectProblem(await s.get('/api/v1/operator/tasks', { key: a.apiKey }), 401, 'CREDENTIAL_NOT_ACCEPTED')
  })
})

describe('POST /v1/prior/claim', () => {
  test('stores a multipart file or a JSON body and returns its CIDv1', async () => {
    const bytes = new TextEncoder().encode('context for the agent\n'.repeat(100))
    const form = new FormData()
    form.append('file', new Blob([bytes]), 'context.txt')
    const res = await fetch(`${s.url}/v1/prior/claim`, { method: 'POST', body: form, headers: { authorization: `Bearer ${op}` } })
    expect(res.status).toBe(201)
    const body = (await res.json()) as any
    expect(body).toMatchObject({ size: bytes.byteLength, name: 'context.txt' })
    const store = { put: async () => {}, get: async () => { throw new Error('unused') }, has: async () => false }
    expect(body.cid).toBe((await importBytes(bytes, store as never, { cidVersion: 1, rawLeaves: true })).cid.toString())
    expect(new Uint8Array(await (await fetch(`${s.url}/ipfs/${body.cid}`)).arrayBuffer())).toEqual(bytes)

    const key = await s.createKey(op, 'claimer')
    const j = await s.post('/v1/prior/claim', { hello: 'world' }, { key: key.key })
    expect(j.status).toBe(201)
    expect((await s.get(`/ipfs/${j.body.cid}`)).body).toEqual({ hello: 'world' })
  })

  test('needs a credential, a file field, and respects the upload size limit', async () => {
    expectProblem(await s.post('/v1/prior/claim', { a: 1 }), 401)
    const noFile = new FormData()
    noFile.append('other', 'x')
    const r1 = await fetch(`${s.url}/v1/prior/claim`, { method: 'POST', body: noFile, headers: { authorization: `Bearer ${op}` } })
    expect(r1.status).toBe(400)
    const big = new FormData()
    big.append('file', new Blob([new Uint8Array(300 * 1024)]), 'big.bin')
    const r2 = await fetch(`${s.url}/v1/prior/claim`, { method: 'POST', body: big, headers: { authorization: `Bearer ${op}` } })
    expect(r2.status).toBe(413)
    expect(((await r2.json()) as any).code).toBe('BODY_TOO_LARGE')
  })

  test('/ipfs answers 400 for a bad CID and 404 for content it does not hold', async () => {
    expectProblem(await s.get('/ipfs/not-a-cid'), 400, 'INVALID_CID')
    expectProblem(await s.get('/ipfs/bafkreibm6jg3ux5qumhcn2b3flc3tyu6dmlb4xa7u5bf44yegnrjhc4yeq'), 404, 'NOT_FOUND')
  })
})
