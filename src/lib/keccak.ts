// keccak-256 through hash-wasm's WebAssembly keccak: the same digests as @noble/hashes (pure
// JavaScript, what viem uses) 6–13 times faster (32 B: 6.5 → 1.0 µs; 2 kB: 78 → 6 µs). Used for
// the hashes the pipeline computes for every task (verification record, prompt and output, the
// state-root chain, the attestation's salt and UID) and, in the compiled binary, by viem itself:
// scripts/build.ts points viem's keccak256 at keccakBytes (src/lib/viem-keccak.ts), so EIP-712
// hashing on the signing worker uses it too. test/unit/keccak.test.ts checks equality with noble
// on inputs of 0 B to 20 kB.
//
// The WebAssembly module is compiled at the first hash, not at start (compiling it brought ~3 MB of
// the runtime's WebAssembly code into memory, for a gateway that may sit idle); hashes asked for
// before it is ready are computed by noble's keccak, which gives the same digests.
import { keccak_256 as jsKeccak } from '@noble/hashes/sha3'
import { bytesToHex } from '@noble/hashes/utils'
import { createKeccak, type IHasher } from 'hash-wasm'

type Hex = `0x${string}`

let hasher: IHasher | null = null // one instance: every call runs to completion synchronously
let loading: Promise<void> | null = null

/** Resolves once the WebAssembly keccak is in use (the first hash starts loading it). */
export function keccakReady(): Promise<void> {
  return (loading ??= createKeccak(256).then((h) => { hasher = h }))
}

/**
 * keccak256 of bytes, or of the UTF-8 bytes of a string, as 32 bytes (a new array). With
 * `startLoading` false a hash before the module is ready does not start loading it: viem hashes at
 * start-up (addresses), which must not pull the module into an idle gateway.
 */
export function keccakBytes(data: Uint8Array | string, startLoading = true): Uint8Array {
  if (!hasher) {
    if (startLoading) void keccakReady()
    return jsKeccak(data)
  }
  hasher.init()
  hasher.update(data)
  return hasher.digest('binary')
}

/** keccak256 of bytes, or of the UTF-8 bytes of a string (not hex: use hexToBytes for that). */
export function keccak256(data: Uint8Array | string): Hex {
  if (!hasher) return `0x${bytesToHex(keccakBytes(data))}`
  hasher.init()
  hasher.update(data)
  return `0x${hasher.digest('hex')}`
}
