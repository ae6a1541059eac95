// The API reference at /docs (Scalar's standalone bundle, embedded) in a real browser (Debian's
// Chromium through playwright-core): offline (every request to another host is aborted and
// recorded), every tag and operation listed, curl and TypeScript examples, and "try it" signed in
// with the console's session or with a pasted API key. Skipped, loudly, when no Chromium is installed.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { get } from 'node:http'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import { CHROMIUM, chromiumFor } from '../helpers/chromium'
import { startServer, type TestServer } from '../helpers/server'

const available = chromiumFor('API reference browser tests')

// What the console (ui/app.js `session`) writes to sessionStorage when an operator signs in.
const TOKEN_KEY = 'taskgate.accessToken'
const TOKEN_EXP_KEY = 'taskgate.accessTokenExpiresAt'
const ME = '[id$="/GET/api/v1/auth/me"]' // the operation's section in the reference

let s: TestServer
let browser: Browser
let token: string
const outside: string[] = [] // requests the pages tried to send off this machine
const pageErrors: string[] = []

/** A browser context whose requests to any host but the test server's are aborted and recorded. */
async function offlineContext(colorScheme: 'light' | 'dark' = 'light'): Promise<BrowserContext> {
  const ctx = await browser.newContext({ colorScheme, viewport: { width: 1400, height: 900 } })
  await ctx.route('**/*', (route) => {
    const url = route.request().url()
    const host = new URL(url).hostname
    if (url.startsWith('data:') || url.startsWith('blob:') || host === '127.0.0.1') return route.continue()
    outside.push(url)
    return route.abort()
  })
  // Requests the page's CSP blocks never reach the network layer: record those attempts too.
  await ctx.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      if (e.blockedURI && /^https?:/.test(e.blockedURI)) console.error(`csp-blocked ${e.blockedURI}`)
    })
  })
  ctx.on('console', (m) => { if (m.text().startsWith('csp-blocked ')) outside.push(m.text().slice(12)) })
  ctx.on('page', (p) => p.on('pageerror', (e) => pageErrors.push(String(e))))
  return ctx
}

/** Opens /docs as the console's same-tab link does: this tab's sessionStorage holds the session. */
async function signedInPage(ctx: BrowserContext, accessToken: string): Promise<Page> {
  const page = await ctx.newPage()
  await page.goto(`${s.url}/healthz`) // same origin, so sessionStorage is the one /docs reads
  await page.evaluate(([k, ek, tok]) => {
    sessionStorage.setItem(k!, tok!)
    sessionStorage.setItem(ek!, String(Date.now() + 3_600_000))
  }, [TOKEN_KEY, TOKEN_EXP_KEY, accessToken])
  await page.goto(`${s.url}/docs#api-1/tag/auth/GET/api/v1/auth/me`)
  return page
}

/** Opens the operation's "try it" client, sends the request and returns the status line shown. */
async function tryIt(page: Page, operation: string, fill?: (page: Page) => Promise<void>): Promise<string> {
  const section = page.locator(operation).first()
  await section.waitFor({ timeout: 15_000 })
  await section.locator('button.show-api-client-button').click()
  await fill?.(page)
  await page.getByRole('button', { name: /^\s*Send/ }).first().click()
  const status = page.locator('text=/\\b\\d{3} (OK|Unauthorized)\\b/').first()
  await status.waitFor({ timeout: 15_000 })
  return (await status.textContent())!.trim()
}

beforeAll(async () => {
  s = await startServer()
  token = await s.signup('docs-reader')
}, 30_000)
afterAll(async () => { await s?.cleanup() })

/** GET without decompression (fetch hides content-encoding once it has decoded the body). */
function rawGet(url: string, encoding: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Uint8Array<ArrayBuffer> }> {
  return new Promise((done, fail) => {
    get(url, { headers: { 'accept-encoding': encoding } }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => done({ status: res.statusCode!, headers: res.headers, body: new Uint8Array(Buffer.concat(chunks)) }))
    }).on('error', fail)
  })
}

