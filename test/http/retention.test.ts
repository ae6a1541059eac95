// Free rows cannot fill the disk (issue 30, item 2; docs/security.md, Limits). A task refused
// before its debit costs nothing, so it keeps its prompt's SHA-256 and length instead of the
// prompt (and no metadata); an operator holds at most TASKGATE_MAX_PENDING_APPROVALS requests
// (3 here, 100 by default), beyond which a submission that would be held is refused with 429
// and leaves nothing behind; a daily job deletes refused tasks and webhook deliveries older than
// TASKGATE_RETENTION_DAYS (30), keeping the counters, the ledger and the state roots consistent.
// Time moves with the test clock, never by sleeping.
import { withTestDb } from '../helpers/data'
import { TEST_POSTGRES } from '../helpers/postgres'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { expectProblem, startServer, type TestServer } from '../helpers/server'
import { rollupDrift } from '../../src/tasks/counters'

const DAY = 86_400_000
let s: TestServer
let admin: string
let receiver: ReturnType<typeof Bun.serve>
let received = 0

beforeAll(async () => {
  receiver = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => { received++; return new Response('ok') } })
  s = await startServer({
    TASKGATE_TEST_CLOCK: '1', TASKGATE_MAX_PENDING_APPROVALS: '3', TASKGATE_WEBHOOK_ALLOW_PRIVATE: '1',
    TASKGATE_TOKEN_TTL_SECONDS: String(120 * 86_400), // tokens outlive the clock's jump of a month
  })
  admin = await s.setupAdmin()
}, 30_000)
afterAll(async () => {
  await s?.cleanup()
  receiver?.stop(true)
})

interface Op { token: string; id: string; agentId: string; agentKey: string }
let n = 0

async function operator(): Promise<Op> {
  const token = await s.signup(`ret-${++n}-${crypto.randomUUID().slice(0, 6)}`)
  const id = (await s.get('/api/v1/auth/me', { token })).body.id
  const r = await s.post('/api/v1/agents/register', { displayName: `Keeper ${n}`, capabilities: ['general', 'spend_control'] }, { token })
  expect(r.status).toBe(201)
  return { token, id, agentId: r.body.agentId, agentKey: r.body.apiKey }
}

const advance = async (ms: number) => expect((await s.post('/api/v1/admin/clock/advance', { ms }, { token: admin })).status).toBe(200)

async function guard(o: Op, patch: Record<string, unknown>): Promise<void> {
  expect((await s.patch('/api/v1/operator/guardrails', patch, { token: o.token })).status).toBe(200)
  await advance(30_000)
}

const ACTION = { actionType: 'spend_control', operation: 'invoice_payment', target: '0xAcme', requestedValue: 500, currency: 'USDC' }
const submit = (o: Op, prompt: string, extra: Record<string, unknown> = {}) =>
  s.post('/api/v1/tasks/submit?wait=10', { agentId: o.agentId, taskType: 'general', prompt, ...extra }, { key: o.agentKey })
const hold = (o: Op) => submit(o, 'Pay the Acme invoice.', { taskType: 'spend_control', action: ACTION })

/**
 * Bytes of the tasks table (SQLite: its b-tree, overflow pages included; PostgreSQL: with its TOAST
 * table and indexes), and of the whole database in use, through a second connection.
 */
const sizes = () => withTestDb(s.dataDir, (db) => {
  if (db.dialect === 'postgres') {
    return db.query("SELECT pg_total_relation_size('tasks') AS tasks, pg_database_size(current_database()) AS used").get() as { tasks: number; used: number }
  }
  const tasks = (db.query("SELECT sum(pgsize) AS b FROM dbstat WHERE name = 'tasks'").get() as { b: number }).b
  const { page_size: pageSize } = db.query('PRAGMA page_size').get() as { page_size: number }
  const { page_count: pages } = db.query('PRAGMA page_count').get() as { page_count: number }
  const { freelist_count: free } = db.query('PRAGMA freelist_count').get() as { freelist_count: number }
  return { tasks, used: (pages - free) * pageSize }
})

const operatorTasks = async (o: Op) => (await s.get('/api/v1/operator/tasks?limit=100', { token: o.token })).body as { data: { id: string }[]; total: number }
const deliveries = async (o: Op) => (await s.get('/api/v1/operator/webhooks/deliveries?limit=100', { token: o.token })).body as { data: { id: string; status: string }[]; total: number }

async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean): Promise<T> {
  let v = await fn()
  for (let i = 0; i < 250 && !ok(v); i++) { await Bun.sleep(20); v = await fn() }
  if (!ok(v)) throw new Error(`condition not met: ${JSON.stringify(v).slice(0, 400)}`)
  return v
}

