// The embedded admin UI in a real browser (Debian's Chromium through playwright-core): first-run
// setup, creating an API key, registering an agent and running a task, setting a guardrail and
// watching it activate, and the kill-switch, against the real server.
// Skipped, loudly, when no Chromium is installed (CI installs it: see .ci/run).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { chromium, type Browser, type Page } from 'playwright-core'
import { CHROMIUM, chromiumFor } from '../helpers/chromium'
import { startServer, type TestServer } from '../helpers/server'

const available = chromiumFor('admin UI tests')

let s: TestServer
let browser: Browser
let page: Page
const pageErrors: string[] = []

describe.skipIf(!available)('admin UI', () => {
  beforeAll(async () => {
    s = await startServer({ TASKGATE_TEST_CLOCK: '1' })
    browser = await chromium.launch({
      executablePath: CHROMIUM, headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    })
    page = await browser.newPage()
    page.on('pageerror', (e) => pageErrors.push(String(e)))
  }, 30_000)
  afterAll(async () => { await browser?.close(); await s?.cleanup() })

  test('first-run setup through the printed URL signs the admin in', async () => {
    await page.goto(`${s.url}/#/setup?token=${s.setupToken()}`)
    await page.fill('input[name="login"]', 'admin')
    await page.fill('input[name="password"]', 'admin-password')
    await page.click('button[type="submit"]')
    await page.waitForFunction(() => !location.hash.startsWith('#/setup'))
    expect(await page.evaluate(() => sessionStorage.length)).toBeGreaterThan(0)
    const admins = (await s.get('/api/v1/admin/operators', { token: (await s.post('/api/v1/auth/login', { login: 'admin', password: 'admin-password' })).body.accessToken })).body
    expect(admins.map((o: any) => o.identityLogin)).toContain('admin')
  })

  test('creating a key shows the full key once, and it works', async () => {
    await page.goto(`${s.url}/#/keys`)
    await page.fill('input[name="name"]', 'from-the-ui')
    await page.click('form button[type="submit"]')
    const key = (await page.locator('text=/tg_test_[1-9A-HJ-NP-Za-km-z]{30,}/').first().textContent())!.match(/tg_test_[1-9A-HJ-NP-Za-km-z]+/)![0]
    expect((await s.get('/api/v1/whoami', { key })).body.identityLogin).toBe('admin')
  })

  test('registering an agent and submitting a task from the UI completes it', async () => {
    await page.goto(`${s.url}/#/agents`)
    await page.locator('table, .empty').first().waitFor() // the agent list has rendered
    await page.locator('details:has(summary:has-text("Register an agent"))').evaluate((d) => { (d as HTMLDetailsElement).open = true })
    const reg = page.locator('form[aria-label="Register an agent"]')
    await reg.locator('input[name="displayName"]').fill('UI bot')
    await reg.locator('input[value="sentiment_analysis"]').check()
    await reg.locator('button[type="submit"]').click()
    await page.locator('text=/tg_test_/').first().waitFor()
    const token = (await s.post('/api/v1/auth/login', { login: 'admin', password: 'admin-password' })).body.accessToken
    const agents = (await s.get('/api/v1/agents', { token })).body
    expect(agents.map((a: any) => a.displayName)).toContain('UI bot')
    const uiBot = agents.find((a: any) => a.displayName === 'UI bot')
    await page.goto(`${s.url}/#/tasks?submit=${uiBot.agentId}`) // opens the submit form for this agent
    const form = page.locator('form[aria-label="Submit a task"]')
    await form.locator('select[name="taskType"]').selectOption('sentiment_analysis')
    await form.locator('textarea[name="prompt"]').fill('The dashboard is lovely and fast.')
    await form.locator('button[type="submit"]').click()
    // the result panel under the form follows the task's stages live until it completes
    await page.waitForFunction(() => document.querySelector('.submit-result')?.textContent?.includes('COMPLETED'), undefined, { timeout: 15_000 })
    const tasks = (await s.get('/api/v1/operator/tasks', { token })).body
    expect(tasks.data[0]).toMatchObject({ status: 'COMPLETED', taskType: 'sentiment_analysis' })
    expect(pageErrors).toEqual([])
  }, 30_000)

  test('a guardrail set in the UI waits as pending with a countdown, then applies', async () => {
    const token = (await s.post('/api/v1/auth/login', { login: 'admin', password: 'admin-password' })).body.accessToken
    await page.goto(`${s.url}/#/guardrails`)
    const form = page.locator('form[aria-label="Edit guardrails"]')
    await form.locator('input[name="maxTasksPerHour"]').fill('7')
    await form.locator('textarea[name="blockedPatterns"]').fill('wire the funds')
    await form.locator('button[type="submit"]').click()
    await page.locator('.card.pending .countdown').waitFor()
    expect(await page.locator('.card.pending .countdown').textContent()).toMatch(/activates in \d+ s/)
    const g = (await s.get('/api/v1/operator/guardrails', { token })).body
    expect(g.pending.config).toMatchObject({ maxTasksPerHour: 7, blockedPatterns: ['wire the funds'] })
    expect(g.current.maxTasksPerHour).toBeNull()
    expect((await s.post('/api/v1/admin/clock/advance', { ms: 31_000 }, { token })).status).toBe(200)
    await page.reload()
    await page.locator('.card.current').waitFor()
    expect(await page.locator('.card.current').textContent()).toContain('wire the funds')
    expect(await page.locator('.card.pending').textContent()).toContain('No change waiting')
    expect((await s.get('/api/v1/operator/guardrails', { token })).body.current.maxTasksPerHour).toBe(7)
  })

  test('the kill-switch in the header stops submissions at once, and turns off again', async () => {
    const token = (await s.post('/api/v1/auth/login', { login: 'admin', password: 'admin-password' })).body.accessToken
    await page.goto(`${s.url}/#/agents`)
    await page.locator('button.kill-switch').click()
    await page.locator('dialog[open] input[name="answer"]').fill('incident 42') // the reason, in the confirmation dialog
    await page.locator('dialog[open] button.confirm').click()
    await page.locator('button.kill-switch.active').waitFor()
    expect((await s.get('/api/v1/auth/me', { token })).body.flags.killSwitch).toBe(true)
    expect((await s.get('/api/v1/operator/guardrails', { token })).body.killSwitch.reason).toBe('incident 42')
    const agent = (await s.get('/api/v1/agents', { token })).body[0]
    const r = await s.post('/api/v1/tasks/submit', { agentId: agent.agentId, taskType: 'sentiment_analysis', prompt: 'Should be refused.' }, { token })
    expect(r.status).toBe(403)
    expect(r.body.code).toBe('KILL_SWITCH_ACTIVE')
    await page.locator('button.kill-switch.active').click()
    await page.locator('dialog[open] button.confirm').click()
    await page.locator('button.kill-switch:not(.active)').waitFor()
    expect((await s.get('/api/v1/auth/me', { token })).body.flags.killSwitch).toBe(false)
    expect(pageErrors).toEqual([])
  })

  test('the compliance page accepts the Terms of Service, issues a certificate and downloads the export', async () => {
    const token = (await s.post('/api/v1/auth/login', { login: 'admin', password: 'admin-password' })).body.accessToken
    const me = (await s.get('/api/v1/auth/me', { token })).body
    expect((await s.patch(`/api/v1/admin/operators/${me.id}`, { tierOverride: 'PRO' }, { token })).status).toBe(200)
    await page.goto(`${s.url}/#/compliance`)
    await page.locator('button:has-text("Accept version 1")').click()
    await page.locator('.badge.green:has-text("version 1")').waitFor() // the Accepted badge (the button itself also says "version 1")
    expect((await s.get('/api/v1/operator/tos/status', { token })).body).toMatchObject({ accepted: true, version: '1' })
    await page.locator('button:has-text("Generate a certificate now")').click()
    await page.locator('td:has-text("PRO")').first().waitFor()
    expect((await s.get('/api/v1/operator/compliance', { token })).body).toHaveLength(1)
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('button:has-text("Download export")').click()])
    const path = await download.path()
    const exported = JSON.parse(await Bun.file(path!).text())
    expect(exported.profile.identityLogin).toBe('admin')
    expect(exported.certificates).toHaveLength(1)
    expect(pageErrors).toEqual([])
  })

  test('a held task appears in the approval queue with its count in the navigation, and is approved from its deep link', async () => {
    const token = (await s.post('/api/v1/auth/login', { login: 'admin', password: 'admin-password' })).body.accessToken
    expect((await s.patch('/api/v1/operator/guardrails', { approvalThreshold: 100 }, { token })).status).toBe(200)
    expect((await s.post('/api/v1/admin/clock/advance', { ms: 31_000 }, { token })).status).toBe(200)
    const agent = (await s.get('/api/v1/agents', { token })).body[0]
    const held = await s.post('/api/v1/tasks/submit', { agentId: agent.agentId, taskType: 'sentiment_analysis', prompt: 'Pay the supplier; they were great.', action: { actionType: 'payment', operation: 'transfer', target: 'supplier-7', requestedValue: 250, currency: 'USD' } }, { token })
    expect(held.status).toBe(202)
    expect(held.body.status).toBe('PENDING_APPROVAL')
    await page.goto(`${s.url}/#/approvals`)
    await page.locator('#nav-govern .nav-count:has-text("1")').waitFor() // counted on the Govern menu's button
    await page.click('#nav-govern')
    await page.locator('nav a:has-text("Approvals (1)")').waitFor()
    await page.goto(`${s.url}/#/approvals/${held.body.approvalId}`) // the resolveUrl webhooks carry
    await page.locator('textarea[name="note"]').fill('checked the invoice')
    await page.locator('button.approve').click()
    await page.locator('dialog[open] button.confirm').click()
    await page.locator('.card.approval :text("APPROVED")').waitFor()
    let task: any
    for (let i = 0; i < 100; i++) { // the approved task runs through stages 2–8
      task = (await s.get(`/api/v1/tasks/${held.body.id}`, { token })).body
      if (task.status === 'COMPLETED' || task.status === 'FAILED') break
      await Bun.sleep(50)
    }
    expect(task.status).toBe('COMPLETED')
    const approval = (await s.get(`/api/v1/approvals/${held.body.approvalId}`, { token })).body
    expect(approval).toMatchObject({ decision: 'APPROVED', decisionNote: 'checked the invoice' })
    await page.locator('#nav-govern .nav-count').waitFor({ state: 'detached' }) // the count is gone
    expect(await page.locator('nav a:text-is("Approvals")').count()).toBe(1)
    expect(pageErrors).toEqual([])
  })
})
