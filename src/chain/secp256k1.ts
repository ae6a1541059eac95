// The secp256k1 signers a digest can be signed with: libsecp256k1 as a native addon
// (src/chain/secp256k1-native.ts) where one is prebuilt for the platform, else noble, what viem
// signs with (src/chain/typed-data.ts, nobleSign). Both give the same RFC 6979 signatures with low
// S, byte for byte; the addon is used only once it reproduces a known answer.
import { bytesToHex, hexToBytes, type Hex } from 'viem'

/** Signs a 32-byte digest: r ‖ s ‖ v (0x1b or 0x1c), as viem's `sign({ hash, privateKey, to: 'hex' })`. */
export type HashSigner = (hash: Hex, privateKey: Hex) => Hex | Promise<Hex>

/** The library a signer came from (the `taskgate_signing_library` metric's label). */
export type SigningLibrary = 'libsecp256k1-native' | 'noble'

/**
 * A known answer, made by viem's sign (test/unit/typed-data.test.ts recomputes it): a loaded
 * library must reproduce it before it signs anything (without building noble's tables for a
 * comparison).
 */
export const KNOWN_ANSWER = {
  privateKey: '0x95b6a4c9f443bd39b336d8d2e8f8f176306765fa40fba0321076779a5051dafc',
  hash: '0x93cdbd6febf7346dbe6a801979925e8f65e29277856b5ed0501f00c617055d1d',
  signature: '0xd0629d88a984336f0d9c73949f9ed833a09b3fec5643fe2fbcd80f7b04136ac961e90ad20559694d5b51b0b25b20da63a0300f094c81052f7fb74b436a207a261c',
} as const

/** A library's recoverable ECDSA over a 32-byte digest with a 32-byte key (r ‖ s and the recovery id). */
export type RecoverableSign = (digest: Uint8Array, key: Uint8Array) => { signature: Uint8Array; recovery: number }

/**
 * A HashSigner over a library's recoverable signature (hex in, r ‖ s ‖ v out, the key's bytes kept),
 * when it gives the known answer; otherwise null.
 */
export function hashSigner(sign: RecoverableSign): HashSigner | null {
  const keys = new Map<Hex, Uint8Array>() // one key per process in practice
  const signer = (hash: Hex, privateKey: Hex): Hex => {
    let key = keys.get(privateKey)
    if (!key) keys.set(privateKey, (key = hexToBytes(privateKey)))
    const digest = hexToBytes(hash)
    if (digest.length !== 32 || key.length !== 32) throw new Error('secp256k1: a digest and a private key are 32 bytes')
    const { signature, recovery } = sign(digest, key)
    return `${bytesToHex(signature)}${recovery === 0 ? '1b' : '1c'}` as Hex
  }
  try {
    return signer(KNOWN_ANSWER.hash, KNOWN_ANSWER.privateKey) === KNOWN_ANSWER.signature ? signer : null
  } catch { return null }
}

/** libsecp256k1's native addon where it loads here; null otherwise (noble signs). */
export async function loadLibsecp256k1(): Promise<{ sign: HashSigner; library: SigningLibrary } | null> {
  const { loadNativeSigner } = await import('./secp256k1-native')
  const native = loadNativeSigner()
  return native ? { sign: native, library: 'libsecp256k1-native' } : null
}
