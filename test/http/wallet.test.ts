// Wallet binding over real HTTP (docs/money.md, "Wallet binding"): EIP-712 WalletBinding signed by
// viem (ethers: test/interop/wallet-ethers.test.ts), single-use nonces with a 10-minute expiry on
// the service clock, and every pinned error.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { getAddress, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { expectProblem, startServer, type TestServer } from '../helpers/server'

let s: TestServer
let admin: string

beforeAll(async () => {
  s = await startServer({ TASKGATE_TEST_CLOCK: '1' })
  admin = await s.setupAdmin()
})
afterAll(async () => { await s.cleanup() })

const TYPES = {
  WalletBinding: [
    { name: 'wallet', type: 'address' },
    { name: 'operatorId', type: 'string' },
    { name: 'nonce', type: 'string' },
  ],
} as const
const DOMAIN = { name: 'TaskGate', version: '1', chainId: 84532 } as const

const newAccount = () => privateKeyToAccount(generatePrivateKey())
const nonceFor = async (token: string) => {
  const r = await s.get('/api/v1/operator/wallet/nonce', { token })
  expect(r.status).toBe(200)
  return r.body as { nonce: string; operatorId: string; domain: typeof DOMAIN; chainId: number; expiresAt: string; typedData: any }
}
const signViem = (acct: PrivateKeyAccount, operatorId: string, nonce: string, domain: { name: string; version: string; chainId: number } = DOMAIN) =>
  acct.signTypedData({ domain, types: TYPES, primaryType: 'WalletBinding', message: { wallet: acct.address, operatorId, nonce } })
const bind = (token: string, body: { walletAddress: string; signature: string; nonce: string }) => s.post('/api/v1/operator/wallet', body, { token })
const me = async (token: string) => (await s.get('/api/v1/auth/me', { token })).body
/** Full happy path with viem; returns the bind response. */
async function bindWith(token: string, acct: PrivateKeyAccount, address: string = acct.address) {
  const n = await nonceFor(token)
  return bind(token, { walletAddress: address, signature: await signViem(acct, n.operatorId, n.nonce), nonce: n.nonce })
}

describe('nonce', () => {
  test('a fresh single-use nonce with the EIP-712 domain object and ready-to-sign typed data', async () => {
    const op = await s.signup('nonce-op')
    const id = (await me(op)).id
    const a = await nonceFor(op)
    const b = await nonceFor(op)
    expect(a.nonce).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
    expect(b.nonce).not.toBe(a.nonce)
    expect(a.operatorId).toBe(id)
    expect(a.domain).toEqual(DOMAIN)
    expect(a.chainId).toBe(84532)
    const ttl = new Date(a.expiresAt).getTime() - Date.now()
    expect(new Date(a.expiresAt).toISOString()).toBe(a.expiresAt)
    expect(ttl).toBeGreaterThan(10 * 60_000 - 30_000)
    expect(ttl).toBeLessThanOrEqual(10 * 60_000)
    expect(a.typedData).toEqual({ domain: DOMAIN, types: TYPES, primaryType: 'WalletBinding', message: { operatorId: id, nonce: a.nonce } })
  })

  test('bearer only: an API key is 401 CREDENTIAL_NOT_ACCEPTED, nothing is 401 UNAUTHENTICATED', async () => {
    const op = await s.signup('key-op')
    const { key } = await s.createKey(op)
    expectProblem(await s.get('/api/v1/operator/wallet/nonce', { key }), 401, 'CREDENTIAL_NOT_ACCEPTED')
    expectProblem(await s.post('/api/v1/operator/wallet', { walletAddress: newAccount().address, signature: `0x${'11'.repeat(65)}`, nonce: 'x' }, { key }), 401, 'CREDENTIAL_NOT_ACCEPTED')
    expectProblem(await s.get('/api/v1/operator/wallet/nonce'), 401, 'UNAUTHENTICATED')
    expectProblem(await s.post('/api/v1/operator/wallet', { walletAddress: newAccount().address, signature: `0x${'11'.repeat(65)}`, nonce: 'x' }), 401, 'UNAUTHENTICATED')
  })

  test('both routes are in /openapi.json', async () => {
    const doc = (await s.get('/openapi.json')).body
    expect(doc.paths['/api/v1/operator/wallet/nonce']?.get).toBeDefined()
    expect(doc.paths['/api/v1/operator/wallet']?.post).toBeDefined()
  })
})

