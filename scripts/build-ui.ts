// Builds the admin console with Bun's bundler: ui/main.js → app.js and ui/app.css → app.css
// (browser target, ESM, minified); the other top-level files of ui/ (index.html, docs.*) are
// served as they are. ui/lib/, ui/components/, ui/pages/ and ui/styles/ are bundle sources only.
//
//   bun scripts/build-ui.ts [outDir]   writes the files (default dist/ui, embedded by scripts/build.sh)
//                                      and prints their sizes; fails over the size budget.
// A server running from a checkout calls buildUi() itself (src/ui-assets.ts), so it always serves
// the current source.
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export interface UiFile { name: string; body: Uint8Array<ArrayBuffer> }

/** The console's JavaScript and CSS, gzipped, must stay under this (a chart library included). */
export const BUDGET_GZIP_BYTES = 150 * 1024

const ROOT = join(import.meta.dir, '..')
/** The two bundles; everything else at the top of ui/ is served as it is. */
const BUNDLED = ['app.js', 'app.css']

async function bundle(entry: string): Promise<Bun.BuildArtifact[]> {
  const r = await Bun.build({ entrypoints: [entry], target: 'browser', format: 'esm', minify: true, sourcemap: 'none', splitting: false })
  if (!r.success) throw new AggregateError(r.logs, `bundling ${entry} failed:\n${r.logs.map(String).join('\n')}`)
  return r.outputs
}

const bytes = async (o: Blob) => new Uint8Array(await o.arrayBuffer())

/** Every file the console serves, built from the sources in `root`/ui. */
export async function buildUi(root = ROOT): Promise<UiFile[]> {
  const dir = join(root, 'ui')
  const [js, css] = await Promise.all([bundle(join(dir, 'main.js')), bundle(join(dir, 'app.css'))])
  const scripts = js.filter((o) => o.path.endsWith('.js'))
  const jsStyles = js.filter((o) => o.path.endsWith('.css')) // stylesheets a module imports (uPlot's)
  if (scripts.length !== 1 || scripts.length + jsStyles.length !== js.length || css.length !== 1) {
    throw new Error(`the console bundles into one app.js and one app.css; got ${[...js, ...css].map((o) => o.path).join(', ')}`)
  }
  // Imported library styles first, so the console's own rules win.
  const styles = await Promise.all([...jsStyles, css[0]!].map(bytes))
  const files: UiFile[] = [
    { name: 'app.js', body: await bytes(scripts[0]!) },
    { name: 'app.css', body: new Uint8Array(await new Blob(styles.flatMap((b, i) => (i ? ['\n', b] : [b]))).arrayBuffer()) },
  ]
  for (const name of readdirSync(dir).sort()) {
    if (name === 'main.js' || name === 'app.css' || !statSync(join(dir, name)).isFile()) continue
    files.push({ name, body: await Bun.file(join(dir, name)).bytes() })
  }
  return files
}

export const gzipSize = (f: UiFile) => Bun.gzipSync(f.body).length

/** The console's own share: what a browser loads for it (index.html, app.js, app.css). */
export function consoleGzipBytes(files: UiFile[]): number {
  return files.filter((f) => f.name === 'index.html' || BUNDLED.includes(f.name)).reduce((n, f) => n + gzipSize(f), 0)
}

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`

if (import.meta.main) {
  const outDir = process.argv[2] ?? join(ROOT, 'dist', 'ui')
  const t0 = performance.now()
  const files = await buildUi()
  rmSync(outDir, { recursive: true, force: true })
  mkdirSync(outDir, { recursive: true })
  for (const f of files) {
    writeFileSync(join(outDir, f.name), f.body)
    const bundled = BUNDLED.includes(f.name)
    console.log(`  ${f.name.padEnd(12)} ${kb(f.body.length).padStart(9)}  ${kb(gzipSize(f)).padStart(9)} gzipped${bundled ? '  (bundled)' : ''}`)
  }
  const total = consoleGzipBytes(files)
  console.log(`console (index.html + app.js + app.css): ${kb(total)} gzipped, budget ${kb(BUDGET_GZIP_BYTES)}; built in ${Math.round(performance.now() - t0)} ms → ${outDir}`)
  if (total >= BUDGET_GZIP_BYTES) {
    console.error('the console is over its size budget (docs/console.md)')
    process.exit(1)
  }
}
