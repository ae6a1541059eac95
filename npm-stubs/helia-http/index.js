// TaskGate never calls this: only createHeliaLight is used (see package.json here).
export function withHTTP () {
  throw new Error('@helia/http is not installed in TaskGate (npm-stubs/helia-http): use createHeliaLight')
}
