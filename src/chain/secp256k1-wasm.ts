// ECDSA over secp256k1 through libsecp256k1 compiled to WebAssembly (tiny-secp256k1, bitcoinjs):
// the same RFC 6979 signatures, low S, as viem's sign (noble secp256k1), byte for byte
// (test/unit/typed-data.test.ts), and on the signing worker a task's CPU falls by about a sixth
// (docs/performance.md). The fallback where no native addon loads (src/chain/secp256k1.ts), on the
// signing worker only: compiling the 1.2 MB module belongs off the main thread. In the compiled
// binary the module is embedded (scripts/build.ts); from source, tiny-secp256k1 reads it next to itself.
import { hashSigner, type HashSigner } from './secp256k1'

/** libsecp256k1's signer, or null when the module does not load or does not give the known answer. */
export async function loadWasmSigner(): Promise<HashSigner | null> {
  let ecc: typeof import('tiny-secp256k1')
  try { ecc = await import('tiny-secp256k1') } catch { return null }
  return hashSigner((digest, key) => {
    const { signature, recoveryId } = ecc.signRecoverable(digest, key)
    return { signature, recovery: recoveryId }
  })
}
