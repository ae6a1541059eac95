// CID_PATTERN (http/schemas.ts) admits exactly the CIDs the node serves — CIDv1 sha2-256 raw or
// dag-pb in base32, and CIDv0 — checked against multiformats' own parser (issue 30: the shape-only
// pattern before it admitted strings that are no CID, which the server then refused).
import { describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { CID } from 'multiformats/cid'
import * as raw from 'multiformats/codecs/raw'
import { base58btc } from 'multiformats/bases/base58'
import { create } from 'multiformats/hashes/digest'
import { CID_PATTERN } from '../../src/http/schemas'

const re = new RegExp(CID_PATTERN, 'u')
const DAG_PB = 0x70
const SHA256 = 0x12

/** What the pattern must say: multiformats parses it to a CID of the kinds the node serves, written as that CID prints. */
function served(s: string): boolean {
  let cid: CID
  try { cid = CID.parse(s) } catch { return false }
  if (cid.multihash.code !== SHA256 || cid.multihash.size !== 32) return false
  if (cid.version === 0) return cid.toString() === s
  return (cid.code === raw.code || cid.code === DAG_PB) && s.startsWith('b') && cid.toString() === s
}

const digest = fc.uint8Array({ minLength: 32, maxLength: 32 })
const edges = fc.constantFrom(new Uint8Array(32), new Uint8Array(32).fill(0xff), Uint8Array.from({ length: 32 }, (_, i) => i))
const cidOf = (version: 0 | 1, code: number, d: Uint8Array) => CID.create(version, code, create(SHA256, d)).toString()

describe('CID_PATTERN', () => {
  test('admits every CIDv1 raw/dag-pb (base32) and CIDv0, edge digests included', () => {
    fc.assert(fc.property(fc.oneof(digest, edges), fc.constantFrom(0, 1, 2), (d, kind) => {
      const s = kind === 0 ? cidOf(0, DAG_PB, d) : cidOf(1, kind === 1 ? raw.code : DAG_PB, d)
      expect(re.test(s)).toBe(true)
    }), { numRuns: 400 })
  })

  test('every string it admits is such a CID (generated from the pattern itself)', () => {
    fc.assert(fc.property(fc.stringMatching(re), (s) => { expect(served(s)).toBe(true) }), { numRuns: 400 })
  })

  test('near misses: strings of the old shape, other bases, codecs and hashes', () => {
    const b58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'
    const oldShape = fc.oneof(
      fc.string({ unit: fc.constantFrom(...b58), minLength: 44, maxLength: 44 }).map((x) => `Qm${x}`),
      fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz234567'), minLength: 50, maxLength: 50 }).map((x) => `bafkrei${x}a`),
      fc.string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz234567'), minLength: 51, maxLength: 52 }).map((x) => `bafybei${x}`),
    )
    fc.assert(fc.property(oldShape, (s) => { expect(re.test(s)).toBe(served(s)) }), { numRuns: 2000 })
    // valid CIDs the node cannot hold: other encodings, codecs, hashes
    const d = new Uint8Array(32).fill(7)
    for (const s of [
      CID.create(1, raw.code, create(SHA256, d)).toString(base58btc), // z…
      CID.create(1, 0x71, create(SHA256, d)).toString(), // dag-cbor
      CID.create(1, raw.code, create(0x00, new Uint8Array(8))).toString(), // identity hash
      'QmNLei78zWmzUdbeRB3CiUfAizWUrbeeZh5K1rhAQKCh5', // one digit short
    ]) expect(re.test(s), s).toBe(false)
    // CIDv0 bounds: the all-zero and all-0xff digests are in, the numbers just outside them are not
    const v0 = (n: bigint) => base58btc.baseEncode(Uint8Array.from(Buffer.from(n.toString(16).padStart(68, '0'), 'hex')))
    const lo = BigInt('0x1220' + '00'.repeat(32)), hi = BigInt('0x1220' + 'ff'.repeat(32))
    expect(v0(lo)).toBe(cidOf(0, DAG_PB, new Uint8Array(32)))
    expect(v0(hi)).toBe(cidOf(0, DAG_PB, new Uint8Array(32).fill(0xff)))
    for (const [n, ok] of [[lo, true], [hi, true], [lo - 1n, false], [hi + 1n, false]] as const) {
      expect(v0(n)).toHaveLength(46)
      expect(re.test(v0(n)), v0(n)).toBe(ok)
      expect(served(v0(n))).toBe(ok)
    }
  })
})
