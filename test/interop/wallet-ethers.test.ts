// Wallet binding signed by ethers v6 (optional interop group, test/interop/package.json): a second,
// independent EIP-712 implementation signs the typed data the server hands out, and the server
// accepts it. The viem side and every error are in test/http/wallet.test.ts.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { Wallet } from 'ethers'
import { expectProblem, startServer, type TestServer } from '../helpers/server'

let s: TestServer

beforeAll(async () => {
  s = await startServer()
  await s.setupAdmin()
})
afterAll(async () => { await s.cleanup() })

test('ethers v6 Wallet.signTypedData over the typed data the server handed out', async () => {
  const op = await s.signup('ethers-op')
  const w = Wallet.createRandom()
  const n = (await s.get('/api/v1/operator/wallet/nonce', { token: op })).body
  const { domain, types, message } = n.typedData
  const signature = await w.signTypedData(domain, types, { ...message, wallet: w.address })
  const r = await s.post('/api/v1/operator/wallet', { walletAddress: w.address, signature, nonce: n.nonce }, { token: op })
  expect(r.status).toBe(200)
  expect(r.body).toEqual({ walletAddress: w.address, firstBind: true, pointsAwarded: 500 })
  expect((await s.get('/api/v1/auth/me', { token: op })).body.walletAddress).toBe(w.address)
  // an ethers signature by another key, claiming w, is refused
  const n2 = (await s.get('/api/v1/operator/wallet/nonce', { token: op })).body
  const other = Wallet.createRandom()
  const sig2 = await other.signTypedData(n2.typedData.domain, n2.typedData.types, { ...n2.typedData.message, wallet: w.address })
  expectProblem(await s.post('/api/v1/operator/wallet', { walletAddress: w.address, signature: sig2, nonce: n2.nonce }, { token: op }), 400, 'INVALID_SIGNATURE')
})
