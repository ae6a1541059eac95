// JSON text with its repeated parts written once: bytes a JSON text never holds (control characters
// are escaped in its strings) stand for 0x01 + 32 bytes = "0x" and 64 lower-case hex digits, 0x02 +
// 65 bytes = "0x" and 130 of them, 0x03 + k = phrases[k]. Used for ipfs.db's pipeline documents
// (src/ipfs/block-codec.ts) and the task row's verification record (src/tasks/row-encoding.ts); each
// phrase list is part of a stored format and never changes.
const HASH = 0x01
const SIGNATURE = 0x02
const FIRST_PHRASE = 0x03
/** Lower-case hex digit values by byte (-1: not one). */
const NIBBLE = new Int8Array(256).fill(-1)
for (let i = 0; i < 16; i++) NIBBLE['0123456789abcdef'.charCodeAt(i)] = i
const HEX_DIGITS = Buffer.from('0123456789abcdef', 'latin1')

/**
 * The encoding with a list of phrases (at most 29, without control characters): `encode`
 * gives null for bytes it does not make smaller or that are not JSON text; `decode` reverses it.
 * Every encoding is decoded once and compared with its input before it is returned.
 */
export function phraseCodec(phrases: readonly string[]): { encode(data: Uint8Array): Uint8Array | null; decode(stored: Uint8Array): Uint8Array } {
  if (FIRST_PHRASE + phrases.length > 0x20) throw new Error('phraseCodec: more phrases than control bytes')
  const bytes = phrases.map((p) => Buffer.from(p, 'latin1'))
  /** Phrase indexes by first byte, longest first: a position takes the longest phrase there. */
  const byFirst: (number[] | null)[] = new Array(256).fill(null)
  for (const k of phrases.map((_, k) => k).sort((a, b) => phrases[b]!.length - phrases[a]!.length)) (byFirst[bytes[k]![0]!] ??= []).push(k)

  const decode = (stored: Uint8Array): Uint8Array => {
    let size = 0
    for (let i = 0; i < stored.length;) {
      const b = stored[i]!
      if (b >= FIRST_PHRASE && b < 0x20) { size += bytes[b - FIRST_PHRASE]!.length; i++ } else if (b === HASH) { size += 66; i += 33 } else if (b === SIGNATURE) { size += 132; i += 66 } else { size++; i++ }
    }
    const out = new Uint8Array(size)
    let o = 0
    for (let i = 0; i < stored.length;) {
      const b = stored[i]!
      if (b >= 0x20 || b === 0) { out[o++] = b; i++ } else if (b >= FIRST_PHRASE) { out.set(bytes[b - FIRST_PHRASE]!, o); o += bytes[b - FIRST_PHRASE]!.length; i++ } else {
        const len = b === HASH ? 32 : 65
        out[o++] = 0x30
        out[o++] = 0x78
        for (let j = i + 1; j <= i + len; j++) { out[o++] = HEX_DIGITS[stored[j]! >> 4]!; out[o++] = HEX_DIGITS[stored[j]! & 15]! }
        i += 1 + len
      }
    }
    return out
  }

  const encode = (data: Uint8Array): Uint8Array | null => {
    const n = data.length
    const out = new Uint8Array(n)
    let o = 0
    for (let i = 0; i < n;) {
      const b = data[i]!
      if (b < 0x20) return null // not JSON text
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
      const candidates = byFirst[b]!
      let taken = -1
      if (candidates !== null) {
        for (let c = 0; c < candidates.length; c++) {
          const k = candidates[c]!
          const p = bytes[k]!
          if (i + p.length > n) continue
          let j = 1
          while (j < p.length && data[i + j] === p[j]) j++
          if (j === p.length) { taken = k; break }
        }
      }
      if (taken >= 0) { out[o++] = FIRST_PHRASE + taken; i += bytes[taken]!.length } else { out[o++] = b; i++ }
    }
    if (o >= n) return null // no smaller (each step writes at most what it reads)
    const stored = out.subarray(0, o)
    const back = decode(stored)
    if (back.length !== n) return null
    for (let i = 0; i < n; i++) if (back[i] !== data[i]) return null
    return stored
  }
  return { encode, decode }
}

