// Terms of Service over real HTTP (docs/governance.md, "Terms of Service"): the default version,
// admin versions, status and accept (the signed acceptance document on IPFS, verified here with
// viem alone; the system task among the operator's tasks), and TASKGATE_TOS_REQUIRED on submit and
// compute.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { verifyTypedData } from 'viem'
import { expectProblem, startServer, type TestServer } from '../helpers/server'

let s: TestServer
let admin: string

beforeAll(async () => {
  s = await startServer()
  admin = await s.setupAdmin()
})
afterAll(async () => { await s.cleanup() })

describe('versions and acceptance', () => {
  test('a fresh install has version "1" with a default text; nobody has accepted it', async () => {
    const token = await s.signup('tos-fresh')
    const versions = await s.get('/api/v1/admin/tos', { token: admin })
    expect(versions.status).toBe(200)
    expect(versions.body).toHaveLength(1)
    expect(versions.body[0]).toMatchObject({ version: '1', current: true })
    expect(versions.body[0].text.length).toBeGreaterThan(50)
    const st = await s.get('/api/v1/operator/tos/status', { token })
    expect(st.body).toEqual({ accepted: false, acceptedAt: null, version: null, ipfsCid: null, currentVersion: '1' })
    expectProblem(await s.get('/api/v1/admin/tos', { token }), 403, 'ADMIN_REQUIRED')
  })

  test('accept stores a signed acceptance document on IPFS and records a system task', async () => {
    const token = await s.signup('tos-accept')
    const me = (await s.get('/api/v1/auth/me', { token })).body
    expectProblem(await s.post('/api/v1/operator/tos/accept', { version: '0' }, { token }), 409, 'TOS_VERSION_NOT_CURRENT')
    const r = await s.post('/api/v1/operator/tos/accept', { version: '1' }, { token })
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ accepted: true, ipfsCid: expect.stringMatching(/^b/), taskId: expect.stringMatching(/^task_/), acceptedAt: expect.any(String) })
    const st = (await s.get('/api/v1/operator/tos/status', { token })).body
    expect(st).toEqual({ accepted: true, acceptedAt: r.body.acceptedAt, version: '1', ipfsCid: r.body.ipfsCid, currentVersion: '1' })

    // accepting again answers the first acceptance
    expect((await s.post('/api/v1/operator/tos/accept', { version: '1' }, { token })).body).toEqual(r.body)

    // the document verifies with viem alone, signed by the published service signer
    const doc = (await s.get(`/ipfs/${r.body.ipfsCid}`)).body
    const signers = (await s.get('/.well-known/taskgate-signers')).body
    expect(doc.signer).toBe(signers.signers[0].address)
    expect(doc.payload.message).toMatchObject({ operatorId: me.id, version: '1', acceptedAt: r.body.acceptedAt })
    expect(doc.payload.domain).toEqual({ name: 'TaskGate', version: '1', chainId: signers.chainId })
    expect(doc.payload.domain).toEqual(signers.eip712Domains.tos) // published beside the other domains
    expect(await verifyTypedData({ address: doc.signer, ...doc.payload, signature: doc.signature })).toBe(true)
    expect(await verifyTypedData({ address: doc.signer, ...doc.payload, message: { ...doc.payload.message, operatorId: 'op_other' }, signature: doc.signature })).toBe(false)

    // the system task: the owner reads it, it is in the operator's list, not in the public one
    const task = (await s.get(`/api/v1/tasks/${r.body.taskId}`, { token })).body
    expect(task).toMatchObject({ id: r.body.taskId, taskType: 'system', status: 'COMPLETED', operatorId: me.id, creditsCharged: 0, ipfsCid: r.body.ipfsCid })
    const mine = (await s.get('/api/v1/operator/tasks', { token })).body
    expect(mine.data.map((t: any) => t.id)).toContain(r.body.taskId)
    const pub = (await s.get(`/api/v1/tasks?operatorId=${me.id}`)).body
    expect(pub.data.map((t: any) => t.id)).not.toContain(r.body.taskId)
    // the signed document is the system task's public proof (a task document)
    expect((await s.get(`/api/v1/public/proof/${r.body.ipfsCid}`)).body).toMatchObject({ cid: r.body.ipfsCid, kind: 'task', document: { type: 'taskgate.tos-acceptance' }, verification: { cidMatches: true }, task: { id: r.body.taskId } })
    // no credit moved
    expect((await s.get('/api/v1/operator/billing', { token })).body.balance.balance).toBe(100)
  })

  test('the admin publishes a new current version; operators must accept it again', async () => {
    const token = await s.signup('tos-v2')
    await s.post('/api/v1/operator/tos/accept', { version: '1' }, { token })
    expectProblem(await s.post('/api/v1/admin/tos', { version: '2026-03-27', text: 'new terms' }, { token }), 403, 'ADMIN_REQUIRED')
    const v2 = await s.post('/api/v1/admin/tos', { version: '2026-03-27', text: 'Version two of the terms.' }, { token: admin })
    expect(v2.status).toBe(200)
    expect(v2.body).toMatchObject({ version: '2026-03-27', text: 'Version two of the terms.', current: true })
    expectProblem(await s.post('/api/v1/admin/tos', { version: '2026-03-27', text: 'again' }, { token: admin }), 409, 'TOS_VERSION_EXISTS')
    expectProblem(await s.post('/api/v1/admin/tos', { version: '1', text: 'again' }, { token: admin }), 409, 'TOS_VERSION_EXISTS')
    expectProblem(await s.post('/api/v1/admin/tos', { version: 'bad version!', text: 'x' }, { token: admin }), 400, 'VALIDATION_FAILED')
    const list = (await s.get('/api/v1/admin/tos', { token: admin })).body
    expect(list.map((v: any) => [v.version, v.current])).toEqual([['2026-03-27', true], ['1', false]])

    const st = (await s.get('/api/v1/operator/tos/status', { token })).body
    expect(st).toMatchObject({ accepted: false, version: '1', currentVersion: '2026-03-27' })
    expectProblem(await s.post('/api/v1/operator/tos/accept', { version: '1' }, { token }), 409, 'TOS_VERSION_NOT_CURRENT')
    const r = await s.post('/api/v1/operator/tos/accept', { version: '2026-03-27' }, { token })
    expect(r.status).toBe(200)
    expect((await s.get('/api/v1/operator/tos/status', { token })).body).toMatchObject({ accepted: true, version: '2026-03-27', ipfsCid: r.body.ipfsCid })
  })
})

