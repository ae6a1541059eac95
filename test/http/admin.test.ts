// Admin operator management and what SUSPENDED / BANNED operators can still do.
import { TEST_POSTGRES } from '../helpers/postgres'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { holdWriteLock } from '../helpers/lock'
import { cli, expectProblem, startServer, type TestServer } from '../helpers/server'

let s: TestServer
let admin: string

beforeAll(async () => {
  s = await startServer()
  admin = await s.setupAdmin()
})
afterAll(async () => { await s.cleanup() })

async function newOperator(login: string) {
  const token = await s.signup(login)
  const id = (await s.get('/api/v1/auth/me', { token })).body.id as string
  return { token, id }
}

describe('admin routes', () => {
  test('only admins may use them', async () => {
    const u = await newOperator('plain')
    expectProblem(await s.get('/api/v1/admin/operators', { token: u.token }), 403, 'ADMIN_REQUIRED')
    const k = await s.createKey(admin, 'admin-key')
    expectProblem(await s.get('/api/v1/admin/operators', { key: k.key }), 401, 'CREDENTIAL_NOT_ACCEPTED')
    const list = await s.get('/api/v1/admin/operators', { token: admin })
    expect(list.status).toBe(200)
    expect(list.body.map((o: any) => o.identityLogin)).toEqual(expect.arrayContaining(['admin', 'plain']))
  })

  test('tier override sets effectiveTier = override ?? tier, and can be cleared', async () => {
    const u = await newOperator('upgraded')
    const r = await s.patch(`/api/v1/admin/operators/${u.id}`, { tierOverride: 'ENTERPRISE' }, { token: admin })
    expect(r.body).toMatchObject({ tier: 'FREE', tierOverride: 'ENTERPRISE', effectiveTier: 'ENTERPRISE' })
    expect((await s.get('/api/v1/auth/me', { token: u.token })).body.effectiveTier).toBe('ENTERPRISE')
    const cleared = await s.patch(`/api/v1/admin/operators/${u.id}`, { tierOverride: null }, { token: admin })
    expect(cleared.body).toMatchObject({ tierOverride: null, effectiveTier: 'FREE' })
  })

  test('bad bodies and unknown operators', async () => {
    const u = await newOperator('target')
    expectProblem(await s.patch(`/api/v1/admin/operators/${u.id}`, { tierOverride: 'GOLD' }, { token: admin }), 400, 'VALIDATION_FAILED')
    expectProblem(await s.patch(`/api/v1/admin/operators/${u.id}`, {}, { token: admin }), 400, 'VALIDATION_FAILED')
    expectProblem(await s.patch(`/api/v1/admin/operators/${u.id}`, { role: 'admin' }, { token: admin }), 400, 'VALIDATION_FAILED')
    expectProblem(await s.patch('/api/v1/admin/operators/op_nope', { status: 'SUSPENDED' }, { token: admin }), 404, 'NOT_FOUND')
    const me = (await s.get('/api/v1/auth/me', { token: admin })).body
    expectProblem(await s.patch(`/api/v1/admin/operators/${me.id}`, { status: 'BANNED' }, { token: admin }), 409, 'CANNOT_SUSPEND_SELF')
  })
})

