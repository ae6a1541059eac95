// TaskGate never starts libp2p: only createHeliaLight is used (see package.json here).
export function withLibp2p () {
  throw new Error('libp2p is not installed in TaskGate (npm-stubs/helia-libp2p): use createHeliaLight')
}
export const withLibp2pLight = withLibp2p
export function libp2pDefaults () {
  throw new Error('libp2p is not installed in TaskGate (npm-stubs/helia-libp2p)')
}