describe('refused tasks keep the prompt\'s hash, not the prompt', () => {
  test('30 refused submits of 100,000-character prompts add far less than the prompts to the database', async () => {
    const o = await operator()
    await guard(o, { blockedPatterns: ['forbidden'] })
    const before = await sizes()
    let last: { prompt: string; task: any } | null = null
    for (let i = 0; i < 30; i++) {
      const prompt = `forbidden ${i} `.padEnd(100_000, 'abcdefghij')
      const r = await submit(o, prompt, { metadata: { note: 'y'.repeat(50_000) } })
      expectProblem(r, 403, 'GUARDRAIL_BLOCKED')
      last = { prompt, task: r.body.task }
    }
    const after = await sizes()
    // The prompts alone are 3,000,000 bytes (and the metadata 1,500,000); stored, they were more.
    // (PostgreSQL grows the table and each of its indexes by 8 KB pages: a coarser bound there.)
    const pg = TEST_POSTGRES !== null
    expect(after.tasks - before.tasks).toBeLessThan(pg ? 300_000 : 100_000)
    expect(after.used - before.used).toBeLessThan(pg ? 1_000_000 : 500_000)
    // the owner's view: the hash and length instead of the prompt, no metadata
    const sha = createHash('sha256').update(last!.prompt).digest('hex')
    for (const view of [last!.task, (await s.get(`/api/v1/tasks/${last!.task.id}`, { token: o.token })).body]) {
      expect(view).toMatchObject({ status: 'FAILED', failureCode: 'GUARDRAIL_BLOCKED', stage: 0, promptSha256: sha, promptLength: 100_000, metadata: null })
      expect('prompt' in view).toBe(false)
    }
    // a task that runs keeps its prompt, and the owner reads it
    const ok = await submit(o, 'An allowed prompt.')
    expect(ok.body).toMatchObject({ status: 'COMPLETED', prompt: 'An allowed prompt.' })
    expect('promptSha256' in ok.body).toBe(false)
  }, 60_000)

  test('a held task keeps its prompt while it waits; denied, it keeps only the hash', async () => {
    const o = await operator()
    await guard(o, { approvalThreshold: 1 })
    const h = await hold(o)
    expect(h.status).toBe(202)
    expect((await s.get(`/api/v1/tasks/${h.body.id}`, { token: o.token })).body).toMatchObject({ status: 'PENDING_APPROVAL', prompt: 'Pay the Acme invoice.' })
    expect((await s.patch(`/api/v1/approvals/${h.body.approvalId}`, { decision: 'denied' }, { token: o.token })).status).toBe(200)
    const denied = (await s.get(`/api/v1/tasks/${h.body.id}`, { token: o.token })).body
    expect(denied).toMatchObject({ status: 'FAILED', failureCode: 'APPROVAL_DENIED', promptLength: 21, promptSha256: createHash('sha256').update('Pay the Acme invoice.').digest('hex') })
    expect('prompt' in denied).toBe(false)
  }, 60_000)
})

describe('pending approvals per operator', () => {
  test('beyond TASKGATE_MAX_PENDING_APPROVALS → 429 TOO_MANY_PENDING_APPROVALS, and nothing is recorded: no task, no approval, no webhook', async () => {
    const o = await operator()
    await guard(o, { approvalThreshold: 1, approvalWebhookUrl: `http://127.0.0.1:${receiver.port}/hook` })
    for (let i = 0; i < 3; i++) expect((await hold(o)).status).toBe(202)
    const tasks = await operatorTasks(o)
    const hooks = await deliveries(o)
    const publicTotal = (await s.get(`/api/v1/tasks?operatorId=${o.id}`)).body.total
    const balance = (await s.get('/api/v1/operator/billing', { token: o.token })).body.balance.balance

    const r = await hold(o)
    expectProblem(r, 429, 'TOO_MANY_PENDING_APPROVALS')
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(r.body).toMatchObject({ limit: 3, pending: 3 })
    expect(await operatorTasks(o)).toEqual(tasks)
    expect((await s.get(`/api/v1/tasks?operatorId=${o.id}`)).body.total).toBe(publicTotal)
    expect((await s.get('/api/v1/approvals/count', { token: o.token })).body).toEqual({ pending: 3 })
    expect((await deliveries(o)).total).toBe(hooks.total)
    expect((await s.get('/api/v1/operator/billing', { token: o.token })).body.balance.balance).toBe(balance)

    // work under the threshold still runs; another operator is not affected
    expect((await submit(o, 'Not an action.')).body.status).toBe('COMPLETED')
    const other = await operator()
    await guard(other, { approvalThreshold: 1 })
    expect((await hold(other)).status).toBe(202)
    // a resolved request frees its place
    const oldest = (await s.get('/api/v1/approvals', { token: o.token })).body.at(-1)
    expect((await s.patch(`/api/v1/approvals/${oldest.id}`, { decision: 'denied' }, { token: o.token })).status).toBe(200)
    expect((await hold(o)).status).toBe(202)
    expectProblem(await hold(o), 429, 'TOO_MANY_PENDING_APPROVALS')
  }, 60_000)
})

