// The data export over real HTTP (docs/governance.md, "Data export"): every member, streamed page
// by page as an attachment, each task with its door, tokens and estimated cost, allowed while
// suspended, and no secret in it: the raw text is searched
// for every key and secret the operator has (API keys, their hashes, the password and its hash,
// bearer tokens, the webhook secret) and for a provider key.
import { openTestDb } from '../helpers/data'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { expectProblem, startServer, type TestServer } from '../helpers/server'

let s: TestServer
let admin: string

beforeAll(async () => {
  s = await startServer()
  admin = await s.setupAdmin()
})
afterAll(async () => { await s.cleanup() })

const PASSWORD = 'export-password-9f3k2'
const WEBHOOK_SECRET = 'whsec-export-7d1c0b9e4a2f6h8j'
const PROVIDER_KEY = 'sk-export-provider-4b8e1f0a9c7d'

describe('GET /api/v1/operator/export', () => {
  test('streams every member as an attachment, with no secret in it', async () => {
    const signup = await s.post('/api/v1/auth/signup', { login: 'exporter', password: PASSWORD })
    const token = signup.body.accessToken as string
    const token2 = (await s.post('/api/v1/auth/login', { login: 'exporter', password: PASSWORD })).body.accessToken as string
    const me = (await s.get('/api/v1/auth/me', { token })).body
    expect((await s.patch(`/api/v1/admin/operators/${me.id}`, { tierOverride: 'PRO' }, { token: admin })).status).toBe(200)
    const opKey = await s.createKey(token, 'export-key')
    expect((await s.post('/api/v1/admin/credits', { operatorId: me.id, amount: 500, reason: 'export test' }, { token: admin })).status).toBe(200)
    const agent = (await s.post('/api/v1/agents/register', { displayName: 'export-bot', capabilities: ['general'] }, { token })).body
    expect((await s.post('/api/v1/admin/providers', { name: 'export-oai', kind: 'openai', baseUrl: 'http://127.0.0.1:9', models: ['export-model'], keys: [{ key: PROVIDER_KEY }] }, { token: admin })).status).toBe(201)
    expect((await s.patch('/api/v1/operator/guardrails', { approvalWebhookSecret: WEBHOOK_SECRET, maxPromptLength: 5000 }, { token })).status).toBe(200)
    const tos = (await s.post('/api/v1/operator/tos/accept', { version: '1' }, { token })).body
    const cert = (await s.post('/api/v1/operator/compliance/generate', undefined, { token })).body

    // more tasks than one page of the stream (100)
    const N = 105
    const ids: string[] = []
    for (let i = 0; i < N; i += 15) {
      const batch = await Promise.all(Array.from({ length: Math.min(15, N - i) }, (_, j) =>
        s.post('/api/v1/tasks/submit?wait=0', { agentId: agent.agentId, taskType: 'general', prompt: `Export task ${i + j}. It has a prompt. It has an output.` }, { key: j % 2 ? agent.apiKey : opKey.key })))
      for (const r of batch) { expect([200, 202]).toContain(r.status); ids.push(r.body.id) }
    }
    // the first task finished unpriced (its cost is null); priced from here on: the last task and a door's task carry their tokens and cost
    for (let i = 0; i < 100 && (await s.get(`/api/v1/tasks/${ids[0]}`, { token })).body.status !== 'COMPLETED'; i++) await Bun.sleep(50)
    expect((await s.req('PUT', '/api/v1/admin/prices/builtin', { body: { inputUsdPerMTok: 3000, outputUsdPerMTok: 12000 }, token: admin })).status).toBe(200)
    const done = await s.post('/api/v1/tasks/submit?wait=30', { agentId: agent.agentId, taskType: 'general', prompt: 'The last one waits. Its output is exported.' }, { key: agent.apiKey })
    expect(done.body.status).toBe('COMPLETED')
    const chat = await fetch(`${s.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${agent.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'builtin', messages: [{ role: 'user', content: 'A door task is exported too. It names its door.' }] }) })
    expect(chat.status).toBe(200)
    const doorTask = (await s.get(`/api/v1/tasks/${chat.headers.get('x-taskgate-task-id')}`, { token })).body

    // the raw stream: several chunks, an attachment
    const raw = await fetch(`${s.url}/api/v1/operator/export`, { headers: { authorization: `Bearer ${token}` } })
    expect(raw.status).toBe(200)
    expect(raw.headers.get('content-type')).toStartWith('application/json')
    expect(raw.headers.get('content-disposition')).toMatch(/^attachment; filename="taskgate-export-op_[^"]+\.json"$/)
    let chunks = 0
    let text = ''
    const dec = new TextDecoder()
    const reader = raw.body!.getReader()
    for (let r = await reader.read(); !r.done; r = await reader.read()) { chunks++; text += dec.decode(r.value, { stream: true }) }
    expect(chunks).toBeGreaterThan(1)

    // the same through the test client (its response is checked against the OpenAPI document)
    const r = await s.get('/api/v1/operator/export', { token })
    expect(r.status).toBe(200)
    const doc = JSON.parse(text)
    expect(Object.keys(doc)).toEqual(expect.arrayContaining(['profile', 'keys', 'agents', 'tasks', 'ledger', 'guardrails', 'approvals', 'tos', 'certificates', 'wallet', 'pioneerEvents']))
    expect(doc.profile).toMatchObject({ id: me.id, identityLogin: 'exporter', effectiveTier: 'PRO' })
    expect(doc.keys.map((k: any) => k.id).sort()).toEqual([opKey.id, agent.keyId].sort())
    expect(doc.agents.map((a: any) => a.agentId)).toEqual([agent.agentId])
    expect(doc.tasks).toHaveLength(N + 3) // the submissions, the last one, the door's and the ToS system task
    expect(doc.tasks.map((t: any) => t.id)).toEqual(expect.arrayContaining([...ids, done.body.id, doorTask.id, tos.taskId]))
    const last = doc.tasks.find((t: any) => t.id === done.body.id)
    expect(last).toMatchObject({ status: 'COMPLETED', prompt: 'The last one waits. Its output is exported.', output: done.body.output })
    // each task's door, tokens and estimated cost, as the owner's task view has them
    const cost = (u: any) => Math.round(u.promptTokens * 3000 + u.completionTokens * 12000) / 1e6
    expect(last.door).toBeNull()
    expect(last.usage).toEqual(done.body.usage)
    expect(last.usage.totalTokens).toBe(last.usage.promptTokens + last.usage.completionTokens)
    expect(last.usage.promptTokens).toBeGreaterThan(0)
    expect(last.costUsd).toBe(cost(last.usage))
    const exportedDoor = doc.tasks.find((t: any) => t.id === doorTask.id)
    expect(exportedDoor).toMatchObject({ status: 'COMPLETED', door: 'openai', usage: doorTask.usage, costUsd: doorTask.costUsd })
    expect(exportedDoor.usage.completionTokens).toBeGreaterThan(0)
    expect(exportedDoor.costUsd).toBe(cost(exportedDoor.usage))
    // a task computed before the price has its tokens and a null cost
    const early = doc.tasks.find((t: any) => t.id === ids[0])
    expect(early).toMatchObject({ status: 'COMPLETED', door: null, costUsd: null })
    expect(early.usage.totalTokens).toBeGreaterThan(0)
    expect(doc.tasks.find((t: any) => t.id === tos.taskId)).toMatchObject({ taskType: 'system' })
    expect(doc.ledger.length).toBeGreaterThanOrEqual(2)
    expect(doc.ledger[0]).toMatchObject({ reason: 'monthly_allocation' })
    expect(doc.guardrails.current).toMatchObject({ approvalWebhookSecretSet: false })
    expect(doc.guardrails.pending.config).toMatchObject({ approvalWebhookSecretSet: true, maxPromptLength: 5000 })
    expect(doc.approvals).toEqual([])
    expect(doc.tos.status).toMatchObject({ accepted: true, version: '1', ipfsCid: tos.ipfsCid })
    expect(doc.tos.acceptances).toEqual([{ operatorId: me.id, version: '1', ipfsCid: tos.ipfsCid, taskId: tos.taskId, acceptedAt: tos.acceptedAt }])
    expect(doc.certificates.map((c: any) => c.certHash)).toEqual([cert.certHash])
    expect(doc.wallet).toEqual({ walletAddress: null })
    expect(Array.isArray(doc.pioneerEvents)).toBe(true)

    // no secret anywhere in the raw text
    const db = await openTestDb(s.dataDir, { readonly: true })
    const hashes = (db.query('SELECT key_hash AS h FROM api_keys WHERE operator_id = ?1').all(me.id) as { h: string }[]).map((x) => x.h)
    const passwordHash = (db.query('SELECT password_hash AS h FROM operators WHERE id = ?1').get(me.id) as { h: string }).h
    db.close()
    expect(hashes).toHaveLength(2)
    const secrets = [opKey.key, agent.apiKey, ...hashes, PASSWORD, passwordHash, token, token2, WEBHOOK_SECRET, PROVIDER_KEY]
    for (const secret of secrets) expect({ secret, found: text.includes(secret) }).toEqual({ secret, found: false })
    // nor the parts a token is made of (its signature)
    for (const t of [token, token2]) expect(text.includes(t.split('.')[2]!)).toBe(false)
  }, 60_000)

  test('suspended operators can still export; other routes refuse them; bearer only', async () => {
    const token = await s.signup('export-suspended')
    const me = (await s.get('/api/v1/auth/me', { token })).body
    const key = await s.createKey(token)
    expect((await s.patch(`/api/v1/admin/operators/${me.id}`, { status: 'SUSPENDED' }, { token: admin })).status).toBe(200)
    const r = await s.get('/api/v1/operator/export', { token })
    expect(r.status).toBe(200)
    expect(r.body.profile).toMatchObject({ id: me.id, status: 'SUSPENDED' })
    expect(r.body.tasks).toEqual([])
    expectProblem(await s.get('/api/v1/operator/tasks', { token }), 403, 'OPERATOR_SUSPENDED')
    expectProblem(await s.get('/api/v1/operator/export', { key: key.key }), 401)
    expectProblem(await s.get('/api/v1/operator/export'), 401, 'UNAUTHENTICATED')
  })
})
