// The admin console is served as one bundle built from the current ui/ sources (never a stale
// build), within its size budget, revalidated by ETag; the module sources themselves are not served.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { BUDGET_GZIP_BYTES, buildUi, consoleGzipBytes } from '../../scripts/build-ui'
import { startServer, type TestServer } from '../helpers/server'

let s: TestServer

describe('admin console bundle', () => {
  beforeAll(async () => { s = await startServer() }, 30_000)
  afterAll(async () => { await s?.cleanup() })

  test('the server serves what the bundler builds from the current sources', async () => {
    const built = new Map((await buildUi()).map((f) => [f.name, new TextDecoder().decode(f.body)]))
    for (const name of ['app.js', 'app.css', 'index.html']) {
      const r = await fetch(`${s.url}/${name}`)
      expect(r.status).toBe(200)
      expect(await r.text()).toBe(built.get(name)!)
    }
    // one self-contained module: no import statement (the text "import …" may appear in strings: the connect snippets)
    expect(built.get('app.js')).not.toMatch(/(?:^|[;}\n])\s*import\s*(?:[{*"']|[\w$]+\s*(?:,|from\b))/)
    expect('x;import{a}from"./b.js"').toMatch(/(?:^|[;}\n])\s*import\s*(?:[{*"']|[\w$]+\s*(?:,|from\b))/) // what it looks for, minified
    expect(await (await fetch(`${s.url}/`)).text()).toBe(built.get('index.html')!)
  })

  test('module sources are not served; only the bundle is', async () => {
    for (const path of ['/main.js', '/lib/router.js', '/pages/agents.js', '/components/header.js']) {
      expect((await fetch(`${s.url}${path}`)).status).toBe(404)
    }
  })

  test('a browser revalidates with the ETag and gets gzip when it asks for it', async () => {
    const first = await fetch(`${s.url}/app.js`, { headers: { 'accept-encoding': 'identity' } })
    const etag = first.headers.get('etag')!
    expect(etag).toMatch(/^".+"$/)
    expect(first.headers.get('cache-control')).toBe('no-cache')
    expect((await fetch(`${s.url}/app.js`, { headers: { 'if-none-match': etag } })).status).toBe(304)
    const gz = await fetch(`${s.url}/app.js`, { headers: { 'accept-encoding': 'gzip' }, decompress: false } as RequestInit)
    expect(gz.headers.get('content-encoding')).toBe('gzip')
    expect(new TextDecoder().decode(Bun.gunzipSync(new Uint8Array(await gz.arrayBuffer())))).toBe(await first.text())
  })

  test('the console stays within its gzipped size budget', async () => {
    const bytes = consoleGzipBytes(await buildUi())
    expect(bytes).toBeGreaterThan(1000)
    expect(bytes).toBeLessThan(BUDGET_GZIP_BYTES)
  })
})