describe('retention', () => {
  test('after TASKGATE_RETENTION_DAYS the daily job deletes refused tasks (their approvals too) and webhook deliveries; the rest and recent rows stay, and every counter agrees', async () => {
    const o = await operator()
    await guard(o, { approvalThreshold: 1, blockedPatterns: ['forbidden'], approvalWebhookUrl: `http://127.0.0.1:${receiver.port}/hook` })
    const refused = (await submit(o, 'A forbidden prompt.')).body.task.id as string
    const h = await hold(o)
    expect((await s.patch(`/api/v1/approvals/${h.body.approvalId}`, { decision: 'denied', note: 'no' }, { token: o.token })).status).toBe(200)
    const done = (await submit(o, 'A prompt that runs.')).body
    expect(done.status).toBe('COMPLETED')
    const waiting = await hold(o) // still pending when the clock jumps: it expires then, so it failed recently
    const oldHooks = await until(() => deliveries(o), (d) => d.total === 3 && d.data.every((x) => x.status === 'delivered'))
    const ledger = (await s.get('/api/v1/operator/billing?limit=100', { token: o.token })).body.transactions
    const agent = (await s.get(`/api/v1/agents/${o.agentId}`, { token: o.token })).body

    await advance(29 * DAY)
    expect((await s.get(`/api/v1/tasks/${refused}`, { token: o.token })).status).toBe(200) // not yet
    await advance(2 * DAY)
    const recent = (await submit(o, 'Another forbidden prompt.')).body.task.id as string

    for (const id of [refused, h.body.id]) expectProblem(await s.get(`/api/v1/tasks/${id}`, { token: o.token }), 404, 'NOT_FOUND')
    expectProblem(await s.get(`/api/v1/approvals/${h.body.approvalId}`, { token: o.token }), 404, 'NOT_FOUND')
    expect((await s.get(`/api/v1/tasks/${done.id}`)).body).toMatchObject({ status: 'COMPLETED', receiptCid: done.receiptCid })
    expect((await s.get(`/api/v1/public/proof/${done.receiptCid}`)).body.verification).toMatchObject({ signatureValid: true, cidMatches: true })
    expect((await s.get(`/api/v1/tasks/${waiting.body.id}`, { token: o.token })).body).toMatchObject({ status: 'FAILED', failureCode: 'APPROVAL_EXPIRED' })
    expect((await s.get(`/api/v1/approvals/${waiting.body.approvalId}`, { token: o.token })).body.decision).toBe('EXPIRED')
    expect((await s.get(`/api/v1/tasks/${recent}`, { token: o.token })).status).toBe(200)
    // the old deliveries are gone; the expiry's one, sent after the jump, stays
    const hooks = await deliveries(o)
    expect(hooks.data.filter((d) => oldHooks.data.some((x) => x.id === d.id))).toEqual([])
    expect(hooks.total).toBe(hooks.data.length)
    expect(hooks.total).toBeGreaterThanOrEqual(1)

    // lists and their totals, the ledger and the agent's chain agree with what is stored
    const list = await operatorTasks(o)
    expect(list.data.map((t) => t.id).sort()).toEqual([done.id, waiting.body.id, recent].sort())
    expect(list.total).toBe(3)
    expect((await s.get(`/api/v1/tasks?operatorId=${o.id}&status=FAILED`)).body.total).toBe(2)
    const series = (await s.get('/api/v1/operator/stats/daily?days=90', { token: o.token })).body.series as { tasks: { total: number; failed: number } }[]
    expect(series.reduce((sum, d) => sum + d.tasks.total, 0)).toBe(3)
    expect(series.reduce((sum, d) => sum + d.tasks.failed, 0)).toBe(2)
    const after = (await s.get('/api/v1/operator/billing?limit=100', { token: o.token })).body.transactions
    for (const entry of ledger) expect(after).toContainEqual(entry)
    const now = (await s.get(`/api/v1/agents/${o.agentId}`, { token: o.token })).body
    expect(now).toMatchObject({ stateRoot: agent.stateRoot, metrics: { totalTasks: 1, verifiedTasks: agent.metrics.verifiedTasks }, verificationHistory: agent.verificationHistory })
    expect(now.metrics.failedTasks).toBe(agent.metrics.failedTasks + 2) // the expiry and the recent refusal; the pruned ones still count
    await withTestDb(s.dataDir, (db) => {
      if (db.sqlite) expect(rollupDrift(db.sqlite)).toEqual([]) // SQLite's recomputation; PostgreSQL's triggers: test/unit/pg-counters.test.ts
      for (const table of ['approvals', 'task_events']) {
        expect({ table, orphans: (db.query(`SELECT count(*) AS n FROM ${table} WHERE task_id NOT IN (SELECT id FROM tasks)`).get() as { n: number }).n }).toEqual({ table, orphans: 0 })
      }
    })
  }, 60_000)
})
