// Where libsecp256k1's native addons for this platform are (the `secp256k1` package's prebuilt
// Node-API modules: linux-x64 with glibc and with musl, darwin-arm64, win32-x64), most likely
// first. From source they are read from node_modules. In the compiled binary this module is
// replaced (scripts/build.ts) by one that embeds the build platform's addons as files.
import { existsSync, readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'

export function prebuilds(): string[] {
  let root: string
  try { root = dirname(require.resolve('secp256k1/package.json')) } catch { return [] }
  const dir = join(root, 'prebuilds', `${process.platform}-${process.arch}`)
  if (!existsSync(dir)) return []
  return readdirSync(dir).filter((f) => f.endsWith('.node')).sort(byLibc).map((f) => join(dir, f))
}

/** glibc's addon before musl's (a glibc system is the usual one; on musl the first fails to load and the next is tried). */
function byLibc(a: string, b: string): number {
  return Number(a.includes('musl')) - Number(b.includes('musl')) || a.localeCompare(b)
}
