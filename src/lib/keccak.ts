// keccak-256 for the hashes the pipeline computes on the main thread for every task (verification
// record, prompt and output, the state-root chain, the attestation's salt and UID). hash-wasm's
// WebAssembly keccak gives the same digests as viem's (@noble/hashes, pure JavaScript) 6–13 times
// faster (32 B: 6.5 → 1.0 µs; 2 kB: 78 → 6 µs): about a tenth of the main thread's time per task
// went to keccak. test/unit/keccak.test.ts checks equality with viem on inputs of 0 B to 20 kB.
import { createKeccak } from 'hash-wasm'
import type { Hex } from 'viem'

const hasher = await createKeccak(256) // one instance: every call runs to completion synchronously

/** keccak256 of bytes, or of the UTF-8 bytes of a string (not hex: use hexBytes for that). */
export function keccak256(data: Uint8Array | string): Hex {
  hasher.init()
  hasher.update(data)
  return `0x${hasher.digest('hex')}`
}