describe('TASKGATE_TOS_REQUIRED=1', () => {
  let r: TestServer
  let radmin: string
  beforeAll(async () => {
    r = await startServer({ TASKGATE_TOS_REQUIRED: '1' })
    radmin = await r.setupAdmin()
  })
  afterAll(async () => { await r.cleanup() })

  test('submit and compute need the current version accepted (403 before any credit); a replay still answers the original', async () => {
    const token = await r.signup('tos-required')
    const agent = (await r.post('/api/v1/agents/register', { displayName: 'tos-bot', capabilities: ['general'] }, { token })).body
    const body = { agentId: agent.agentId, taskType: 'general', prompt: 'Terms first. Then tasks. Both are recorded.' }
    const balance = async () => (await r.get('/api/v1/operator/billing', { token })).body.balance.balance
    const b0 = await balance()
    expectProblem(await r.post('/api/v1/tasks/submit', body, { key: agent.apiKey }), 403, 'TOS_NOT_ACCEPTED')
    expectProblem(await r.post('/api/v1/compute', { prompt: 'hello' }, { token }), 403, 'TOS_NOT_ACCEPTED')
    expectProblem(await r.post(`/api/v1/agents/${agent.agentId}/test-run`, {}, { token }), 403, 'TOS_NOT_ACCEPTED')
    expect(await balance()).toBe(b0)

    await r.post('/api/v1/operator/tos/accept', { version: '1' }, { token })
    const first = await r.post('/api/v1/tasks/submit?wait=30', body, { key: agent.apiKey, headers: { 'idempotency-key': 'tos-1' } })
    expect(first.status).toBe(200)
    expect(first.body.status).toBe('COMPLETED')
    expect((await r.post('/api/v1/compute', { prompt: 'hello' }, { token })).status).toBe(202)

    // a new version: new work is refused until it is accepted, a replay still answers
    expect((await r.post('/api/v1/admin/tos', { version: '2', text: 'Second terms.' }, { token: radmin })).status).toBe(200)
    const b1 = await balance()
    const again = await r.post('/api/v1/tasks/submit?wait=30', body, { key: agent.apiKey, headers: { 'idempotency-key': 'tos-1' } })
    expect(again.status).toBe(200)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.body.id).toBe(first.body.id)
    expectProblem(await r.post('/api/v1/tasks/submit', body, { key: agent.apiKey }), 403, 'TOS_NOT_ACCEPTED')
    expectProblem(await r.post('/api/v1/compute', { prompt: 'hello' }, { token }), 403, 'TOS_NOT_ACCEPTED')
    expect(await balance()).toBe(b1)
    await r.post('/api/v1/operator/tos/accept', { version: '2' }, { token })
    expect((await r.post('/api/v1/tasks/submit?wait=30', body, { key: agent.apiKey })).body.status).toBe('COMPLETED')
    expect((await r.post(`/api/v1/agents/${agent.agentId}/test-run`, {}, { token })).body.status).toBe('COMPLETED')
  })
})
