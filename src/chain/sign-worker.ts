// Signs EIP-712 typed data off the main thread (hashing and secp256k1 signing cost ~0.6 ms per
// signature; two per task). Started by Signer at the first signature; the key arrives in the first
// message, and the worker answers `ready` once it can sign. It signs with libsecp256k1 in
// WebAssembly (src/chain/secp256k1-wasm.ts) once that loaded and gave its known answer; otherwise
// with noble, as the main thread does. A request carries the message and the number of its domain,
// types and primary type, which the main thread sends once per worker (`template`).
import { keccakReady } from '../lib/keccak'
import { loadWasmSigner, type HashSigner } from './secp256k1-wasm'
import { nobleSign, signTypedDataCached } from './typed-data'

Bun.unsafe.setJITPolicy(1) // signing is hot code: the normal JIT policy, whatever the binary started with (scripts/build.ts)
declare const self: Worker
let privateKey: `0x${string}` | null = null
let signHash: HashSigner = nobleSign
type TypedData = Parameters<typeof signTypedDataCached>[1]
/** Domain, types and primary type by the number the main thread gave them (sent once each; src/chain/signer.ts). */
const templates = new Map<number, Omit<TypedData, 'message'>>()

self.onmessage = async (e: MessageEvent) => {
  const m = e.data as { init?: `0x${string}`; template?: number; domain?: TypedData['domain']; types?: TypedData['types']; primaryType?: string; id?: number; t?: number; message?: Record<string, unknown> }
  if (m.template !== undefined) {
    templates.set(m.template, { domain: m.domain, types: m.types!, primaryType: m.primaryType! } as Omit<TypedData, 'message'>)
    return
  }
  if (m.init) {
    privateKey = m.init
    await keccakReady() // the WebAssembly keccak that viem hashes with in the binary (src/lib/viem-keccak.ts)
    // The signer loads before `ready` (~25 ms); until then the main thread signs.
    signHash = (await loadWasmSigner()) ?? nobleSign
    await signTypedDataCached(privateKey, { domain: { name: 'warm-up' }, types: { W: [{ name: 'w', type: 'uint8' }] }, primaryType: 'W', message: { w: 0 } }, signHash)
    self.postMessage({ ready: true, library: signHash === nobleSign ? 'noble' : 'libsecp256k1' })
    return
  }
  try {
    const signature = await signTypedDataCached(privateKey!, { ...templates.get(m.t!)!, message: m.message! } as TypedData, signHash)
    self.postMessage({ id: m.id, signature })
  } catch (err) {
    self.postMessage({ id: m.id, error: (err as Error).message })
  }
}
