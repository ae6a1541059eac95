// The public explorer in a real browser, with no account: a receipt, an attestation, a verification
// proof and a compliance certificate are verified in the page; a byte changed in a stored record is
// caught and named; an unknown id gets the "not found" page (HTTP 404, HTML, no script error).
import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import { CHROMIUM, chromiumFor } from '../helpers/chromium'
import { startServer, type TestServer } from '../helpers/server'

const available = chromiumFor('explorer browser tests')

let s: TestServer
let browser: Browser
let page: Page
let admin = ''
let task: Record<string, string> = {}
let signer = ''
const errors: string[] = []

/** Opens a path and waits until the page has drawn its verdict or its "not found". */
async function open(path: string): Promise<{ status: number; text: string }> {
  const res = await page.goto(`${s.url}${path}`)
  await page.waitForFunction(() => {
    const view = document.getElementById('view')
    return !!view && (!!view.querySelector('[data-verdict], [data-not-found]') || (!!view.querySelector('h1') && !view.textContent!.includes('Checking')))
  }, undefined, { timeout: 10_000 })
  return { status: res!.status(), text: (await page.textContent('#view'))! }
}

describe.skipIf(!available)('explorer: verified in the browser', () => {
  beforeAll(async () => {
    s = await startServer()
    admin = await s.setupAdmin()
    const agent = (await s.post('/api/v1/agents/register', { displayName: 'Proof bot', capabilities: ['general'] }, { token: admin })).body
    task = (await s.post('/api/v1/tasks/submit?wait=30', { agentId: agent.agentId, taskType: 'general', prompt: 'A result anyone can check without an account.' }, { key: agent.apiKey })).body
    expect(task.status).toBe('COMPLETED')
    signer = (await s.get('/.well-known/taskgate-signers')).body.signers[0].address
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'] })
    page = await browser.newPage()
    page.on('pageerror', (e) => errors.push(String(e)))
  }, 60_000)
  afterAll(async () => { await browser?.close(); await s?.cleanup() })

  test('a receipt link: bytes re-hashed to the CID, signature valid, signed by the published signer', async () => {
    const r = await open(`/explorer/receipt/${task.receiptCid}`)
    expect(r.status).toBe(200)
    expect(r.text).toContain(`Signature valid, signed by ${signer} (this appliance's signer`)
    expect(await page.getAttribute('[data-cid]', 'data-cid')).toBe('valid')
    expect(errors).toEqual([])
  })

  test('an attestation, a verification proof and an agent passport', async () => {
    expect((await open(`/explorer/attestation/${task.attestationUid}`)).text).toContain(`Signature valid, signed by ${signer}`)
    const v = await open(`/explorer/verification/${task.verificationProof}`)
    expect(v.text).toContain('Proof valid')
    expect(v.text).toContain('Receipt signature valid')
    const a = await open(`/explorer/agent/${task.agentId}`)
    expect(a.text).toContain('Agent passport')
    expect(a.text).toMatch(/Next: PROVISIONAL — needs totalTasks ≥ 5 \(now 1\)/)
    expect(errors).toEqual([])
  })

  test('an unknown CID, UID or agent: 404 and the "not found" page, without a script error', async () => {
    for (const path of ['/explorer/receipt/bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy', `/explorer/attestation/0x${'12'.repeat(32)}`, '/explorer/agent/agt_nobody', '/explorer/receipt/not-a-cid']) {
      const r = await open(path)
      expect(r.status).toBe(404)
      expect(r.text).toContain('Not found')
    }
    expect(errors).toEqual([])
  })

  test('a byte changed in the stored receipt is caught and named; a changed attestation too', async () => {
    const ipfs = new Database(join(s.dataDir, 'ipfs.db'))
    const block = (await (await fetch(`${s.url}/ipfs/${task.receiptCid}?format=raw`)).arrayBuffer())
    const text = new TextDecoder().decode(block)
    const changed = text.replace('"creditsCharged":"1"', '"creditsCharged":"0"')
    expect(changed).not.toBe(text)
    const { CID } = await import('multiformats/cid')
    const mh = CID.parse(task.receiptCid!).multihash.bytes
    expect(ipfs.query('UPDATE ipfs_blocks SET data = ?2 WHERE mh = ?1').run(mh, new TextEncoder().encode(changed)).changes).toBe(1)
    ipfs.close()
    const r = await open(`/explorer/receipt/${task.receiptCid}`)
    expect(r.text).toMatch(/Content does not match its CID: block \S+: its bytes hash to 0x[0-9a-f]{64}, not to the CID/)
    expect(r.text).not.toContain('Signature valid')

    // The attestation's message is its task row's (src/chain/attestation-record.ts): its time is the compute finish time.
    const db = new Database(join(s.dataDir, 'taskgate.db'))
    expect(db.query('UPDATE tasks SET compute_finished_at = compute_finished_at + 60000 WHERE id = ?1').run(task.id).changes).toBe(1)
    db.close()
    const a = await open(`/explorer/attestation/${task.attestationUid}`)
    expect(a.text).toContain('Signature not valid: uid —')
    expect(await page.getAttribute('[data-verdict]', 'data-verdict')).toBe('invalid')
    expect(errors).toEqual([])
  })

  test('compliance certificates show the in-browser check on the console page', async () => {
    const me = (await s.get('/api/v1/auth/me', { token: admin })).body
    expect((await s.patch(`/api/v1/admin/operators/${me.id}`, { tierOverride: 'PRO' }, { token: admin })).status).toBe(200)
    expect((await s.post('/api/v1/operator/compliance/generate', undefined, { token: admin })).status).toBe(200)
    await page.goto(`${s.url}/#/login`)
    await page.evaluate((t) => sessionStorage.setItem('taskgate.accessToken', t), admin) // as ui/lib/session.js keeps it
    await page.goto(`${s.url}/#/compliance`)
    await page.waitForSelector('[data-verdict]', { timeout: 10_000 })
    expect(await page.textContent('[data-verdict]')).toMatch(/^✓ verified \(signer-[0-9a-f]{8}\)$/)
    expect(errors).toEqual([])
  })
})