describe('bind', () => {
  test('viem: first bind awards the pioneer points; /auth/me shows the wallet and the points; a replay is 409 NONCE_USED', async () => {
    const op = await s.signup('viem-op')
    const acct = newAccount()
    const n = await nonceFor(op)
    const body = { walletAddress: acct.address.toLowerCase(), signature: await signViem(acct, n.operatorId, n.nonce), nonce: n.nonce }
    const r = await bind(op, body)
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ walletAddress: acct.address, firstBind: true, pointsAwarded: 500 })
    expect(r.body.walletAddress).toBe(getAddress(acct.address))
    const m = await me(op)
    expect(m.walletAddress).toBe(acct.address)
    expect(m.pioneerPoints).toBe(500)

    expectProblem(await bind(op, body), 409, 'NONCE_USED')
    expect((await me(op)).pioneerPoints).toBe(500)
  })

  test('rebinding: same wallet (other letter case) or another wallet is firstBind false with no points; the old wallet is freed', async () => {
    const op = await s.signup('rebind-op')
    const w1 = newAccount()
    const w2 = newAccount()
    expect((await bindWith(op, w1)).body).toEqual({ walletAddress: w1.address, firstBind: true, pointsAwarded: 500 })
    // the same wallet again, lower-case, then with a scrambled (wrong-checksum) mixed case
    expect((await bindWith(op, w1, w1.address.toLowerCase())).body).toEqual({ walletAddress: w1.address, firstBind: false, pointsAwarded: 0 })
    const scrambled = '0x' + [...w1.address.slice(2).toLowerCase()].map((c, i) => (i % 2 ? c.toUpperCase() : c)).join('')
    expect((await bindWith(op, w1, scrambled)).body).toEqual({ walletAddress: w1.address, firstBind: false, pointsAwarded: 0 })
    // another wallet replaces it
    expect((await bindWith(op, w2)).body).toEqual({ walletAddress: w2.address, firstBind: false, pointsAwarded: 0 })
    const m = await me(op)
    expect(m.walletAddress).toBe(w2.address)
    expect(m.pioneerPoints).toBe(500)
    // w1 is free again: someone else may bind it (and gets their own first-bind award)
    const other = await s.signup('rebind-other')
    expect((await bindWith(other, w1)).body).toEqual({ walletAddress: w1.address, firstBind: true, pointsAwarded: 500 })
  })

  test('a wallet bound to another operator is 409 WALLET_BOUND_ELSEWHERE, in any letter case', async () => {
    const a = await s.signup('owner-a')
    const b = await s.signup('owner-b')
    const w = newAccount()
    expect((await bindWith(a, w)).status).toBe(200)
    for (const addr of [w.address, w.address.toLowerCase(), '0x' + w.address.slice(2).toUpperCase()]) {
      expectProblem(await bindWith(b, w, addr), 409, 'WALLET_BOUND_ELSEWHERE')
    }
    expect((await me(a)).walletAddress).toBe(w.address)
    const mb = await me(b)
    expect(mb.walletAddress).toBeNull()
    expect(mb.pioneerPoints).toBe(0)
  })
})

