// An API key sent as `Authorization: Bearer tg_…`, as OpenAI, MCP and A2A clients send it
// (docs/api.md, "Credentials: when both are sent"): on operations that take an API key it
// acts exactly as in x-api-key (lookup, rate limit, agent scoping, revocation); on bearer-only
// operations it is no token (401 INVALID_TOKEN, as a bad token); sent with x-api-key, both must be
// the same key.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { expectProblem, startServer, type TestServer } from '../helpers/server'

let s: TestServer
let admin: string
let op: string
let opKey: { key: string; id: string }
let X: { agentId: string; apiKey: string }
let Y: { agentId: string; apiKey: string }

const bearer = (key: string, extra: Record<string, string> = {}) => ({ headers: { authorization: `Bearer ${key}`, ...extra } })

beforeAll(async () => {
  s = await startServer()
  admin = await s.setupAdmin()
  op = await s.signup('bearer-key-op')
  opKey = await s.createKey(op, 'operator key', { rateLimitRpm: 37 })
  const reg = (name: string) => s.post('/api/v1/agents/register', { displayName: name, capabilities: ['general'] }, { token: op })
  X = (await reg('Agent X')).body
  Y = (await reg('Agent Y')).body
  expect(X.apiKey).toStartWith('tg_')
  expect(Y.apiKey).toStartWith('tg_')
}, 30_000)
afterAll(async () => { await s?.cleanup() })

describe('an API key as Authorization: Bearer', () => {
  test('acts as the key on a route that takes one: same principal, the key\'s own rate limit', async () => {
    const viaHeader = await s.get('/api/v1/whoami', { key: opKey.key })
    const viaBearer = await s.get('/api/v1/whoami', bearer(opKey.key))
    expect(viaBearer.status).toBe(200)
    expect(viaBearer.body).toEqual(viaHeader.body)
    expect(viaBearer.body.via).toBe('apiKey')
    expect(viaBearer.body.keyId).toBe(opKey.id)
    expect(viaBearer.headers.get('ratelimit-limit')).toBe('37')
    // the lowercase scheme name too, as with tokens
    expect((await s.get('/api/v1/whoami', { headers: { authorization: `bearer ${opKey.key}` } })).body.keyId).toBe(opKey.id)
  })

  test('submits a task like x-api-key does', async () => {
    const r = await s.post('/api/v1/tasks/submit?wait=0', { agentId: X.agentId, taskType: 'general', prompt: 'hello through a bearer key' }, bearer(opKey.key))
    expect([200, 202]).toContain(r.status)
    expect(r.body.agentId).toBe(X.agentId)
    expect(r.body.prompt).toBe('hello through a bearer key')
  })

  test('is refused on a bearer-only route with the problem of a bad token', async () => {
    const bad = await s.get('/api/v1/auth/me', bearer('not-a-token'))
    expectProblem(bad, 401, 'INVALID_TOKEN')
    const key = await s.get('/api/v1/auth/me', bearer(opKey.key))
    expectProblem(key, 401, 'INVALID_TOKEN')
    expect(key.body.detail).toBe(bad.body.detail)
    expectProblem(await s.post('/api/v1/operator/keys', { name: 'minted by a key' }, bearer(opKey.key)), 401, 'INVALID_TOKEN')
    // an admin's key is no admin token either
    const adminKey = await s.createKey(admin, 'admin key')
    expectProblem(await s.get('/api/v1/admin/operators', bearer(adminKey.key)), 401, 'INVALID_TOKEN')
  })

  test('a revoked key sent as bearer → 401 INVALID_API_KEY', async () => {
    const k = await s.createKey(op, 'short-lived')
    expect((await s.get('/api/v1/whoami', bearer(k.key))).status).toBe(200)
    expect((await s.del(`/api/v1/operator/keys/${k.id}`, { token: op })).status).toBe(200)
    expectProblem(await s.get('/api/v1/whoami', bearer(k.key)), 401, 'INVALID_API_KEY')
    expectProblem(await s.post('/api/v1/tasks/submit?wait=0', { agentId: X.agentId, taskType: 'general', prompt: 'revoked' }, bearer(k.key)), 401, 'INVALID_API_KEY')
  })

  test('an agent-bound key sent as bearer keeps its agent scoping', async () => {
    const who = await s.get('/api/v1/whoami', bearer(X.apiKey))
    expect(who.status).toBe(200)
    expect(who.body.agentId).toBe(X.agentId)
    // acts only for its own agent
    expectProblem(await s.post('/api/v1/tasks/submit?wait=0', { agentId: Y.agentId, taskType: 'general', prompt: 'for Y' }, bearer(X.apiKey)), 403, 'AGENT_KEY_MISMATCH')
    // reads only its own agent's tasks
    const ys = await s.post('/api/v1/tasks/submit?wait=0', { agentId: Y.agentId, taskType: 'general', prompt: 'Y\'s private prompt' }, bearer(Y.apiKey))
    expect([200, 202]).toContain(ys.status)
    expectProblem(await s.get(`/api/v1/tasks/${ys.body.id}`, bearer(X.apiKey)), 404, 'NOT_FOUND')
    const own = await s.get(`/api/v1/tasks/${ys.body.id}`, bearer(Y.apiKey))
    expect(own.status).toBe(200)
    expect(own.body.prompt).toBe('Y\'s private prompt')
  })

  test('with x-api-key as well: the same key is one credential, two different keys are refused', async () => {
    const same = await s.get('/api/v1/whoami', bearer(opKey.key, { 'x-api-key': opKey.key }))
    expect(same.status).toBe(200)
    expect(same.body.keyId).toBe(opKey.id)
    expectProblem(await s.get('/api/v1/whoami', bearer(opKey.key, { 'x-api-key': X.apiKey })), 401, 'CREDENTIAL_CONFLICT')
    const other = await s.createKey(await s.signup('bearer-key-other'), 'other operator')
    expectProblem(await s.get('/api/v1/whoami', bearer(opKey.key, { 'x-api-key': other.key })), 401, 'CREDENTIAL_CONFLICT')
    expectProblem(await s.get('/api/v1/whoami', bearer(opKey.key, { 'x-api-key': 'tg_test_not_a_real_key_at_all' })), 401, 'INVALID_API_KEY')
    expectProblem(await s.get('/api/v1/whoami', bearer('tg_test_not_a_real_key_at_all', { 'x-api-key': opKey.key })), 401, 'INVALID_API_KEY')
  })
})