describe('/docs and its files over HTTP', () => {
  test('the page names its files by content hash; they are cached for good, typed and gzipped', async () => {
    const r = await fetch(`${s.url}/docs`)
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8')
    const csp = r.headers.get('content-security-policy')!
    expect(csp).toContain("script-src 'self';") // no inline or remote scripts
    expect(csp).toContain("connect-src 'self'")
    const html = await r.text()
    expect(html).toContain('/openapi.json')
    const files = [...html.matchAll(/(?:src|href)="(\/docs\/assets\/[^"]+)"/g)].map((m) => m[1]!)
    expect(files.map((f) => f.replace(/-[0-9a-f]{12}\./, '.')).sort()).toEqual(['/docs/assets/reference.css', '/docs/assets/reference.js', '/docs/assets/scalar.js'])
    for (const f of files) {
      const gz = await rawGet(`${s.url}${f}`, 'gzip')
      expect(gz.status).toBe(200)
      expect(gz.headers['cache-control']).toBe('public, max-age=31536000, immutable')
      expect(gz.headers['content-type']).toBe(f.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8')
      expect(gz.headers['content-encoding']).toBe('gzip')
      const plain = await rawGet(`${s.url}${f}`, 'identity')
      expect(plain.headers['content-encoding']).toBeUndefined()
      expect(Bun.gunzipSync(gz.body)).toEqual(plain.body)
    }
    const scalar = await (await fetch(`${s.url}${files.find((f) => f.includes('scalar'))}`)).text()
    expect(scalar).not.toMatch(/fonts\.googleapis|cdn\.jsdelivr|unpkg\.com/)
  })

  test('an unknown file is a 404 problem', async () => {
    const r = await fetch(`${s.url}/docs/assets/nope-000000000000.js`)
    expect(r.status).toBe(404)
    expect(r.headers.get('content-type')).toContain('application/problem+json')
    expect((await r.json()).code).toBe('ROUTE_NOT_FOUND')
  })
})

describe.skipIf(!available)('API reference (/docs) in a browser', () => {
  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM, headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    })
  }, 30_000)
  afterAll(async () => { await browser?.close() })

  test('lists every tag and the operations of a tag, with nothing fetched from another host', async () => {
    const ctx = await offlineContext()
    const page = await ctx.newPage()
    await page.goto(`${s.url}/docs`)
    const doc = (await s.get('/openapi.json')).body
    const ops = Object.values(doc.paths as Record<string, Record<string, { tags: string[]; summary: string }>>).flatMap((item) => Object.values(item))
    const tags = [...new Set(ops.flatMap((op) => op.tags))]
    expect(tags.length).toBeGreaterThan(10)
    const sidebar = page.locator('aside').first()
    await sidebar.locator('text=Liveness').waitFor({ timeout: 15_000 })
    const text = await sidebar.textContent()
    for (const tag of tags) expect(text).toContain(tag)
    await sidebar.getByText('Auth', { exact: true }).first().click()
    for (const path of ['/api/v1/auth/login', '/api/v1/auth/me', '/api/v1/whoami']) {
      const summary = Object.values(doc.paths[path] as Record<string, { summary: string }>)[0]!.summary
      await sidebar.getByText(summary, { exact: true }).first().waitFor()
    }
    await page.waitForLoadState('networkidle')
    expect(outside).toEqual([])
    expect(pageErrors).toEqual([])
    await ctx.close()
  }, 60_000)

  test('each operation shows a curl example, and a TypeScript (fetch) one', async () => {
    const ctx = await offlineContext()
    const page = await signedInPage(ctx, token)
    const section = page.locator(ME).first()
    await section.waitFor({ timeout: 15_000 })
    const curl = await section.locator('pre:has-text("curl")').first().textContent()
    expect(curl).toContain(`${s.url}/api/v1/auth/me`)
    expect(curl).toContain('Authorization: Bearer')
    await section.locator('[data-testid="client-picker"]').click()
    await page.getByText('TypeScript (fetch)', { exact: true }).first().click()
    const ts = (await section.locator('pre:has-text("await fetch(")').first().textContent())!
    expect(ts).toContain('`${baseUrl}/api/v1/auth/me`')
    expect(ts).toContain("method: 'GET'")
    expect(ts).toMatch(/effectiveTier: "FREE" \| "PRO" \| "ENTERPRISE"/) // typed from the response schema
    expect(ts).not.toContain(token) // examples read credentials from the environment
    expect(outside).toEqual([])
    await ctx.close()
  }, 60_000)

  test('the TypeScript example of an operation with a body and path parameters sends them', async () => {
    const ctx = await offlineContext()
    const page = await ctx.newPage()
    await page.goto(`${s.url}/docs#api-1/tag/agents/PATCH/api/v1/agents/{agentId}`)
    const section = page.locator('[id$="/PATCH/api/v1/agents/{agentId}"]').first()
    await section.waitFor({ timeout: 15_000 })
    await section.locator('[data-testid="client-picker"]').click()
    await page.getByText('TypeScript (fetch)', { exact: true }).first().click()
    const ts = (await section.locator('pre:has-text("await fetch(")').first().textContent())!
    expect(ts).toContain('encodeURIComponent(agentId)')
    expect(ts).toContain("method: 'PATCH'")
    expect(ts).toContain('body: JSON.stringify(')
    expect(ts).toContain("'content-type': 'application/json'")
    await ctx.close()
  }, 60_000)

  test('"try it" uses the console session from this tab: GET /api/v1/auth/me answers 200', async () => {
    const ctx = await offlineContext('dark')
    const page = await signedInPage(ctx, token)
    expect(await page.locator('#tg-session').textContent()).toContain('console session')
    expect(await tryIt(page, ME)).toContain('200 OK')
    expect(await page.locator('text=docs-reader').count()).toBeGreaterThan(0) // the profile came back
    expect(await page.evaluate(() => Object.keys(localStorage).filter((k) => localStorage.getItem(k)?.includes('eyJ')))).toEqual([]) // token not persisted
    expect(outside).toEqual([])
    expect(pageErrors).toEqual([])
    await ctx.close()
  }, 60_000)

  test('signing in to the console and following its Docs link (same tab) carries the session to "try it"', async () => {
    const ctx = await offlineContext()
    const page = await ctx.newPage()
    await page.goto(`${s.url}/#/login`)
    const form = page.locator('form[aria-label="Sign in"]')
    await form.locator('input[name="login"]').fill('docs-reader')
    await form.locator('input[name="password"]').fill('operator-password')
    await form.locator('button[type="submit"]').click()
    await page.waitForFunction(() => !location.hash.startsWith('#/login'))
    await page.click('#nav-public') // the "API docs" link is in the Public menu
    await page.locator('a[href="/docs"]').click()
    await page.waitForURL(`${s.url}/docs`)
    expect(await page.locator('#tg-session').textContent()).toContain('console session')
    const sidebar = page.locator('aside').first()
    await sidebar.getByText('Auth', { exact: true }).first().click()
    await sidebar.getByText('The signed-in operator profile', { exact: true }).first().click()
    expect(await tryIt(page, ME)).toContain('200 OK')
    expect(outside).toEqual([])
    expect(pageErrors).toEqual([])
    await ctx.close()
  }, 60_000)

  test('without a session, "try it" takes a pasted API key (x-api-key): GET /api/v1/whoami answers 200', async () => {
    const key = (await s.post('/api/v1/operator/keys', { name: 'docs' }, { token })).body.key as string
    const ctx = await offlineContext()
    const page = await ctx.newPage()
    await page.goto(`${s.url}/docs#api-1/tag/auth/GET/api/v1/whoami`)
    expect(await page.locator('#tg-session').textContent()).toContain('Not signed in')
    const status = await tryIt(page, '[id$="/GET/api/v1/whoami"]', async (p) => { await p.getByRole('region', { name: /^Request: / }).getByRole('textbox', { name: 'Value', exact: true }).fill(key) })
    expect(status).toContain('200 OK')
    expect(await page.locator('text=docs-reader').count()).toBeGreaterThan(0) // the key's operator
    expect(outside).toEqual([])
    await ctx.close()
  }, 60_000)
})
