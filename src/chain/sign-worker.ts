// Signs EIP-712 typed data off the main thread (hashing and secp256k1 signing cost ~0.3 ms per
// signature in pure JS; two per task). Started by Signer at the first signature; the key arrives
// in the first message, and the worker answers `ready` once it can sign.
import { keccakReady } from '../lib/keccak'
import { signTypedDataCached } from './typed-data'

Bun.unsafe.setJITPolicy(1) // signing is hot code: the normal JIT policy, whatever the binary started with (scripts/build.ts)
declare const self: Worker
let privateKey: `0x${string}` | null = null

self.onmessage = async (e: MessageEvent) => {
  const m = e.data as { init?: `0x${string}`; id?: number; typedData?: Parameters<typeof signTypedDataCached>[1] }
  if (m.init) {
    privateKey = m.init
    await keccakReady() // the WebAssembly keccak that viem hashes with in the binary (src/lib/viem-keccak.ts)
    // One signature before `ready` builds this thread's secp256k1 tables (~25 ms); until then the main thread signs.
    await signTypedDataCached(privateKey, { domain: { name: 'warm-up' }, types: { W: [{ name: 'w', type: 'uint8' }] }, primaryType: 'W', message: { w: 0 } })
    self.postMessage({ ready: true })
    return
  }
  try {
    const signature = await signTypedDataCached(privateKey!, m.typedData!)
    self.postMessage({ id: m.id, signature })
  } catch (err) {
    self.postMessage({ id: m.id, error: (err as Error).message })
  }
}
