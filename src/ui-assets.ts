// Serves the admin console (docs/console.md) from memory: the files scripts/build-ui.ts built.
// In the compiled binary they are embedded (dist/ui, `--asset dist/ui`); from a checkout the
// server bundles ui/ itself at start, so it never serves a stale bundle.
import { readdirSync } from 'node:fs'
import { join } from 'node:path'

interface UiFile { name: string; body: Uint8Array<ArrayBuffer> }
/** A console file; its gzip encoding is made at the first request that accepts it (not at start: ~6 ms). */
export interface Served { body: Uint8Array<ArrayBuffer>; gzip?: Uint8Array<ArrayBuffer>; type: string; etag: string }

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8', js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8',
  json: 'application/json', svg: 'image/svg+xml', png: 'image/png', ico: 'image/x-icon',
}

const embedded = import.meta.dir.startsWith('/$bunfs')

async function readUi(): Promise<UiFile[]> {
  if (embedded) {
    const dir = join(import.meta.dir, 'ui') // `--asset dist/ui` embeds it as /$bunfs/root/ui
    return Promise.all(readdirSync(dir).map(async (name) => ({ name, body: await Bun.file(join(dir, name)).bytes() })))
  }
  // A path the compiler does not follow: the builder is a build-time tool, not part of the binary.
  const builder = join(import.meta.dir, '..', 'scripts', 'build-ui.ts')
  const { buildUi } = await import(builder) as { buildUi(): Promise<UiFile[]> }
  return buildUi()
}

function serve(files: UiFile[]): Map<string, Served> {
  const out = new Map<string, Served>()
  for (const f of files) {
    const ext = f.name.slice(f.name.lastIndexOf('.') + 1)
    const etag = `"${Bun.hash(f.body).toString(36)}"`
    out.set(`/${f.name}`, { body: f.body, type: TYPES[ext] ?? 'application/octet-stream', etag })
  }
  const index = out.get('/index.html')
  if (index) out.set('/', index)
  return out
}

/** The console's files by URL path ('/', '/app.js', …), bundled now when running from a checkout. */
export async function loadUiAssets(): Promise<Map<string, Served>> {
  return serve(await readUi())
}

/** Answers with a console file; revalidated on every load (names stay the same between versions), 304 while unchanged. */
export function uiResponse(f: Served, request: Request, status = 200): Response {
  const headers: Record<string, string> = { 'content-type': f.type, etag: f.etag, 'cache-control': 'no-cache', vary: 'accept-encoding' }
  if (status === 200 && request.headers.get('if-none-match') === f.etag) return new Response(null, { status: 304, headers })
  if (/\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')) return new Response(f.gzip ??= Bun.gzipSync(f.body), { status, headers: { ...headers, 'content-encoding': 'gzip' } })
  return new Response(f.body, { status, headers })
}
