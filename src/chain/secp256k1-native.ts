// ECDSA over secp256k1 through libsecp256k1 as a native library (the `secp256k1` package's
// prebuilt Node-API addon, bitcoin-core's C library): the same RFC 6979 signatures, low S, as viem's
// sign (noble), byte for byte (test/unit/typed-data.test.ts), at ~34 µs a digest where noble takes
// ~114 (docs/performance.md). Platforms without a prebuilt addon sign with noble.
//
// In the compiled binary the addons are embedded files. Bun would extract an embedded addon to a
// fixed name in the shared temporary directory and load whatever file it finds there, so an addon
// is copied here into a new private directory (mkdtemp, mode 0700), loaded, and deleted at once
// (the loaded library stays mapped).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { embeddedPath } from '../lib/worker-url'
import { prebuilds } from './secp256k1-prebuilds'
import { hashSigner, type HashSigner } from './secp256k1'

interface Addon { ecdsaSign(out: { signature: Uint8Array; recid: number | null }, msg32: Uint8Array, seckey: Uint8Array, data?: Uint8Array, noncefn?: unknown): number }

function open(path: string): Addon | null {
  let dir: string | null = null
  try {
    let file = path
    if (embeddedPath(path)) {
      dir = mkdtempSync(join(tmpdir(), 'taskgate-secp256k1-'))
      file = join(dir, 'secp256k1.node')
      writeFileSync(file, readFileSync(path), { mode: 0o700, flag: 'wx' })
    }
    const mod = { exports: {} as { Secp256k1?: new () => Addon } }
    process.dlopen(mod, file)
    return mod.exports.Secp256k1 ? new mod.exports.Secp256k1() : null
  } catch {
    return null // another libc's build, or no temporary directory to write to
  } finally {
    if (dir) try { rmSync(dir, { recursive: true, force: true }) } catch { /* left for the OS to clean */ }
  }
}

/** libsecp256k1's native signer, or null when no addon for this platform loads and gives the known answer. */
export function loadNativeSigner(paths: string[] = prebuilds()): HashSigner | null {
  for (const path of paths) {
    const addon = open(path)
    if (!addon) continue
    const signer = hashSigner((digest, key) => {
      const out = { signature: new Uint8Array(64), recid: null as number | null }
      if (addon.ecdsaSign(out, digest, key) !== 0) throw new Error('secp256k1: the private key is invalid')
      return { signature: out.signature, recovery: out.recid! }
    })
    if (signer) return signer
  }
  return null
}
