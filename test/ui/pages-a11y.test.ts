// Every console page in a real browser, in the light and the dark theme: axe-core finds no serious
// or critical violation, the CSP blocks nothing, a 375 px wide phone gets no page-level horizontal
// scroll, and the keyboard reaches every control. Screenshots (1280 and 375 px, light and dark) go
// to test-results/screenshots/ for review. Skipped, loudly, without Chromium (as admin-ui.test.ts).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import { CHROMIUM, chromiumFor } from '../helpers/chromium'
import { ROOT, startServer, type TestServer } from '../helpers/server'

const available = chromiumFor('console accessibility tests')
const SHOTS = join(ROOT, 'test-results', 'screenshots')
const AXE = await Bun.file(join(ROOT, 'node_modules', 'axe-core', 'axe.min.js')).text()

let s: TestServer
let browser: Browser
let page: Page
let token = ''
const ids = { agent: '', task: '', approval: '', receipt: '', attestation: '', proof: '' }
const problems: string[] = [] // page errors and CSP refusals

/** The hash of every page, with the text its heading shows once loaded. */
const PAGES: Array<[name: string, hash: () => string]> = [
  ['agents', () => '#/agents'], ['agent-detail', () => `#/agents/${ids.agent}`],
  ['tasks', () => '#/tasks'], ['task-detail', () => `#/tasks/${ids.task}`], ['submit-task', () => `#/tasks?submit=${ids.agent}`],
  ['billing', () => '#/billing'], ['keys', () => '#/keys'], ['profile', () => '#/profile'],
  ['guardrails', () => '#/guardrails'], ['approvals', () => '#/approvals'], ['approval-detail', () => `#/approvals/${ids.approval}`],
  ['compliance', () => '#/compliance'], ['webhooks', () => '#/webhooks'], ['operators', () => '#/operators'],
  ['providers', () => '#/providers'], ['terms', () => '#/terms'],
  ['dashboard', () => '#/dashboard'], ['leaderboard', () => '#/leaderboard'], ['stats', () => '#/stats'],
  ['explorer', () => '#/explorer'], ['explorer-receipt', () => `#/explorer/receipt/${ids.receipt}`], ['explorer-attestation', () => `#/explorer/attestation/${ids.attestation}`],
  ['explorer-verification', () => `#/explorer/verification/${ids.proof}`], ['explorer-agent', () => `#/explorer/agent/${ids.agent}`],
]

async function show(hash: string): Promise<void> {
  await page.goto(`${s.url}/${hash}`)
  await page.waitForFunction(() => {
    const view = document.getElementById('view')
    return !!view && !!view.querySelector('h1') && !view.textContent!.includes('Loading…')
  }, undefined, { timeout: 10_000 })
}

/** axe-core's serious and critical violations on the current page, one line each. */
async function axeViolations(): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE) // DevTools evaluation: not subject to the page's CSP
  const found = await page.evaluate(async () => {
    const r = await (window as any).axe.run(document, { resultTypes: ['violations'] })
    return r.violations.filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
      .map((v: any) => `${v.impact} ${v.id}: ${v.nodes.slice(0, 3).map((n: any) => n.target.join(' ')).join(' | ')}`)
  })
  return found
}

