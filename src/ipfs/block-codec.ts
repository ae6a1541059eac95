// How ipfs.db stores the pipeline's JSON documents (a block's `enc`, src/ipfs/stores.ts, layout 3):
// what every receipt and task document repeats (the EIP-712 domain and types, the field names) is
// written once, in PHRASES below, and each 32- or 65-byte hex value as its bytes; the block's bytes,
// and so its CID, are rebuilt exactly. A receipt takes ~0.5 KB instead of 1.7 KB.
//
// Encoding 1 maps bytes a JSON text never holds (control characters are escaped in its strings) to:
// 0x01 + 32 bytes = "0x" and 64 lower-case hex digits; 0x02 + 65 bytes = "0x" and 130 of them;
// 0x03 + k = PHRASES[k - 3]. PHRASES is part of the stored format: never edit it (a new list is a new
// encoding); test/unit/block-codec.test.ts pins its hash.

/** Every document the pipeline stores is JSON beginning with its type (src/proofs/documents.ts). */
const PREFIX = '{"type":"taskgate.'

export const PHRASES: readonly string[] = [
  // the receipt (src/pipeline/stages/08-receipt.ts), longest first
  '{"type":"taskgate.receipt/v1","payload":{"domain":{"name":"TaskGate Receipt","version":"1","chainId":',
  '},"types":{"TaskReceipt":[{"name":"taskId","type":"string"},{"name":"operatorId","type":"string"},{"name":"agentId","type":"string"},'
    + '{"name":"taskType","type":"string"},{"name":"model","type":"string"},{"name":"provider","type":"string"},'
    + '{"name":"promptHash","type":"bytes32"},{"name":"outputHash","type":"bytes32"},{"name":"ipfsCid","type":"string"},'
    + '{"name":"stateRoot","type":"bytes32"},{"name":"verificationScoreBps","type":"uint16"},{"name":"verified","type":"bool"},'
    + '{"name":"verificationProof","type":"bytes32"},{"name":"attestationUid","type":"bytes32"},{"name":"creditsCharged","type":"uint256"},'
    + '{"name":"completedAt","type":"uint64"}]},"primaryType":"TaskReceipt","message":{"taskId":"',
  '","verificationScoreBps":',
  ',"verificationProof":"',
  '","attestationUid":"',
  '","creditsCharged":"',
  '","completedAt":"',
  '"}},"signature":"',
  '","signer":"',
  '","stateRoot":"',
  '","ipfsCid":"',
  ',"verified":',
  // the task document (src/pipeline/stages/05-ipfs.ts)
  '{"type":"taskgate.task/v1","taskId":"',
  '","timings":{"createdAt":"',
  '","computeStartedAt":"',
  '","computeFinishedAt":"',
  '","latencyMs":',
  '},"verification":{"status":"',
  '","score":',
  ',"proof":"',
  // both
  '","operatorId":"',
  '","agentId":"',
  '","taskType":"',
  '","promptHash":"',
  '","outputHash":"',
  '","provider":"',
  '","model":"',
  '","output":"',
]

const HASH = 0x01
const SIGNATURE = 0x02
const FIRST_PHRASE = 0x03
if (FIRST_PHRASE + PHRASES.length > 0x20) throw new Error('block-codec: more phrases than control bytes')

const PREFIX_BYTES = Buffer.from(PREFIX, 'latin1')
const PHRASE_BYTES = PHRASES.map((p) => Buffer.from(p, 'latin1'))
/** Phrase indexes by first byte, longest first: a position takes the longest phrase there. */
const BY_FIRST: (number[] | null)[] = new Array(256).fill(null)
for (const k of PHRASES.map((_, k) => k).sort((a, b) => PHRASES[b]!.length - PHRASES[a]!.length)) (BY_FIRST[PHRASE_BYTES[k]![0]!] ??= []).push(k)
/** Lower-case hex digit values by byte (-1: not one). */
const NIBBLE = new Int8Array(256).fill(-1)
for (let i = 0; i < 16; i++) NIBBLE['0123456789abcdef'.charCodeAt(i)] = i
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1')

