// The console's side of the doors (docs/doors.md, docs/console.md) in Chromium against the real
// server: the agent page's Connect section gives this server's own URLs and snippets that work as
// they are copied (the OpenAI call is made with the values the snippet holds, the MCP configuration
// drives the official MCP client, the A2A snippet runs as it is), with the agent's key pasted or an
// operator key created there;
// the tasks list marks door tasks with a badge; the task view shows its door, tokens and estimated
// cost; the dashboard shows today's tokens and cost and charts both.
// Skipped, loudly, without Chromium (as admin-ui.test.ts).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { chromium, type Browser, type Page } from 'playwright-core'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { CHROMIUM, chromiumFor } from '../helpers/chromium'
import { ROOT, startServer, type TestServer } from '../helpers/server'

const available = chromiumFor('console door tests')

let s: TestServer
let browser: Browser
let page: Page
let token = ''
let agent: { agentId: string; apiKey: string; model: string }
const tasks = { rest: '', openai: '', mcp: '' }
const problems: string[] = []
const clients: Client[] = []

/** What the console prints for a cost (ui/lib/format.js fmtUsd). */
const usd = (v: number) => v.toLocaleString('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: Math.abs(v) < 1 ? 6 : 2 })

/** A chat completion as the OpenAI client makes it: POST <baseURL>/chat/completions, the key as a bearer token. */
async function chat(baseURL: string, apiKey: string, model: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${baseURL}/chat/completions`, {
    method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Doors lead to tasks. Tasks carry receipts.' }] }),
  })
}

/** An MCP client configured from an `mcpServers` entry (its URL and headers). */
async function mcpClient(entry: { url: string; headers: Record<string, string> }): Promise<Client> {
  const client = new Client({ name: 'taskgate-console-test', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(entry.url), { requestInit: { headers: entry.headers } }))
  clients.push(client)
  return client
}

/** The values a copied OpenAI snippet hands to `new OpenAI({ … })` and to the chat call. */
function parseOpenAiSnippet(code: string) {
  const str = (re: RegExp) => { const m = code.match(re); return m ? JSON.parse(m[1]!) as string : null }
  return {
    baseURL: str(/baseURL: ("[^"]*")/), apiKey: str(/apiKey: ("[^"]*")/), agentId: str(/'x-taskgate-agent-id': ("[^"]*")/), model: str(/model: ("[^"]*")/),
    fromEnv: /apiKey: process\.env\.TASKGATE_AGENT_KEY/.test(code),
  }
}

/** Runs a copied JavaScript snippet as a user would (a module in this checkout, so its imports resolve): what it printed. */
async function runSnippet(code: string): Promise<string> {
  const dir = join(ROOT, '.tmp')
  mkdirSync(dir, { recursive: true })
  const file = join(dir, `snippet-${crypto.randomUUID()}.mjs`)
  writeFileSync(file, code)
  try {
    const p = Bun.spawn([process.execPath, file], { stdout: 'pipe', stderr: 'pipe' })
    const [out, err, code_] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
    if (code_ !== 0) throw new Error(`the snippet failed (${code_}): ${err}`)
    return out
  } finally {
    rmSync(file, { force: true })
  }
}

async function show(hash: string): Promise<void> {
  await page.goto(`${s.url}/${hash}`)
  await page.waitForFunction(() => {
    const view = document.getElementById('view')
    return !!view?.querySelector('h1') && !view.textContent!.includes('Loading…')
  }, undefined, { timeout: 10_000 })
}

const snippetText = async (caption: string) => (await page.locator(`figure.snippet:has(figcaption:has-text("${caption}")) pre`).textContent())!

describe.skipIf(!available)('console: connect, door badges, usage and cost', () => {
  beforeAll(async () => {
    s = await startServer()
    token = (await s.post('/api/v1/setup', { token: s.setupToken(), login: 'admin', password: 'admin-password' })).body.accessToken
    expect((await s.req('PUT', '/api/v1/admin/prices/builtin', { body: { inputUsdPerMTok: 1500, outputUsdPerMTok: 6000 }, token })).status).toBe(200)
    agent = (await s.post('/api/v1/agents/register', { displayName: 'Door bot', capabilities: ['general'] }, { token })).body
    // one task through each way in: the REST API, the OpenAI door, the MCP door
    const rest = await s.post('/api/v1/tasks/submit?wait=30', { agentId: agent.agentId, taskType: 'general', prompt: 'The REST way in. It has no door.' }, { key: agent.apiKey })
    expect(rest.body.status).toBe('COMPLETED')
    tasks.rest = rest.body.id
    const viaOpenAi = await chat(`${s.url}/v1`, agent.apiKey, 'builtin')
    expect(viaOpenAi.status).toBe(200)
    tasks.openai = viaOpenAi.headers.get('x-taskgate-task-id')!
    const viaMcp = await (await mcpClient({ url: `${s.url}/mcp`, headers: { Authorization: `Bearer ${agent.apiKey}` } }))
      .callTool({ name: 'submit_task', arguments: { prompt: 'The MCP way in. It names its door.', waitSeconds: 30 } })
    tasks.mcp = (viaMcp.structuredContent as any).task.id
    expect((viaMcp.structuredContent as any).task.status).toBe('COMPLETED')

    browser = await chromium.launch({
      executablePath: CHROMIUM, headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    })
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: s.url })
    page = await context.newPage()
    page.on('pageerror', (e) => problems.push(String(e)))
    page.on('console', (m) => { if (/Content Security Policy|Refused to/i.test(m.text())) problems.push(m.text()) })
    await page.goto(`${s.url}/#/login`)
    await page.fill('input[name="login"]', 'admin')
    await page.fill('input[name="password"]', 'admin-password')
    await page.click('form[aria-label="Sign in"] button[type="submit"]')
    await page.waitForFunction(() => location.hash.startsWith('#/agents'))
  }, 60_000)
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => {})
    await browser?.close()
    await s?.cleanup()
  })

  test('Connect: this server\'s /v1 and /mcp, snippets that work with the agent\'s key pasted in', async () => {
    await show(`#/agents/${agent.agentId}`)
    const card = page.locator('section.connect')
    expect(await card.locator('h2').textContent()).toBe('Connect')
    const text = (await card.textContent())!
    expect(text).toContain(`${s.url}/v1`)
    expect(text).toContain(`${s.url}/mcp`)
    expect(text).toContain(`${s.url}/.well-known/agent-card.json`)
    expect(text).toContain('shown once, when the agent was registered')

    // before a key is pasted: the base URL, the agent, its model; the key from the environment
    const before = parseOpenAiSnippet(await snippetText('OpenAI client'))
    expect(before).toEqual({ baseURL: `${s.url}/v1`, apiKey: null, agentId: agent.agentId, model: agent.model, fromEnv: true })
    expect(await snippetText('OpenAI client')).toContain('new OpenAI({')
    expect(JSON.parse(await snippetText('MCP client')).mcpServers.taskgate.url).toBe(`${s.url}/mcp`)

    // the agent's key pasted: both snippets carry it, and each works as copied
    await card.locator('input[name="connectKey"]').fill(agent.apiKey)
    const js = parseOpenAiSnippet(await snippetText('OpenAI client'))
    expect(js.apiKey).toBe(agent.apiKey)
    const r = await chat(js.baseURL!, js.apiKey!, js.model!, { 'x-taskgate-agent-id': js.agentId! })
    expect(r.status).toBe(200)
    const t = (await s.get(`/api/v1/tasks/${r.headers.get('x-taskgate-task-id')}`, { token })).body
    expect(t).toMatchObject({ status: 'COMPLETED', door: 'openai', agentId: agent.agentId })
    const config = JSON.parse(await snippetText('MCP client'))
    expect(config).toEqual({ mcpServers: { taskgate: { url: `${s.url}/mcp`, headers: { Authorization: `Bearer ${agent.apiKey}`, 'x-taskgate-agent-id': agent.agentId } } } })
    const mcp = await mcpClient(config.mcpServers.taskgate)
    const listed = await mcp.callTool({ name: 'list_tasks', arguments: { limit: 50 } })
    expect((listed.structuredContent as any).tasks.map((x: any) => x.id)).toContain(tasks.mcp)
    // the A2A snippet, run as copied: discovers the card, sends one message, prints the completed task's proof ids
    const a2aCode = await snippetText('A2A client')
    expect(a2aCode).toContain(`createFromUrl(${JSON.stringify(s.url)})`)
    expect(a2aCode).toContain(JSON.stringify(`Bearer ${agent.apiKey}`))
    const printed = await runSnippet(a2aCode)
    expect(printed.split('\n')[0]).toBe('TASK_STATE_COMPLETED')
    const a2aTask = (await s.get(`/api/v1/tasks/${printed.match(/taskId: "([^"]+)"/)![1]}`, { token })).body
    expect(a2aTask).toMatchObject({ status: 'COMPLETED', door: 'a2a', agentId: agent.agentId })
    expect(printed).toContain(a2aTask.receiptCid)

    // Copy puts the snippet, as shown, on the clipboard
    await page.locator('figure.snippet:has(figcaption:has-text("MCP client")) button').click()
    await page.locator('figure.snippet:has(figcaption:has-text("MCP client")) button:has-text("Copied")').waitFor()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await snippetText('MCP client'))
    expect(problems).toEqual([])
  }, 30_000)

  test('Connect: an operator key created there is shown once, fills the snippets, and the OpenAI snippet names the agent', async () => {
    await show(`#/agents/${agent.agentId}`)
    const card = page.locator('section.connect')
    await card.locator('button:has-text("Create an operator key")').click()
    const key = (await card.locator('.keybox code.keyvalue').textContent())!
    expect(key).toMatch(/^tg_test_/)
    expect(await card.locator('input[name="connectKey"]').inputValue()).toBe(key)
    const keys = (await s.get('/api/v1/operator/keys', { token })).body
    expect(keys.find((k: any) => k.label === 'connect: Door bot')).toMatchObject({ agentId: null })
    const js = parseOpenAiSnippet(await snippetText('OpenAI client'))
    expect(js).toMatchObject({ apiKey: key, agentId: agent.agentId })
    // without the snippet's header an operator key names no agent; with it, the call is the agent's task
    expect((await chat(js.baseURL!, js.apiKey!, js.model!)).status).toBe(400)
    const r = await chat(js.baseURL!, js.apiKey!, js.model!, { 'x-taskgate-agent-id': js.agentId! })
    expect(r.status).toBe(200)
    expect((await s.get(`/api/v1/tasks/${r.headers.get('x-taskgate-task-id')}`, { token })).body).toMatchObject({ door: 'openai', agentId: agent.agentId })
    expect(JSON.parse(await snippetText('MCP client')).mcpServers.taskgate.headers.Authorization).toBe(`Bearer ${key}`)
    expect(problems).toEqual([])
  }, 30_000)

  test('the tasks list badges door tasks; the task view shows door, tokens and estimated cost', async () => {
    await show('#/tasks')
    await page.locator(`tr[data-task-id="${tasks.openai}"]`).waitFor()
    expect(await page.locator(`tr[data-task-id="${tasks.openai}"] .badge.door`).textContent()).toBe('OpenAI')
    expect(await page.locator(`tr[data-task-id="${tasks.mcp}"] .badge.door`).textContent()).toBe('MCP')
    expect(await page.locator(`tr[data-task-id="${tasks.rest}"] .badge.door`).count()).toBe(0)

    for (const [id, door] of [[tasks.openai, 'OpenAI-compatible API (/v1)'], [tasks.mcp, 'MCP server (/mcp)'], [tasks.rest, 'REST API (POST /api/v1/tasks/submit)']] as const) {
      const t = (await s.get(`/api/v1/tasks/${id}`, { token })).body
      expect(t.usage.totalTokens).toBeGreaterThan(0)
      expect(t.costUsd).toBeGreaterThan(0)
      await show(`#/tasks/${id}`)
      const row = async (label: string) => (await page.locator(`dl.dl dt:text-is("${label}") + dd`).textContent())!
      expect(await row('Door')).toBe(door)
      expect(await row('Tokens')).toBe(`${t.usage.totalTokens} (${t.usage.promptTokens} prompt + ${t.usage.completionTokens} completion)`)
      expect(await row('Estimated cost')).toBe(usd(t.costUsd))
    }
    expect(problems).toEqual([])
  }, 30_000)

  test('the dashboard shows today\'s tokens and estimated cost, and charts both per day', async () => {
    const daily = (await s.get('/api/v1/operator/stats/daily?days=7', { token })).body
    const today = daily.series.at(-1)
    expect(today.tokens.total).toBeGreaterThan(0)
    expect(today.costUsd).toBeGreaterThan(0)
    await show('#/dashboard?days=7')
    const stat = async (label: string) => (await page.locator(`.stat:has(.stat-label:text-is("${label}")) .stat-value`).textContent())!
    expect(await stat('Tokens today')).toBe(today.tokens.total.toLocaleString('en-US'))
    expect(await stat('Estimated cost today')).toBe(usd(today.costUsd))
    // each chart's numbers, as its table holds them: today's row
    const lastRow = async (title: string) => page.locator(`figure.chart:has(figcaption:text-is("${title}")) tbody tr`).last().locator('td').allTextContents()
    expect(await lastRow('Tokens per day')).toEqual([today.tokens.prompt.toLocaleString('en-US'), today.tokens.completion.toLocaleString('en-US')])
    expect(await lastRow('Estimated cost per day (USD)')).toEqual([usd(today.costUsd)])
    expect(problems).toEqual([])
  }, 30_000)
})
