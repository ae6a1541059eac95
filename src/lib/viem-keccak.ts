// What viem's keccak256 (viem/_esm/utils/hash/keccak256.js) imports as `keccak_256` from
// @noble/hashes/sha3 in the compiled binary (scripts/build.ts): the WebAssembly keccak of
// src/lib/keccak.ts, same digests, once something loaded it (the pipeline's first hash, the signing
// worker's start); noble's until then. Only that one import is redirected; nothing else in the tree.
import { keccakBytes } from './keccak'

export const keccak_256 = (data: Uint8Array): Uint8Array => keccakBytes(data, false)
