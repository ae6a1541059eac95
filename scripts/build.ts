// The single executable dist/taskgate: src/main.ts and the worker entry points, with the
// migrations, the admin console (dist/ui, built first by scripts/build.sh) and the empty migrated
// database a new data dir starts from (dist/schema, built here: src/db/template.ts) embedded.
//   bun scripts/build.ts [outfile]      (TASKGATE_BUILD_MINIFY=0: readable names in CPU profiles)
// jitPolicy 1000: the JIT waits 1000× longer before compiling while the server starts (code that
// runs once); `serve` restores the normal policy once it listens (src/main.ts).
// One import is redirected: viem's keccak256 takes `keccak_256` from src/lib/viem-keccak.ts (the
// WebAssembly keccak, same digests) instead of @noble/hashes' pure-JavaScript one, which was about
// three quarters of viem's EIP-712 struct hashing (docs/performance.md).
import type { BunPlugin } from 'bun'
import { mkdirSync } from 'node:fs'
import { resolve } from 'node:path'
import { buildTemplate, TEMPLATE_DIR } from '../src/db/template'

const ROOT = resolve(import.meta.dir, '..')
const outfile = process.argv[2] ?? 'dist/taskgate'

const viemKeccak: BunPlugin = {
  name: 'viem-keccak',
  setup(build) {
    let redirected = 0
    build.onResolve({ filter: /^@noble\/hashes\/sha3(\.js)?$/ }, (args) => {
      if (!/[\\/]viem[\\/]_esm[\\/]utils[\\/]hash[\\/]keccak256\.js$/.test(args.importer)) return undefined
      redirected++
      return { path: resolve(ROOT, 'src/lib/viem-keccak.ts') }
    })
    build.onEnd(() => {
      // viem moved its keccak import: fail loudly rather than ship the slow path unnoticed.
      if (redirected === 0) throw new Error('scripts/build.ts: viem\'s keccak256 import of @noble/hashes/sha3 was not found')
    })
  },
}

// The empty database a new data dir starts from (src/db/template.ts), made by the same migrations.
mkdirSync(resolve(ROOT, TEMPLATE_DIR), { recursive: true })
buildTemplate(resolve(ROOT, TEMPLATE_DIR, 'taskgate.db'))

const result = await Bun.build({
  entrypoints: ['src/main.ts', 'src/chain/sign-worker.ts', 'src/db/checkpoint-worker.ts', 'src/db/pg/worker.ts'].map((p) => resolve(ROOT, p)),
  root: resolve(ROOT, 'src'), // workers are embedded at their path under src/ (src/lib/worker-url.ts)
  format: 'esm',
  minify: process.env.TASKGATE_BUILD_MINIFY !== '0',
  bytecode: true,
  plugins: [viemKeccak],
  compile: {
    outfile: resolve(ROOT, outfile),
    assets: ['dist/ui', 'migrations', TEMPLATE_DIR],
    autoloadDotenv: false,
    autoloadBunfig: false,
    jitPolicy: 1000,
  },
})
if (!result.success) {
  for (const m of result.logs) console.error(m)
  process.exit(1)
}
