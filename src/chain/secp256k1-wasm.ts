// ECDSA over secp256k1 through libsecp256k1 compiled to WebAssembly (tiny-secp256k1, bitcoinjs):
// the same RFC 6979 signatures, low S, as viem's sign (noble secp256k1), byte for byte
// (test/unit/typed-data.test.ts), and on the signing worker a task's CPU falls by about a sixth
// (docs/performance.md). Loaded by the signing worker only: compiling the 1.2 MB module belongs off
// the main thread and out of start-up. In the compiled binary the module is embedded
// (scripts/build.ts); from source, tiny-secp256k1 reads it next to itself.
import { bytesToHex, hexToBytes, type Hex } from 'viem'

/** Signs a 32-byte digest: r ‖ s ‖ v (0x1b or 0x1c), as viem's `sign({ hash, privateKey, to: 'hex' })`. */
export type HashSigner = (hash: Hex, privateKey: Hex) => Hex | Promise<Hex>

/**
 * A known answer, made by viem's sign (test/unit/typed-data.test.ts recomputes it): the loaded
 * module must reproduce it before it signs anything (without building noble's tables for a
 * comparison on the worker).
 */
export const KNOWN_ANSWER = {
  privateKey: '0x95b6a4c9f443bd39b336d8d2e8f8f176306765fa40fba0321076779a5051dafc',
  hash: '0x93cdbd6febf7346dbe6a801979925e8f65e29277856b5ed0501f00c617055d1d',
  signature: '0xd0629d88a984336f0d9c73949f9ed833a09b3fec5643fe2fbcd80f7b04136ac961e90ad20559694d5b51b0b25b20da63a0300f094c81052f7fb74b436a207a261c',
} as const

/** libsecp256k1's signer, or null when the module does not load or does not give the known answer. */
export async function loadWasmSigner(): Promise<HashSigner | null> {
  let ecc: typeof import('tiny-secp256k1')
  try { ecc = await import('tiny-secp256k1') } catch { return null }
  const keys = new Map<Hex, Uint8Array>() // one key per process in practice
  const signer = (hash: Hex, privateKey: Hex): Hex => {
    let d = keys.get(privateKey)
    if (!d) keys.set(privateKey, (d = hexToBytes(privateKey)))
    const { signature, recoveryId } = ecc.signRecoverable(hexToBytes(hash), d)
    return `${bytesToHex(signature)}${recoveryId === 0 ? '1b' : '1c'}` as Hex
  }
  try {
    return signer(KNOWN_ANSWER.hash, KNOWN_ANSWER.privateKey) === KNOWN_ANSWER.signature ? signer : null
  } catch { return null }
}