describe('operator status', () => {
  test('SUSPENDED: bearer and key get 403 except /auth/me; reactivation restores access', async () => {
    const u = await newOperator('suspendee')
    const k = await s.createKey(u.token, 'k')
    expect((await s.patch(`/api/v1/admin/operators/${u.id}`, { status: 'SUSPENDED' }, { token: admin })).body.status).toBe('SUSPENDED')
    expectProblem(await s.get('/api/v1/operator/keys', { token: u.token }), 403, 'OPERATOR_SUSPENDED')
    expectProblem(await s.get('/api/v1/whoami', { key: k.key }), 403, 'OPERATOR_SUSPENDED')
    expectProblem(await s.post('/api/v1/operator/keys', { name: 'more' }, { token: u.token }), 403, 'OPERATOR_SUSPENDED')
    const me = await s.get('/api/v1/auth/me', { token: u.token })
    expect(me.status).toBe(200)
    expect(me.body.status).toBe('SUSPENDED')
    await s.patch(`/api/v1/admin/operators/${u.id}`, { status: 'ACTIVE' }, { token: admin })
    expect((await s.get('/api/v1/whoami', { key: k.key })).status).toBe(200)
  })

  test('BANNED is final', async () => {
    const u = await newOperator('bannee')
    const k = await s.createKey(u.token, 'k')
    await s.patch(`/api/v1/admin/operators/${u.id}`, { status: 'BANNED' }, { token: admin })
    expectProblem(await s.get('/api/v1/whoami', { key: k.key }), 403, 'OPERATOR_BANNED')
    expectProblem(await s.get('/api/v1/operator/keys', { token: u.token }), 403, 'OPERATOR_BANNED')
    expect((await s.get('/api/v1/auth/me', { token: u.token })).body.status).toBe('BANNED')
    expectProblem(await s.patch(`/api/v1/admin/operators/${u.id}`, { status: 'ACTIVE' }, { token: admin }), 409, 'INVALID_STATUS_TRANSITION')
  })
})

describe('operator CLI (docs/foundation.md, "The command line")', () => {
  test('create, list, set-tier and set-status work on the same data dir, live', async () => {
    const c = await cli(['operator', 'create', '--login', 'cli-op', '--password', 'cli-password', '--tier', 'PRO', '--data-dir', s.dataDir])
    expect({ code: c.code, stderr: c.stderr }).toEqual({ code: 0, stderr: '' }) // the error, if any, in the failure
    const created = JSON.parse(c.stdout)
    expect(created).toMatchObject({ identityLogin: 'cli-op', tier: 'PRO', effectiveTier: 'PRO', role: 'operator' })
    const login = await s.post('/api/v1/auth/login', { login: 'cli-op', password: 'cli-password' })
    expect(login.status).toBe(200)
    const list = await cli(['operator', 'list', '--data-dir', s.dataDir])
    expect(list.stdout.trim().split('\n').map((l) => JSON.parse(l).identityLogin)).toContain('cli-op')
    const st = await cli(['operator', 'set-tier', '--login', 'cli-op', '--tier', 'ENTERPRISE', '--data-dir', s.dataDir])
    expect(JSON.parse(st.stdout).effectiveTier).toBe('ENTERPRISE')
    await cli(['operator', 'set-status', '--login', 'cli-op', '--status', 'SUSPENDED', '--data-dir', s.dataDir])
    expectProblem(await s.get('/api/v1/operator/keys', { token: login.body.accessToken }), 403, 'OPERATOR_SUSPENDED')
    const dup = await cli(['operator', 'create', '--login', 'cli-op', '--password', 'cli-password', '--data-dir', s.dataDir])
    expect(dup.code).not.toBe(0)
    expect(dup.stderr).toContain('LOGIN_TAKEN')
    const bad = await cli(['operator', 'set-status', '--login', 'cli-op', '--status', 'NAPPING', '--data-dir', s.dataDir])
    expect(bad.code).not.toBe(0)
  })

  // SQLite's write lock (PostgreSQL locks rows, not the database)
  test.skipIf(TEST_POSTGRES !== null)('operator create next to a writer in another process waits for it instead of failing with "database is locked"', async () => {
    // Another process holds the write lock (an open IMMEDIATE transaction) and commits while the
    // CLI's create runs: a create that read before taking the lock would fail at once (SQLITE_BUSY).
    const holder = await holdWriteLock(s.dataDir, 1500)
    const c = await cli(['operator', 'create', '--login', 'cli-waiter', '--password', 'cli-password', '--data-dir', s.dataDir])
    expect({ code: c.code, stderr: c.stderr }).toEqual({ code: 0, stderr: '' })
    expect(JSON.parse(c.stdout).identityLogin).toBe('cli-waiter')
    expect(await holder.committed).toBe(0)
  })
})
