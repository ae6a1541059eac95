// What viem's keccak256 (viem/_esm/utils/hash/keccak256.js) imports as `keccak_256` from
// @noble/hashes/sha3 in the compiled binary (scripts/build.ts): the WebAssembly keccak of
// src/lib/keccak.ts, same digests. Only that one import is redirected; nothing else in the tree.
export { keccakBytes as keccak_256 } from './keccak'
