// Signs EIP-712 typed data off the main thread (hashing and secp256k1 signing cost ~0.6 ms per
// signature; two per task). Started by Signer at the first signature; the key arrives in the first
// message, and the worker answers `ready` once it can sign. The first message carries the key and
// the domain, types and primary type of each kind of document; a request carries only the kind and
// the message.
import { keccakReady } from '../lib/keccak'
import { signTypedDataCached } from './typed-data'
import type { DocumentKind, DocumentType } from './signer'

Bun.unsafe.setJITPolicy(1) // signing is hot code: the normal JIT policy, whatever the binary started with (scripts/build.ts)
declare const self: Worker
let privateKey: `0x${string}` | null = null
type TypedData = Parameters<typeof signTypedDataCached>[1]
let documents: Record<DocumentKind, DocumentType> | null = null

self.onmessage = async (e: MessageEvent) => {
  const m = e.data as { init?: `0x${string}`; documents?: Record<DocumentKind, DocumentType>; id?: number; kind?: DocumentKind; message?: Record<string, unknown> }
  if (m.init) {
    privateKey = m.init
    documents = m.documents!
    await keccakReady() // the WebAssembly keccak that viem hashes with in the binary (src/lib/viem-keccak.ts)
    // One signature before `ready` builds noble's tables here; until then the main thread signs.
    await signTypedDataCached(privateKey, { domain: { name: 'warm-up' }, types: { W: [{ name: 'w', type: 'uint8' }] }, primaryType: 'W', message: { w: 0 } })
    self.postMessage({ ready: true })
    return
  }
  try {
    const signature = await signTypedDataCached(privateKey!, { ...documents![m.kind!], message: m.message! } as TypedData)
    self.postMessage({ id: m.id, signature })
  } catch (err) {
    self.postMessage({ id: m.id, error: (err as Error).message })
  }
}