/**
 * The stored form of a block: encoding 1 for a pipeline document it makes smaller, else the bytes
 * as they are (encoding null). The stored form is decoded once here and must give the bytes back.
 */
export function encodeBlock(data: Uint8Array): { data: Uint8Array; enc: number | null } {
  const raw = { data, enc: null }
  const n = data.length
  if (n < PREFIX_BYTES.length) return raw
  for (let i = 0; i < PREFIX_BYTES.length; i++) if (data[i] !== PREFIX_BYTES[i]) return raw
  const out = new Uint8Array(n)
  let o = 0
  for (let i = 0; i < n;) {
    const b = data[i]!
    if (b < 0x20) return raw // not JSON text
    if (b === 0x30 && data[i + 1] === 0x78) { // "0x": a run of exactly 64 or 130 lower-case hex digits
      let end = i + 2
      while (end < n && NIBBLE[data[end]!]! >= 0) end++
      const digits = end - i - 2
      if (digits === 64 || digits === 130) {
        out[o++] = digits === 64 ? HASH : SIGNATURE
        for (let j = i + 2; j < end; j += 2) out[o++] = (NIBBLE[data[j]!]! << 4) | NIBBLE[data[j + 1]!]!
        i = end
        continue
      }
      while (i < end) out[o++] = data[i++]! // not a value: its digits as they are
      continue
    }
    const candidates = BY_FIRST[b]!
    let taken = -1
    if (candidates !== null) {
      for (let c = 0; c < candidates.length; c++) {
        const k = candidates[c]!
        const p = PHRASE_BYTES[k]!
        if (i + p.length > n) continue
        let j = 1
        while (j < p.length && data[i + j] === p[j]) j++
        if (j === p.length) { taken = k; break }
      }
    }
    if (taken >= 0) { out[o++] = FIRST_PHRASE + taken; i += PHRASE_BYTES[taken]!.length } else { out[o++] = b; i++ }
  }
  if (o >= n) return raw // no smaller (each step writes at most what it reads)
  const stored = out.subarray(0, o)
  const back = decodeBlock(stored, 1)
  if (back.length !== n) return raw
  for (let i = 0; i < n; i++) if (back[i] !== data[i]) return raw
  return { data: stored, enc: 1 }
}

/** A block's bytes from its stored form. */
export function decodeBlock(stored: Uint8Array, enc: number | null): Uint8Array {
  if (enc == null) return stored
  if (enc !== 1) throw new Error(`ipfs.db: unknown block encoding ${enc}`)
  let size = 0
  for (let i = 0; i < stored.length;) {
    const b = stored[i]!
    if (b >= FIRST_PHRASE && b < 0x20) { size += PHRASE_BYTES[b - FIRST_PHRASE]!.length; i++ } else if (b === HASH) { size += 66; i += 33 } else if (b === SIGNATURE) { size += 132; i += 66 } else { size++; i++ }
  }
  const out = new Uint8Array(size)
  let o = 0
  for (let i = 0; i < stored.length;) {
    const b = stored[i]!
    if (b >= 0x20 || b === 0) { out[o++] = b; i++ } else if (b >= FIRST_PHRASE) { out.set(PHRASE_BYTES[b - FIRST_PHRASE]!, o); o += PHRASE_BYTES[b - FIRST_PHRASE]!.length; i++ } else {
      const len = b === HASH ? 32 : 65
      out[o++] = 0x30
      out[o++] = 0x78
      for (let j = i + 1; j <= i + len; j++) { out[o++] = HEX_DIGITS[stored[j]! >> 4]!; out[o++] = HEX_DIGITS[stored[j]! & 15]! }
      i += 1 + len
    }
  }
  return out
}
