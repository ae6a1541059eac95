// GET /docs: the API reference. Scalar's standalone bundle (vendored in ./scalar/, see its
// README) renders /openapi.json; reference.js configures it (TypeScript examples, the console's
// session for "try it"). Every file is imported `with { type: 'file' }`, so the compiled binary
// carries them and the page never fetches anything from another origin.
import { createHash } from 'node:crypto'
import { t } from 'elysia'
import { ProblemError } from '../../http/errors'
import { defineRoute, type RouteDef } from '../../http/route'
import scalarPath from './scalar/standalone.js' with { type: 'file' }
import referenceCssPath from './reference.css' with { type: 'file' }
import referencePath from './reference.js' with { type: 'file' }

interface Loaded { bytes: Uint8Array<ArrayBuffer>; gzip?: Uint8Array<ArrayBuffer>; type: string }

/** Files under /docs/assets/, named by a hash of their content so they can be cached for good. */
const FILES = [
  { key: 'scalar', ext: 'js', type: 'text/javascript; charset=utf-8', path: scalarPath },
  { key: 'reference', ext: 'js', type: 'text/javascript; charset=utf-8', path: referencePath },
  { key: 'reference', ext: 'css', type: 'text/css; charset=utf-8', path: referenceCssPath },
] as const

const IMMUTABLE = 'public, max-age=31536000, immutable'

/**
 * Scripts only from this origin. Styles also from `<style>` elements: Scalar (Vue, CodeMirror, its
 * toasts) injects its CSS at run time, and only its main sheet carries the page's nonce, so styles
 * need 'unsafe-inline' while scripts stay strict.
 */
const DOCS_CSP = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

function page(asset: (key: string, ext: string) => string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>TaskGate API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${asset('reference', 'css')}">
</head>
<body data-openapi="/openapi.json">
<header class="tg-bar">
  <a class="tg-back" href="/">← Admin console</a>
  <span class="tg-session" id="tg-session" role="status"></span>
  <a class="tg-raw" href="/openapi.json">openapi.json</a>
</header>
<div id="reference"><p class="tg-loading">Loading the API reference…</p></div>
<noscript><p class="tg-loading">The reference needs JavaScript. The document itself is at <a href="/openapi.json">/openapi.json</a>.</p></noscript>
<script src="${asset('scalar', 'js')}"></script>
<script src="${asset('reference', 'js')}"></script>
</body>
</html>
`
}

/** Reads and names the files once, on the first request for the page or an asset. */
let loaded: Promise<{ html: string; assets: Map<string, Loaded> }> | null = null
function load() {
  loaded ??= (async () => {
    const assets = new Map<string, Loaded>()
    const names = new Map<string, string>()
    for (const f of FILES) {
      const bytes = new Uint8Array(await Bun.file(f.path).arrayBuffer())
      const name = `${f.key}-${createHash('sha256').update(bytes).digest('hex').slice(0, 12)}.${f.ext}`
      assets.set(name, { bytes, type: f.type })
      names.set(`${f.key}.${f.ext}`, `/docs/assets/${name}`)
    }
    return { html: page((key, ext) => names.get(`${key}.${ext}`)!), assets }
  })().catch((err) => { loaded = null; throw err }) // a failed read is tried again on the next request
  return loaded
}

const acceptsGzip = (r: Request) => /\bgzip\b/.test(r.headers.get('accept-encoding') ?? '')

export function docsRoutes(): RouteDef[] {
  const tags = ['System']
  return [
    defineRoute({
      method: 'GET', path: '/docs', auth: 'none', tags, summary: 'API reference (renders /openapi.json)', hidden: true,
      responses: { 200: { description: 'HTML' } },
      handler: async () => new Response((await load()).html, {
        headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': DOCS_CSP, 'cache-control': 'no-cache' },
      }),
    }),
    defineRoute({
      method: 'GET', path: '/docs/assets/:name', auth: 'none', tags, summary: 'A file of the API reference page', hidden: true,
      params: t.Object({ name: t.String({ maxLength: 100 }) }),
      responses: { 200: { description: 'the file' } },
      handler: async ({ params, request }) => {
        const a = (await load()).assets.get(params.name)
        if (!a) throw new ProblemError(404, 'ROUTE_NOT_FOUND', 'no such file of the API reference')
        const headers: Record<string, string> = { 'content-type': a.type, 'cache-control': IMMUTABLE, vary: 'accept-encoding' }
        if (acceptsGzip(request)) {
          a.gzip ??= Bun.gzipSync(a.bytes)
          return new Response(a.gzip, { headers: { ...headers, 'content-encoding': 'gzip' } })
        }
        return new Response(a.bytes, { headers })
      },
    }),
  ]
}
