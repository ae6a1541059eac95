// Identity over real HTTP: first-run setup, login, signup, logout, /auth/me.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { expectProblem, startServer, type TestServer } from '../helpers/server'

let s: TestServer
let admin: string

beforeAll(async () => { s = await startServer() })
afterAll(async () => { await s.cleanup() })

describe('first-run setup', () => {
  test('the console shows a setup URL and the UI knows setup is pending', async () => {
    expect(s.stderr).toContain('/#/setup?token=')
    const o = await s.get('/api/v1/auth/options')
    expect(o.body).toEqual({ setupRequired: true, signup: true, github: false, phase: 'testnet' })
  })

  test('a wrong token is refused and does not consume the real one', async () => {
    expectProblem(await s.post('/api/v1/setup', { token: 'wrong', login: 'admin', password: 'admin-password' }), 401, 'INVALID_SETUP_TOKEN')
    expect(s.setupToken()).not.toBeNull()
  })

  test('the setup token creates the first admin exactly once', async () => {
    admin = await s.setupAdmin('Admin', 'admin-password')
    const me = await s.get('/api/v1/auth/me', { token: admin })
    expect(me.status).toBe(200)
    expect(me.body.identityLogin).toBe('admin')
    expect(me.body.flags.admin).toBe(true)
    expectProblem(await s.post('/api/v1/setup', { token: 'anything', login: 'x2', password: 'password-2' }), 409, 'SETUP_COMPLETE')
    expect((await s.get('/api/v1/auth/options')).body.setupRequired).toBe(false)
  })
})

describe('login and tokens', () => {
  test('login returns a bearer token body', async () => {
    const r = await s.post('/api/v1/auth/login', { login: 'ADMIN', password: 'admin-password' })
    expect(r.status).toBe(200)
    expect(r.body.tokenType).toBe('Bearer')
    expect(r.body.expiresIn).toBe(12 * 3600)
    expect(r.body.accessToken.split('.')).toHaveLength(3)
  })

  test('wrong password and unknown login get the same answer', async () => {
    const a = await s.post('/api/v1/auth/login', { login: 'admin', password: 'nope-nope' })
    const b = await s.post('/api/v1/auth/login', { login: 'ghost', password: 'nope-nope' })
    expectProblem(a, 401, 'INVALID_CREDENTIALS')
    expectProblem(b, 401, 'INVALID_CREDENTIALS')
    expect(a.body.detail).toBe(b.body.detail)
  })

  // More brute-force cases (parallel guesses, the per-address limit, sign-ups): login-abuse.test.ts.
  test('10 failures for one login from one address lock it for 15 minutes, the right password included', async () => {
    await s.signup('throttled', 'right-password')
    for (let i = 0; i < 10; i++) expectProblem(await s.post('/api/v1/auth/login', { login: 'throttled', password: 'bad-password' }), 401, 'INVALID_CREDENTIALS')
    const r = await s.post('/api/v1/auth/login', { login: 'throttled', password: 'right-password' })
    expectProblem(r, 429, 'TOO_MANY_LOGIN_ATTEMPTS')
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(r.body.retryAfterSeconds).toBe(Number(r.headers.get('retry-after')))
    expect(r.headers.get('ratelimit-policy')).toBe('10;w=900')
    // Other logins from this address still work (the address allows 30 failures).
    expect((await s.post('/api/v1/auth/login', { login: 'admin', password: 'admin-password' })).status).toBe(200)
  })

  test('garbage, tampered and missing tokens are 401 with WWW-Authenticate', async () => {
    const none = await s.get('/api/v1/auth/me')
    expectProblem(none, 401, 'UNAUTHENTICATED')
    expect(none.headers.get('www-authenticate')).toContain('Bearer')
    expectProblem(await s.get('/api/v1/auth/me', { token: 'abc.def.ghi' }), 401, 'INVALID_TOKEN')
    const [h, p] = admin.split('.')
    expectProblem(await s.get('/api/v1/auth/me', { token: `${h}.${p}.${'A'.repeat(43)}` }), 401, 'INVALID_TOKEN')
  })

  test('an API key is not accepted where only a bearer token is', async () => {
    const k = await s.createKey(admin, 'for-me')
    expectProblem(await s.get('/api/v1/auth/me', { key: k.key }), 401, 'CREDENTIAL_NOT_ACCEPTED')
  })

  test('logout ends every session of the operator', async () => {
    const t1 = await s.signup('leaver')
    const t2 = (await s.post('/api/v1/auth/login', { login: 'leaver', password: 'operator-password' })).body.accessToken
    expect((await s.post('/api/v1/auth/logout', undefined, { token: t1 })).body).toEqual({ success: true })
    expectProblem(await s.get('/api/v1/auth/me', { token: t1 }), 401, 'INVALID_TOKEN')
    expectProblem(await s.get('/api/v1/auth/me', { token: t2 }), 401, 'INVALID_TOKEN')
    const t3 = (await s.post('/api/v1/auth/login', { login: 'leaver', password: 'operator-password' })).body.accessToken
    expect((await s.get('/api/v1/auth/me', { token: t3 })).status).toBe(200)
  })
})

