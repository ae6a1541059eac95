// API keys over real HTTP: create once, list (both shapes), limits, rate limiting, revocation.
import { withTestDb } from '../helpers/data'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { cli, expectProblem, startServer, type TestServer } from '../helpers/server'

let s: TestServer
let admin: string
let op: string

beforeAll(async () => {
  s = await startServer()
  admin = await s.setupAdmin()
  op = await s.signup('keyholder')
  const me = (await s.get('/api/v1/auth/me', { token: op })).body
  await s.patch(`/api/v1/admin/operators/${me.id}`, { tierOverride: 'PRO' }, { token: admin }) // room for many keys
})
afterAll(async () => { await s.cleanup() })

describe('create and list', () => {
  test('the full key is returned once, in the pinned format, and only first 4 + last 4 are stored', async () => {
    const r = await s.post('/api/v1/operator/keys', { name: 'ci' }, { token: op })
    expect(r.status).toBe(200)
    expect(r.body.key).toMatch(/^tg_test_[1-9A-HJ-NP-Za-km-z]{30,}$/)
    expect(r.body.keyPrefix).toBe(`${r.body.key.slice(0, 4)}...${r.body.key.slice(-4)}`)
    expect(Object.keys(r.body)).toEqual(expect.arrayContaining(['key', 'id', 'createdAt']))
    expect(new Date(r.body.createdAt).toISOString()).toBe(r.body.createdAt)

    const list = await s.get('/api/v1/operator/keys', { token: op })
    const rec = list.body.find((k: any) => k.id === r.body.id)
    expect(rec).toEqual({
      id: r.body.id, label: 'ci', keyPrefix: r.body.keyPrefix, rateLimitRpm: 600, lastUsedAt: null,
      createdAt: r.body.createdAt, isTestKey: false, testUsesRemaining: null, agentId: null,
    })
    expect(list.text).not.toContain(r.body.key)

    const preview = await s.get('/api/v1/operator/keys?shape=preview', { token: op })
    expect(preview.body.find((k: any) => k.id === r.body.id)).toEqual({ id: r.body.id, name: 'ci', preview: r.body.keyPrefix, createdAt: r.body.createdAt, lastUsedAt: null })
    expectProblem(await s.get('/api/v1/operator/keys?shape=weird', { token: op }), 400, 'VALIDATION_FAILED')

    // Read the database file itself: the key must not be anywhere in it, only its SHA-256.
    const row = await withTestDb(s.dataDir, (db) => db.query('SELECT * FROM api_keys WHERE id = ?').get(r.body.id) as Record<string, unknown>, { readonly: true })
    expect(JSON.stringify(row)).not.toContain(r.body.key)
    expect(row.key_hash).toBe(new Bun.CryptoHasher('sha256').update(r.body.key).digest('hex'))
    const files = ['taskgate.db', 'taskgate.db-wal'].map((f) => Bun.file(join(s.dataDir, f)))
    for (const f of files) if (await f.exists()) expect(Buffer.from(await f.arrayBuffer()).includes(r.body.key)).toBe(false)
  })

  test('keys are private to their operator', async () => {
    const other = await s.signup('other-op')
    const mine = await s.createKey(op, 'mine')
    expect((await s.get('/api/v1/operator/keys', { token: other })).body).toEqual([])
    expectProblem(await s.del(`/api/v1/operator/keys/${mine.id}`, { token: other }), 404, 'NOT_FOUND')
    expect((await s.get('/api/v1/whoami', { key: mine.key })).status).toBe(200)
  })

  test('FREE allows 3 active keys; revoking one frees a slot', async () => {
    const t = await s.signup('limited')
    const ks = [await s.createKey(t, 'a'), await s.createKey(t, 'b'), await s.createKey(t, 'c')]
    const r = await s.post('/api/v1/operator/keys', { name: 'd' }, { token: t })
    expectProblem(r, 403, 'KEY_LIMIT_REACHED')
    expect((await s.del(`/api/v1/operator/keys/${ks[0]!.id}`, { token: t })).body).toEqual({ success: true })
    expect((await s.post('/api/v1/operator/keys', { name: 'd' }, { token: t })).status).toBe(200)
  })

  test('rateLimitRpm above the tier cap is 400; PRO may go higher', async () => {
    const t = await s.signup('fast')
    const r = await s.post('/api/v1/operator/keys', { name: 'x', rateLimitRpm: 61 }, { token: t })
    expectProblem(r, 400, 'RATE_LIMIT_TOO_HIGH')
    expect(r.body.maxRateLimitRpm).toBe(60)
    expectProblem(await s.post('/api/v1/operator/keys', { name: 'x', rateLimitRpm: 0 }, { token: t }), 400, 'VALIDATION_FAILED')
    const me = (await s.get('/api/v1/auth/me', { token: t })).body
    expect((await s.patch(`/api/v1/admin/operators/${me.id}`, { tierOverride: 'PRO' }, { token: admin })).status).toBe(200)
    const pro = await s.post('/api/v1/operator/keys', { name: 'x', rateLimitRpm: 6000 }, { token: t })
    expect(pro.status).toBe(200)
    expect(pro.body.rateLimitRpm).toBe(6000)
    expect((await s.post('/api/v1/operator/keys', { name: 'y' }, { token: t })).body.rateLimitRpm).toBe(600)
  })
})

