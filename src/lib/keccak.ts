// keccak-256 for the hashes the pipeline computes on the main thread for every task (verification
// record, prompt and output, the state-root chain, the attestation's salt and UID). hash-wasm's
// WebAssembly keccak gives the same digests as viem's (@noble/hashes, pure JavaScript) 6–13 times
// faster (32 B: 6.5 → 1.0 µs; 2 kB: 78 → 6 µs): about a tenth of the main thread's time per task
// went to keccak. test/unit/keccak.test.ts checks equality with viem on inputs of 0 B to 20 kB.
//
// The WebAssembly module is compiled at the first hash, not at start (compiling it brought ~3 MB of
// the runtime's WebAssembly code into memory, for a gateway that may sit idle); hashes asked for
// before it is ready are computed by viem's keccak, which gives the same digests.
import { createKeccak, type IHasher } from 'hash-wasm'
import { keccak256 as jsKeccak256, stringToBytes, type Hex } from 'viem'

let hasher: IHasher | null = null // one instance: every call runs to completion synchronously
let loading: Promise<void> | null = null

/** Resolves once the WebAssembly keccak is in use (the first hash starts loading it). */
export function keccakReady(): Promise<void> {
  return (loading ??= createKeccak(256).then((h) => { hasher = h }))
}

/** keccak256 of bytes, or of the UTF-8 bytes of a string (not hex: use hexBytes for that). */
export function keccak256(data: Uint8Array | string): Hex {
  if (!hasher) {
    void keccakReady()
    return jsKeccak256(typeof data === 'string' ? stringToBytes(data) : data)
  }
  hasher.init()
  hasher.update(data)
  return `0x${hasher.digest('hex')}`
}