async function shoot(name: string, width: number, scheme: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}-${width}-${scheme}.png`), fullPage: true })
}

describe.skipIf(!available)('console pages: accessibility, themes, phone layout', () => {
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true })
    s = await startServer({ TASKGATE_TEST_CLOCK: '1' })
    const setup = await s.post('/api/v1/setup', { token: s.setupToken(), login: 'admin', password: 'admin-password' })
    token = setup.body.accessToken
    // Something on every page: a key, an agent with a finished task (priced, so it has a cost), a
    // task through the OpenAI door (its badge in the list), a held approval, a delivery.
    await s.post('/api/v1/operator/keys', { name: 'ci' }, { token })
    expect((await s.req('PUT', '/api/v1/admin/prices/builtin', { body: { inputUsdPerMTok: 1500, outputUsdPerMTok: 6000 }, token })).status).toBe(200)
    const agent = (await s.post('/api/v1/agents/register', { displayName: 'Shot bot', capabilities: ['sentiment_analysis', 'general'] }, { token })).body
    ids.agent = agent.agentId
    const door = await fetch(`${s.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${agent.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'builtin', messages: [{ role: 'user', content: 'A door task for the list.' }] }) })
    expect(door.status).toBe(200)
    const done = (await s.post('/api/v1/tasks/submit?wait=30', { agentId: agent.agentId, taskType: 'sentiment_analysis', prompt: 'Lovely and fast.' }, { token })).body
    expect(done.status).toBe('COMPLETED')
    Object.assign(ids, { task: done.id, receipt: done.receiptCid, attestation: done.attestationUid, proof: done.verificationProof })
    expect((await s.patch('/api/v1/operator/guardrails', { approvalThreshold: 100 }, { token })).status).toBe(200)
    await s.post('/api/v1/admin/clock/advance', { ms: 31_000 }, { token })
    const held = await s.post('/api/v1/tasks/submit', { agentId: agent.agentId, taskType: 'sentiment_analysis', prompt: 'Pay the supplier.', action: { actionType: 'payment', operation: 'transfer', target: 'supplier-7', requestedValue: 250, currency: 'USD' } }, { token })
    ids.approval = held.body.approvalId
    expect(ids.approval).toBeTruthy()

    browser = await chromium.launch({
      executablePath: CHROMIUM, headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    })
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    page.on('pageerror', (e) => problems.push(String(e)))
    page.on('console', (m) => { if (/Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text()) })
    page.on('dialog', (d) => d.dismiss())
  }, 60_000)
  afterAll(async () => { await browser?.close(); await s?.cleanup() })

  test('the sign-in page (signed out)', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme })
      await page.setViewportSize({ width: 1280, height: 900 })
      await show('#/login')
      expect(await axeViolations()).toEqual([])
      await shoot('login', 1280, scheme)
      await page.setViewportSize({ width: 375, height: 800 })
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375)
      await shoot('login', 375, scheme)
    }
    // Sign in through the form for the pages below (the token lives in sessionStorage).
    await page.setViewportSize({ width: 1280, height: 900 })
    await page.fill('input[name="login"]', 'admin')
    await page.fill('input[name="password"]', 'admin-password')
    await page.click('form[aria-label="Sign in"] button[type="submit"]')
    await page.waitForFunction(() => location.hash.startsWith('#/agents'))
    expect(problems).toEqual([])
  }, 30_000)

  for (const [name, hash] of PAGES) {
    test(`${name}: no serious axe violation in either theme, no sideways scroll on a phone`, async () => {
      for (const scheme of ['light', 'dark'] as const) {
        await page.emulateMedia({ colorScheme: scheme })
        await page.setViewportSize({ width: 1280, height: 900 })
        await show(hash())
        expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe(scheme === 'dark' ? 'rgb(15, 20, 27)' : 'rgb(246, 247, 249)')
        expect(await axeViolations()).toEqual([])
        await shoot(name, 1280, scheme)
        await page.setViewportSize({ width: 375, height: 800 })
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375)
        expect(await axeViolations()).toEqual([])
        await shoot(name, 375, scheme)
      }
      expect(problems).toEqual([])
    }, 30_000)
  }

  test('the keyboard alone: skip link, every control in the tab order, focus on the new page after navigating', async () => {
    await page.emulateMedia({ colorScheme: 'light' })
    await page.setViewportSize({ width: 1280, height: 900 })
    await show('#/agents')
    await page.reload() // a fresh load: the tab order starts at the top of the document
    await show('#/agents')
    await page.keyboard.press('Tab')
    expect(await page.evaluate(() => document.activeElement?.className)).toBe('skip-link')
    await page.keyboard.press('Enter')
    expect(await page.evaluate(() => document.activeElement?.tagName + ' ' + document.activeElement?.textContent)).toBe('H1 Agents')
    expect(await page.evaluate(() => location.hash)).toBe('#/agents') // the router's hash was left alone

    // From a fresh load, Tab through the whole page: every visible, enabled control is reached.
    await page.reload()
    await show('#/agents')
    const reached = new Set<string>()
    await page.evaluate(() => document.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex="0"]').forEach((el, i) => { (el as HTMLElement).dataset.kb = String(i) }))
    for (let i = 0; i < 200; i++) {
      await page.keyboard.press('Tab')
      const kb = await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.kb ?? null)
      if (kb === null && reached.size) break // past the last control (focus left the document)
      if (kb !== null) { if (reached.has(kb)) break; reached.add(kb) }
    }
    const expected = await page.evaluate(() => [...document.querySelectorAll<HTMLElement>('[data-kb]')]
      .filter((el) => el.getClientRects().length && !(el as HTMLButtonElement).disabled && !el.closest('details:not([open]) > :not(summary)'))
      .map((el) => el.dataset.kb!))
    expect(expected.length).toBeGreaterThan(10)
    expect(expected.filter((k) => !reached.has(k))).toEqual([])

    // A navigation menu opened with Enter passes axe in both themes; following its link with Enter
    // lands on the new page's heading.
    await page.focus('#nav-operate')
    await page.keyboard.press('Enter')
    for (const scheme of ['dark', 'light'] as const) {
      await page.emulateMedia({ colorScheme: scheme })
      expect(await axeViolations()).toEqual([])
      await shoot('nav-menu', 1280, scheme)
    }
    await page.setViewportSize({ width: 375, height: 800 })
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375) // an open menu fits a phone
    await shoot('nav-menu', 375, 'light')
    await page.setViewportSize({ width: 1280, height: 900 })
    await page.focus('nav a[href="#/tasks"]')
    await page.keyboard.press('Enter')
    await page.waitForFunction(() => document.activeElement?.tagName === 'H1' && document.activeElement.textContent === 'Tasks')
    const ring = await page.evaluate(() => { (document.querySelector('#nav-account') as HTMLElement).focus(); return getComputedStyle(document.activeElement!).outlineStyle })
    expect(ring).not.toBe('none') // focus is visible
  }, 30_000)

  test('a confirmation dialog: opened from the keyboard, focus inside, Escape closes it and changes nothing', async () => {
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme })
      await show('#/agents')
      await page.focus('button.kill-switch')
      await page.keyboard.press('Enter')
      await page.locator('dialog[open]').waitFor()
      expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe('answer') // the reason field
      expect(await axeViolations()).toEqual([])
      await shoot('kill-switch-dialog', 1280, scheme)
      await page.keyboard.press('Escape')
      await page.locator('dialog').waitFor({ state: 'detached' })
      expect(await page.evaluate(() => document.activeElement?.classList.contains('kill-switch'))).toBe(true)
    }
    expect((await s.get('/api/v1/auth/me', { token })).body.flags.killSwitch).toBe(false)
    expect(problems).toEqual([])
  }, 30_000)
})
