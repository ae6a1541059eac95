// GitHub OAuth against a fake GitHub (authorize, token and user endpoints) on loopback.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { expectProblem, startServer, type TestServer } from '../helpers/server'

const CLIENT_ID = 'fake-client-id'
const CLIENT_SECRET = 'fake-client-secret-value'
const users: Record<string, { id: number; login: string; name: string; email: string }> = {
  'code-octo': { id: 101, login: 'Octocat', name: 'The Octocat', email: 'octo@example.com' },
  'code-octo-again': { id: 101, login: 'Octocat', name: 'The Octocat', email: 'octo@example.com' },
  'code-clash': { id: 202, login: 'admin', name: 'Imposter', email: 'x@example.com' },
}
const tokenRequests: any[] = []
let fake: ReturnType<typeof Bun.serve>
let s: TestServer

beforeAll(async () => {
  fake = Bun.serve({
    port: 0, hostname: '127.0.0.1',
    async fetch(req) {
      const u = new URL(req.url)
      if (u.pathname === '/login/oauth/access_token' && req.method === 'POST') {
        const body = (await req.json()) as any
        tokenRequests.push(body)
        if (body.client_secret !== CLIENT_SECRET || !users[body.code]) return Response.json({ error: 'bad_verification_code' })
        return Response.json({ access_token: `gho_${body.code}`, token_type: 'bearer', scope: 'read:user' })
      }
      if (u.pathname === '/user') {
        const code = req.headers.get('authorization')?.replace('Bearer gho_', '') ?? ''
        return users[code] ? Response.json(users[code]) : new Response('{"message":"Bad credentials"}', { status: 401 })
      }
      return new Response('not found', { status: 404 })
    },
  })
  const base = `http://127.0.0.1:${fake.port}`
  s = await startServer({ TASKGATE_GITHUB_CLIENT_ID: CLIENT_ID, TASKGATE_GITHUB_CLIENT_SECRET: CLIENT_SECRET, TASKGATE_GITHUB_WEB_URL: base, TASKGATE_GITHUB_API_URL: base })
  await s.setupAdmin()
})
afterAll(async () => { await s.cleanup(); fake.stop(true) })

/** Starts the flow at TaskGate and returns the state and the cookie the browser would carry. */
async function begin(ui = false) {
  const r = await s.get(`/api/v1/auth/github${ui ? '?ui=1' : ''}`)
  expect(r.status).toBe(302)
  const loc = new URL(r.headers.get('location')!)
  expect(`${loc.origin}${loc.pathname}`).toBe(`http://127.0.0.1:${fake.port}/login/oauth/authorize`)
  expect(loc.searchParams.get('client_id')).toBe(CLIENT_ID)
  expect(loc.searchParams.get('redirect_uri')).toBe(`${s.url}/api/v1/auth/github/callback`)
  const cookie = r.headers.get('set-cookie')!.split(';')[0]!
  expect(cookie).toStartWith('tg_oauth=')
  return { state: loc.searchParams.get('state')!, cookie }
}

describe('GitHub sign-in', () => {
  test('is advertised, and a new GitHub user gets an operator whose identityLogin is the GitHub login', async () => {
    expect((await s.get('/api/v1/auth/options')).body.github).toBe(true)
    const { state, cookie } = await begin()
    const cb = await s.get(`/api/v1/auth/github/callback?code=code-octo&state=${encodeURIComponent(state)}`, { headers: { cookie } })
    expect(cb.status).toBe(200)
    expect(cb.body.tokenType).toBe('Bearer')
    expect(tokenRequests.at(-1)).toMatchObject({ client_id: CLIENT_ID, code: 'code-octo' })
    const me = (await s.get('/api/v1/auth/me', { token: cb.body.accessToken })).body
    expect(me).toMatchObject({ identityLogin: 'octocat', displayName: 'The Octocat', email: 'octo@example.com', tier: 'FREE' })
    // signing in again links to the same operator
    const again = await begin()
    const cb2 = await s.get(`/api/v1/auth/github/callback?code=code-octo-again&state=${encodeURIComponent(again.state)}`, { headers: { cookie: again.cookie } })
    expect((await s.get('/api/v1/auth/me', { token: cb2.body.accessToken })).body.id).toBe(me.id)
  })

  test('a GitHub login equal to a local login does not take over the local account', async () => {
    const { state, cookie } = await begin()
    const cb = await s.get(`/api/v1/auth/github/callback?code=code-clash&state=${encodeURIComponent(state)}`, { headers: { cookie } })
    const me = (await s.get('/api/v1/auth/me', { token: cb.body.accessToken })).body
    expect(me.identityLogin).toBe('admin@github')
    expect(me.flags.admin).toBe(false)
  })

  test('from the UI, the callback redirects with the token in the URL fragment', async () => {
    const { state, cookie } = await begin(true)
    const cb = await s.get(`/api/v1/auth/github/callback?code=code-octo&state=${encodeURIComponent(state)}`, { headers: { cookie } })
    expect(cb.status).toBe(302)
    const loc = cb.headers.get('location')!
    expect(loc).toStartWith(`${s.url}/#access_token=`)
    const token = decodeURIComponent(loc.split('access_token=')[1]!.split('&')[0]!)
    expect((await s.get('/api/v1/auth/me', { token })).body.identityLogin).toBe('octocat')
  })

  test('state must match the browser cookie; bad codes and denials are 4xx', async () => {
    const { state, cookie } = await begin()
    expectProblem(await s.get(`/api/v1/auth/github/callback?code=code-octo&state=${encodeURIComponent(state)}`), 400, 'OAUTH_STATE_INVALID')
    expectProblem(await s.get(`/api/v1/auth/github/callback?code=code-octo&state=${encodeURIComponent(state)}`, { headers: { cookie: 'tg_oauth=other' } }), 400, 'OAUTH_STATE_INVALID')
    expectProblem(await s.get(`/api/v1/auth/github/callback?code=code-octo&state=forged`, { headers: { cookie } }), 400, 'OAUTH_STATE_INVALID')
    expectProblem(await s.get(`/api/v1/auth/github/callback?code=unknown-code&state=${encodeURIComponent(state)}`, { headers: { cookie } }), 401, 'OAUTH_FAILED')
    expectProblem(await s.get('/api/v1/auth/github/callback?error=access_denied'), 401, 'OAUTH_DENIED')
  })

  test('the client secret never appears in logs', async () => {
    await Bun.sleep(50)
    expect(s.stdout + s.stderr).not.toContain(CLIENT_SECRET)
  })
})

describe('without GitHub configured', () => {
  test('the routes answer 404 and options say github: false', async () => {
    const plain = await startServer()
    try {
      expect((await plain.get('/api/v1/auth/options')).body.github).toBe(false)
      expectProblem(await plain.get('/api/v1/auth/github'), 404, 'NOT_FOUND')
    } finally { await plain.cleanup() }
  })
})