describe('using a key', () => {
  test('lastUsedAt is updated after use', async () => {
    const k = await s.createKey(op, 'used')
    const before = Date.now()
    expect((await s.get('/api/v1/whoami', { key: k.key })).body).toMatchObject({ via: 'apiKey', keyId: k.id, identityLogin: 'keyholder' })
    const rec = (await s.get('/api/v1/operator/keys', { token: op })).body.find((x: any) => x.id === k.id)
    expect(rec.lastUsedAt).not.toBeNull()
    expect(Date.parse(rec.lastUsedAt)).toBeGreaterThanOrEqual(before - 1000)
  })

  test('unknown and malformed keys are 401 INVALID_API_KEY', async () => {
    expectProblem(await s.get('/api/v1/whoami', { key: 'tg_test_doesnotexist1234567890' }), 401, 'INVALID_API_KEY')
    expectProblem(await s.get('/api/v1/whoami', { key: 'x' }), 401, 'INVALID_API_KEY')
  })

  test('revocation takes effect on the very next request', async () => {
    const k = await s.createKey(op, 'doomed')
    expect((await s.get('/api/v1/whoami', { key: k.key })).status).toBe(200)
    expect((await s.del(`/api/v1/operator/keys/${k.id}`, { token: op })).status).toBe(200)
    expectProblem(await s.get('/api/v1/whoami', { key: k.key }), 401, 'INVALID_API_KEY')
    expect((await s.get('/api/v1/operator/keys', { token: op })).body.some((x: any) => x.id === k.id)).toBe(false)
    expectProblem(await s.del(`/api/v1/operator/keys/${k.id}`, { token: op }), 404, 'NOT_FOUND')
  })

  test('in-flight revocation: requests racing a revoke never succeed after it', async () => {
    const k = await s.createKey(admin, 'racer', { rateLimitRpm: 60 })
    const before = s.get('/api/v1/whoami', { key: k.key })
    await s.del(`/api/v1/operator/keys/${k.id}`, { token: admin })
    const after = await Promise.all([1, 2, 3].map(() => s.get('/api/v1/whoami', { key: k.key })))
    expect((await before).status).toBe(200)
    for (const r of after) expectProblem(r, 401, 'INVALID_API_KEY')
  })

  test('rateLimitRpm is enforced with RateLimit headers and Retry-After', async () => {
    const t = await s.signup('chatty')
    const me = (await s.get('/api/v1/auth/me', { token: t })).body
    await s.patch(`/api/v1/admin/operators/${me.id}`, { tierOverride: 'PRO' }, { token: admin })
    const k = await s.createKey(t, 'tight', { rateLimitRpm: 5 })
    const results = []
    for (let i = 0; i < 6; i++) results.push(await s.get('/api/v1/whoami', { key: k.key }))
    expect(results.slice(0, 5).map((r) => r.status)).toEqual([200, 200, 200, 200, 200])
    expect(results[0]!.headers.get('ratelimit-limit')).toBe('5')
    expect(results[0]!.headers.get('ratelimit-remaining')).toBe('4')
    expect(results[4]!.headers.get('ratelimit-remaining')).toBe('0')
    const limited = results[5]!
    expectProblem(limited, 429, 'RATE_LIMITED')
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(limited.headers.get('ratelimit-remaining')).toBe('0')
    // The limit is per key: another key of the same operator is unaffected.
    const k2 = await s.createKey(t, 'other', { rateLimitRpm: 5 })
    expect((await s.get('/api/v1/whoami', { key: k2.key })).status).toBe(200)
  })
})

describe('the CLI token command', () => {
  test('mints a bearer token for an existing login', async () => {
    const r = await cli(['token', '--login', 'keyholder', '--data-dir', s.dataDir])
    expect(r.code).toBe(0)
    const me = await s.get('/api/v1/auth/me', { token: r.stdout.trim() })
    expect(me.body.identityLogin).toBe('keyholder')
  })
})
