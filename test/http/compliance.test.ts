// Compliance certificates over real HTTP (docs/compliance.md): FREE → 403, on demand for PRO
// (the current month so far), verified from the certificate alone with the lines of
// docs/compliance.md, the same JSON on IPFS, and the monthly certificate from the scheduler (the
// test clock moves into the next month; nothing sleeps).
import { advanceStoppedClock } from '../helpers/data'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { keccak256, toBytes, verifyMessage } from 'viem'
import { expectProblem, ROOT, startServer, type TestServer } from '../helpers/server'

// The verification of docs/compliance.md, line for line (the first test checks the document still shows these lines).
const VERIFY_LINES = [
  "const canon = (v: any): string => v === null || typeof v !== 'object' ? JSON.stringify(v) : Array.isArray(v) ? `[${v.map(canon).join(',')}]` : `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canon(v[k])}`).join(',')}}`",
  'const { certHash, signature, signer, ipfsCid, ...body } = cert',
  'const valid = keccak256(toBytes(canon(body))) === certHash && await verifyMessage({ address: signer, message: { raw: certHash }, signature })',
]
async function verify(cert: any): Promise<boolean> {
  const canon = (v: any): string => v === null || typeof v !== 'object' ? JSON.stringify(v) : Array.isArray(v) ? `[${v.map(canon).join(',')}]` : `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canon(v[k])}`).join(',')}}`
  const { certHash, signature, signer, ipfsCid, ...body } = cert
  const valid = keccak256(toBytes(canon(body))) === certHash && await verifyMessage({ address: signer, message: { raw: certHash }, signature })
  return valid
}

let s: TestServer
let admin: string

beforeAll(async () => {
  s = await startServer({ TASKGATE_TEST_CLOCK: '1' })
  admin = await s.setupAdmin()
})
afterAll(async () => { await s.cleanup() })

async function operator(login: string, tier: 'FREE' | 'PRO' | 'ENTERPRISE') {
  const token = await s.signup(login)
  const me = (await s.get('/api/v1/auth/me', { token })).body
  if (tier !== 'FREE') expect((await s.patch(`/api/v1/admin/operators/${me.id}`, { tierOverride: tier }, { token: admin })).status).toBe(200)
  const agent = (await s.post('/api/v1/agents/register', { displayName: `${login}-bot`, capabilities: ['general'] }, { token })).body
  return { token, id: me.id as string, agent }
}
const submit = (o: Awaited<ReturnType<typeof operator>>) =>
  s.post('/api/v1/tasks/submit?wait=30', { agentId: o.agent.agentId, taskType: 'general', prompt: 'Compliance counts every task. The certificate is signed. Anyone can check it.' }, { key: o.agent.apiKey })

describe('compliance certificates', () => {
  test('docs/compliance.md shows the verification lines this test uses', () => {
    const doc = readFileSync(join(ROOT, 'docs/compliance.md'), 'utf8')
    for (const line of VERIFY_LINES) expect(doc).toContain(line)
  })

  test('FREE operators get 403 TIER_REQUIRED', async () => {
    const o = await operator('cert-free', 'FREE')
    expectProblem(await s.get('/api/v1/operator/compliance', { token: o.token }), 403, 'TIER_REQUIRED')
    expectProblem(await s.post('/api/v1/operator/compliance/generate', undefined, { token: o.token }), 403, 'TIER_REQUIRED')
    expectProblem(await s.post('/api/v1/operator/compliance/generate', undefined, { key: o.agent.apiKey }), 401, 'CREDENTIAL_NOT_ACCEPTED')
  })

  test('PRO: a certificate of the month so far that verifies from itself alone and is on IPFS', async () => {
    const o = await operator('cert-pro', 'PRO')
    expect((await s.get('/api/v1/operator/compliance', { token: o.token })).body).toEqual([])
    expect((await submit(o)).body.status).toBe('COMPLETED')
    expect((await submit(o)).body.status).toBe('COMPLETED')
    const now = Date.parse((await s.post('/api/v1/admin/clock/advance', { ms: 0 }, { token: admin })).body.now)
    const r = await s.post('/api/v1/operator/compliance/generate', undefined, { token: o.token })
    expect(r.status).toBe(200)
    const cert = r.body
    expect(await verify(cert)).toBe(true)
    const d = new Date(now)
    expect(structuredClone(cert)).toMatchObject({ id: expect.stringMatching(/^cert_/), operatorId: o.id, tier: 'PRO', periodStart: new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)).toISOString() })
    expect(Date.parse(cert.periodEnd)).toBeGreaterThanOrEqual(now)
    expect(Date.parse(cert.expiresAt)).toBeGreaterThan(Date.parse(cert.issuedAt))
    const agent = (await s.get(`/api/v1/agents/${o.agent.agentId}`, { token: o.token })).body
    expect(cert.summary).toMatchObject({
      totalTasks: 2, taskCounts: { COMPLETED: 2, FAILED: 0, PROCESSING: 0, QUEUED: 0, PENDING_APPROVAL: 0 }, creditsSpent: 2,
      agents: [{ agentId: o.agent.agentId, tasks: 2, stateRoot: agent.stateRoot }],
    })
    expect(cert.summary.verificationRate).toBe(cert.summary.verifiedTasks / 2)
    const signers = (await s.get('/.well-known/taskgate-signers')).body
    expect(cert.signer).toBe(signers.signers[0].address)

    expect(await verify(cert)).toBe(true)
    expect(await verify({ ...cert, summary: { ...cert.summary, creditsSpent: 1 } })).toBe(false)
    expect(await verify({ ...cert, operatorId: 'op_someone_else' })).toBe(false)

    // ipfsCid holds the same certificate (without its own CID)
    const { ipfsCid, ...rest } = cert
    expect((await s.get(`/ipfs/${ipfsCid}`)).body).toEqual(rest)

    const second = (await s.post('/api/v1/operator/compliance/generate', undefined, { token: o.token })).body
    const list = (await s.get('/api/v1/operator/compliance', { token: o.token })).body
    expect(list.map((c: any) => c.id)).toEqual([second.id, cert.id])
    expect(list[1]).toEqual(cert)
  })

  test('the scheduler issues one certificate per PRO/ENTERPRISE operator for the month that ended', async () => {
    const pro = await operator('cert-monthly-pro', 'PRO')
    const ent = await operator('cert-monthly-ent', 'ENTERPRISE')
    await operator('cert-monthly-free', 'FREE')
    expect((await submit(pro)).body.status).toBe('COMPLETED')
    const now = Date.parse((await s.post('/api/v1/admin/clock/advance', { ms: 0 }, { token: admin })).body.now)
    const d = new Date(now)
    const thisMonth = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)
    const nextMonth = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)
    await s.post('/api/v1/admin/clock/advance', { ms: nextMonth - now + 3_600_000 }, { token: admin })
    // bearer tokens expired on the way: sign in again
    const login = async (l: string, password = 'operator-password') => (await s.post('/api/v1/auth/login', { login: l, password })).body.accessToken as string
    pro.token = await login('cert-monthly-pro')
    ent.token = await login('cert-monthly-ent')

    const monthly = async (token: string) => {
      for (let i = 0; i < 200; i++) { // the job runs right after the advance; give it its moment
        const l = (await s.get('/api/v1/operator/compliance', { token })).body
        const m = l.filter((c: any) => c.periodEnd === new Date(nextMonth).toISOString())
        if (m.length) return m
        await Bun.sleep(25)
      }
      return []
    }
    const [p] = await monthly(pro.token)
    expect(await verify(p)).toBe(true)
    expect(p).toMatchObject({ operatorId: pro.id, tier: 'PRO', periodStart: new Date(thisMonth).toISOString(), periodEnd: new Date(nextMonth).toISOString() })
    expect(p.summary).toMatchObject({ totalTasks: 1, taskCounts: { COMPLETED: 1 } })
    expect(await verify(p)).toBe(true)
    const [e] = await monthly(ent.token)
    expect(await verify(e)).toBe(true)
    expect(e).toMatchObject({ operatorId: ent.id, tier: 'ENTERPRISE', summary: { totalTasks: 0 } })
    expect(await verify(e)).toBe(true)
    // once per month: another day of the same month issues none
    admin = await login('admin', 'admin-password')
    await s.post('/api/v1/admin/clock/advance', { ms: 86_400_000 }, { token: admin })
    pro.token = await login('cert-monthly-pro')
    expect((await monthly(pro.token)).length).toBe(1)
  })

  test('a month that ended while the server was down gets its certificate at start', async () => {
    admin = (await s.post('/api/v1/auth/login', { login: 'admin', password: 'admin-password' })).body.accessToken // the clock moved past its token
    const o = await operator('cert-sleepy', 'PRO')
    const now = Date.parse((await s.post('/api/v1/admin/clock/advance', { ms: 0 }, { token: admin })).body.now)
    const d = new Date(now)
    const thisMonth = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)
    const nextMonth = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)
    await s.stop()
    // the month ends while the server is down (the test clock's persisted offset moves on)
    await advanceStoppedClock(s.dataDir, nextMonth - now + 3_600_000)
    await s.start()
    const token = (await s.post('/api/v1/auth/login', { login: 'cert-sleepy', password: 'operator-password' })).body.accessToken
    let list: any[] = []
    for (let i = 0; i < 200 && list.length === 0; i++) { list = (await s.get('/api/v1/operator/compliance', { token })).body; if (!list.length) await Bun.sleep(25) }
    expect(list).toHaveLength(1)
    expect(await verify(list[0])).toBe(true)
    expect(list[0]).toMatchObject({ operatorId: o.id, periodStart: new Date(thisMonth).toISOString(), periodEnd: new Date(nextMonth).toISOString() })
  })
})