describe('signup', () => {
  test('creates a FREE operator; duplicate logins are 409 LOGIN_TAKEN (case-insensitive)', async () => {
    const t = await s.signup('newbie')
    const me = await s.get('/api/v1/auth/me', { token: t })
    expect(me.body.tier).toBe('FREE')
    expect(me.body.flags.admin).toBe(false)
    expectProblem(await s.post('/api/v1/auth/signup', { login: 'NewBie', password: 'password-x' }), 409, 'LOGIN_TAKEN')
  })

  test('bad logins, short passwords and bad emails are 400', async () => {
    expectProblem(await s.post('/api/v1/auth/signup', { login: 'a b', password: 'password-x' }), 400, 'INVALID_LOGIN')
    expectProblem(await s.post('/api/v1/auth/signup', { login: 'shorty', password: 'short' }), 400, 'VALIDATION_FAILED')
    const r = await s.post('/api/v1/auth/signup', { login: 'mailer', password: 'password-x', email: 'not-an-email' })
    expectProblem(r, 400, 'VALIDATION_FAILED')
    expect(r.body.errors[0].path).toBe('/body/email')
  })
})

describe('GET /api/v1/auth/me', () => {
  test('returns every field of the Operator profile with the right types', async () => {
    const t = await s.signup('profiled')
    const me = (await s.get('/api/v1/auth/me', { token: t })).body
    expect(Object.keys(me).sort()).toEqual(['displayName', 'effectiveTier', 'email', 'firstTaskAt', 'flags', 'hasApiKey', 'id', 'identityLogin', 'pioneerPoints', 'status', 'tier', 'tierOverride', 'walletAddress'].sort())
    expect(me).toMatchObject({ identityLogin: 'profiled', tier: 'FREE', tierOverride: null, effectiveTier: 'FREE', status: 'ACTIVE', hasApiKey: false, pioneerPoints: 0, walletAddress: null, firstTaskAt: null })
    expect(typeof me.id).toBe('string')
    expect(typeof me.displayName).toBe('string')
    expect(typeof me.email).toBe('string')
    expect(me.flags).toBeObject()
    expect(Array.isArray(me.flags)).toBe(false)
    await s.createKey(t, 'one')
    expect((await s.get('/api/v1/auth/me', { token: t })).body.hasApiKey).toBe(true)
  })

  test('firstTaskAt is set by the first completed task and kept by the next ones', async () => {
    const t = await s.signup('first-tasker')
    const agent = (await s.post('/api/v1/agents/register', { displayName: 'first', capabilities: ['sentiment_analysis'] }, { token: t })).body
    const submit = () => s.post('/api/v1/tasks/submit', { agentId: agent.agentId, taskType: 'sentiment_analysis', prompt: 'The support team was wonderful.' }, { token: t })
    expect((await s.get('/api/v1/auth/me', { token: t })).body.firstTaskAt).toBeNull()
    const first = await submit()
    expect(first.body.status).toBe('COMPLETED')
    const at = (await s.get('/api/v1/auth/me', { token: t })).body.firstTaskAt
    expect(Date.parse(at)).toBeGreaterThanOrEqual(Date.parse(first.body.createdAt))
    expect(Date.parse(at)).toBeLessThanOrEqual(Date.now())
    expect((await submit()).body.status).toBe('COMPLETED')
    expect((await s.get('/api/v1/auth/me', { token: t })).body.firstTaskAt).toBe(at)
  })
})
