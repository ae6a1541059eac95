// src/lib/keccak.ts against viem's keccak256 (@noble/hashes): the same digest for any bytes and any
// UTF-8 text, as hex and as bytes (keccakBytes is what viem's keccak256 calls in the compiled binary).
import { expect, test } from 'bun:test'
import { keccak256 as viemKeccak, stringToBytes } from 'viem'
import { keccak256, keccakBytes, keccakReady } from '../../src/lib/keccak'
import { keccak_256 as viemKeccakInBinary } from '../../src/lib/viem-keccak'

test('hashes asked for before the WebAssembly module is loaded are right too (and start its loading)', async () => {
  expect(keccak256('early')).toBe(viemKeccak(stringToBytes('early')))
  expect(keccakBytes(stringToBytes('early'))).toEqual(viemKeccak(stringToBytes('early'), 'bytes'))
  await keccakReady()
  expect(keccak256('early')).toBe(viemKeccak(stringToBytes('early')))
})

// The tests below run after the first one awaited keccakReady(): on the WebAssembly keccak.

test('bytes of every length from 0 to 600, and a few large ones, hash as viem hashes them', async () => {
  await keccakReady()
  const lengths = [...Array.from({ length: 601 }, (_, i) => i), 1087, 1088, 1089, 4096, 20_000]
  for (const n of lengths) {
    const b = crypto.getRandomValues(new Uint8Array(n))
    expect(keccak256(b)).toBe(viemKeccak(b))
    expect(viemKeccakInBinary(b)).toEqual(viemKeccak(b, 'bytes'))
  }
})

test('strings hash as their UTF-8 bytes', () => {
  for (const s of ['', 'taskgate:task_123', 'Zoë ✓ 日本 🚀', 'x'.repeat(5000), '{"a":[1,2,{"b":null}]}']) {
    expect(keccak256(s)).toBe(viemKeccak(stringToBytes(s)))
  }
})

test('calls do not leak state into each other', () => {
  const a = keccak256('first'), b = keccak256('second')
  expect(keccak256('first')).toBe(a)
  expect(b).not.toBe(a)
})

test('the pipeline hashes built on it equal their viem formulations', async () => {
  const { concat, encodePacked, toHex, zeroAddress } = await import('viem')
  const { leafHash, nextStateRoot, ZERO_ROOT } = await import('../../src/agents/fingerprint')
  const { offchainUid, TASK_SCHEMA_UID } = await import('../../src/chain/signer')
  const summary = { taskId: 'task_Zoë', ipfsCid: 'bafkrei…', outputHash: viemKeccak(stringToBytes('out')), verificationScore: 0.9167, latencyMs: 12 }
  const leaf = leafHash(summary)
  expect(leaf).toBe(viemKeccak(toHex(JSON.stringify([summary.taskId, summary.ipfsCid, summary.outputHash, summary.verificationScore, summary.latencyMs]))))
  expect(nextStateRoot(ZERO_ROOT, leaf)).toBe(viemKeccak(concat([ZERO_ROOT, leaf])))
  const m = { version: 2, schema: TASK_SCHEMA_UID, recipient: zeroAddress, time: 1_700_000_000n, expirationTime: 0n, revocable: true, refUID: ZERO_ROOT, data: toHex('payload'), salt: viemKeccak(toHex('taskgate:task_1')) }
  expect(offchainUid(m)).toBe(viemKeccak(encodePacked(
    ['uint16', 'bytes', 'address', 'address', 'uint64', 'uint64', 'bool', 'bytes32', 'bytes', 'bytes32', 'uint32'],
    [m.version, toHex(m.schema), m.recipient, zeroAddress, m.time, m.expirationTime, m.revocable, m.refUID, m.data, m.salt, 0],
  )))
})

test('keccakBytes answers a new array each call (viem may keep or change the bytes it gets)', () => {
  const a = keccakBytes('one')
  const copy = a.slice()
  keccakBytes('two')
  expect(a).toEqual(copy)
  expect(keccakBytes('one')).not.toBe(a)
})

test('viem still takes its keccak from @noble/hashes/sha3 (the import scripts/build.ts redirects)', async () => {
  const file = Bun.resolveSync('viem', import.meta.dir).replace(/_cjs[\\/]index\.js$|_esm[\\/]index\.js$/, '_esm/utils/hash/keccak256.js')
  const text = await Bun.file(file).text()
  expect(text).toMatch(/import \{ keccak_256 \} from '@noble\/hashes\/sha3(\.js)?';/)
})
