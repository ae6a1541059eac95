// TaskGate never calls this: only createHeliaLight is used (see package.json here).
export function withBitswap () {
  throw new Error('@helia/bitswap is not installed in TaskGate (npm-stubs/helia-bitswap): use createHeliaLight')
}