describe('errors', () => {
  test('unknown nonce → 400 INVALID_NONCE', async () => {
    const op = await s.signup('unknown-nonce')
    const acct = newAccount()
    const id = (await me(op)).id
    const nonce = crypto.randomUUID()
    expectProblem(await bind(op, { walletAddress: acct.address, signature: await signViem(acct, id, nonce), nonce }), 400, 'INVALID_NONCE')
  })

  test("another operator's nonce → 400 INVALID_NONCE, and it stays usable by its owner", async () => {
    const a = await s.signup('nonce-owner')
    const b = await s.signup('nonce-thief')
    const idB = (await me(b)).id
    const n = await nonceFor(a)
    const wb = newAccount()
    // signed correctly for b's operator id, and also as a's
    expectProblem(await bind(b, { walletAddress: wb.address, signature: await signViem(wb, idB, n.nonce), nonce: n.nonce }), 400, 'INVALID_NONCE')
    expectProblem(await bind(b, { walletAddress: wb.address, signature: await signViem(wb, n.operatorId, n.nonce), nonce: n.nonce }), 400, 'INVALID_NONCE')
    const wa = newAccount()
    expect((await bind(a, { walletAddress: wa.address, signature: await signViem(wa, n.operatorId, n.nonce), nonce: n.nonce })).status).toBe(200)
  })

  test('bad signatures → 400 INVALID_SIGNATURE and do not burn the nonce', async () => {
    const op = await s.signup('bad-sig')
    const w = newAccount()
    const n = await nonceFor(op)
    const cases: Hex[] = [
      await signViem(newAccount(), n.operatorId, n.nonce), // another key
      await newAccount().signTypedData({ domain: DOMAIN, types: TYPES, primaryType: 'WalletBinding', message: { wallet: w.address, operatorId: n.operatorId, nonce: n.nonce } }), // another key claiming w
      await signViem(w, 'op_someone_else', n.nonce), // another operator id
      await signViem(w, n.operatorId, crypto.randomUUID()), // another nonce
      await signViem(w, n.operatorId, n.nonce, { ...DOMAIN, chainId: 8453 }), // another chain
      await signViem(w, n.operatorId, n.nonce, { ...DOMAIN, name: 'Other' }), // another domain
      await w.signMessage({ message: n.nonce }), // personal_sign instead of EIP-712
      `0x${'00'.repeat(65)}`, // well-formed garbage
      `0x${'ab'.repeat(64)}`, // compact-length garbage
    ]
    for (const signature of cases) expectProblem(await bind(op, { walletAddress: w.address, signature, nonce: n.nonce }), 400, 'INVALID_SIGNATURE')
    expect((await me(op)).walletAddress).toBeNull()
    const ok = await bind(op, { walletAddress: w.address, signature: await signViem(w, n.operatorId, n.nonce), nonce: n.nonce })
    expect(ok.body).toEqual({ walletAddress: w.address, firstBind: true, pointsAwarded: 500 })
  })

  test('malformed bodies → 400 VALIDATION_FAILED', async () => {
    const op = await s.signup('malformed')
    const w = newAccount()
    const n = await nonceFor(op)
    const signature = await signViem(w, n.operatorId, n.nonce)
    const bad: Record<string, unknown>[] = [
      { walletAddress: w.address.slice(0, 41), signature, nonce: n.nonce },
      { walletAddress: w.address.slice(2), signature, nonce: n.nonce },
      { walletAddress: `0x${'g'.repeat(40)}`, signature, nonce: n.nonce },
      { walletAddress: `${w.address}00`, signature, nonce: n.nonce },
      { walletAddress: w.address, signature: signature.slice(2), nonce: n.nonce },
      { walletAddress: w.address, signature: `0x${'zz'.repeat(65)}`, nonce: n.nonce },
      { walletAddress: w.address, signature: signature.slice(0, 20), nonce: n.nonce },
      { walletAddress: w.address, signature, nonce: '' },
      { walletAddress: w.address, signature },
      { walletAddress: w.address, signature, nonce: 42 },
      {},
    ]
    for (const body of bad) {
      const r = await bind(op, body as any)
      expectProblem(r, 400, 'VALIDATION_FAILED')
      expect(r.text).not.toContain(signature.slice(2, 40))
    }
    expect((await bind(op, { walletAddress: w.address, signature, nonce: n.nonce })).status).toBe(200)
  })
})

// Last: moving the clock affects everything else on this server.
describe('expiry (test clock)', () => {
  test('a nonce older than 10 minutes → 400 NONCE_EXPIRED; a fresh one still binds', async () => {
    const op = await s.signup('expiry-op')
    const w = newAccount()
    const old = await nonceFor(op)
    const sig = await signViem(w, old.operatorId, old.nonce)
    const adv = await s.post('/api/v1/admin/clock/advance', { ms: 10 * 60 * 1000 + 1000 }, { token: admin })
    expect(adv.status).toBe(200)
    expectProblem(await bind(op, { walletAddress: w.address, signature: sig, nonce: old.nonce }), 400, 'NONCE_EXPIRED')
    const fresh = await nonceFor(op)
    expect(new Date(fresh.expiresAt).getTime()).toBeGreaterThan(Date.now() + 10 * 60_000) // issued on the moved clock
    expect((await bind(op, { walletAddress: w.address, signature: await signViem(w, fresh.operatorId, fresh.nonce), nonce: fresh.nonce })).body)
      .toEqual({ walletAddress: w.address, firstBind: true, pointsAwarded: 500 })
    // a used nonce stays NONCE_USED after it expires too
    await s.post('/api/v1/admin/clock/advance', { ms: 11 * 60 * 1000 }, { token: admin })
    expectProblem(await bind(op, { walletAddress: w.address, signature: await signViem(w, fresh.operatorId, fresh.nonce), nonce: fresh.nonce }), 409, 'NONCE_USED')
  })
})
