// The live phase: live keys, no faucet, no test clock, no developer wallet, sign-up off by default.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { expectProblem, startServer, type TestServer } from '../helpers/server'

let s: TestServer
let admin: string
beforeAll(async () => {
  s = await startServer({ TASKGATE_PHASE: 'live', TASKGATE_TEST_CLOCK: '1' })
  admin = await s.setupAdmin()
})
afterAll(async () => { await s.cleanup() })

test('keys carry the live marker and the public config says live', async () => {
  expect((await s.createKey(admin, 'prod')).key).toMatch(/^tg_live_/)
  const c = (await s.get('/api/v1/config/public')).body
  expect(c).toMatchObject({ 'network.phase': 'live', 'faucet.enabled': false, 'auth.signup': false })
})

test('the faucet and the test clock do not exist; sign-up is off; no developer wallet is created', async () => {
  expectProblem(await s.post('/api/v1/faucet/usdc', {}), 404)
  expectProblem(await s.post('/api/v1/admin/clock/advance', { ms: 1 }, { token: admin }), 404, 'ROUTE_NOT_FOUND')
  expectProblem(await s.post('/api/v1/auth/signup', { login: 'someone', password: 'password-1' }), 403, 'SIGNUP_DISABLED')
  expect(existsSync(join(s.dataDir, 'keys', 'dev-wallet.key'))).toBe(false)
  const signers = (await s.get('/.well-known/taskgate-signers')).body
  expect(signers.eip712Domains.receipt.chainId).toBe(8453)
})
