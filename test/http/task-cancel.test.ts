// Cancelling a task over REST (POST /api/v1/tasks/{id}/cancel; docs/pipeline.md, "Cancelling a
// task"): a task held for approval (its request ends EXPIRED, nothing charged) and one waiting in
// the overflow queue (its job leaves the queue, the debit is refunded once, balance and ledger
// agree), twice is harmless, a task past compute or finished is 409 TASK_NOT_CANCELABLE, and the
// usual scoping (another agent's key, another operator → 404). Time-based behaviour (guardrails
// activating after 30 s) uses the test clock.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { FakeLLM, gate } from '../helpers/fake-llm'
import { expectProblem, startServer, type TestServer } from '../helpers/server'

let s: TestServer
let fake: FakeLLM
let admin: string

beforeAll(async () => {
  fake = await FakeLLM.start()
  s = await startServer({ TASKGATE_TEST_CLOCK: '1', TASKGATE_WEBHOOK_ALLOW_PRIVATE: '1' })
  admin = await s.setupAdmin()
}, 30_000)
afterAll(async () => {
  await s?.cleanup()
  fake?.stop()
})

/** Polls a read until it satisfies `ok` (state reached by the server's own work, not time). */
async function until<T>(fn: () => Promise<T>, ok: (v: T) => boolean, tries = 250, ms = 20): Promise<T> {
  let v = await fn()
  for (let i = 0; i < tries && !ok(v); i++) { await Bun.sleep(ms); v = await fn() }
  if (!ok(v)) throw new Error(`condition not met: ${JSON.stringify(v).slice(0, 400)}`)
  return v
}

const billing = async (token: string) => (await s.get('/api/v1/operator/billing?limit=100', { token })).body as { balance: { balance: number }; transactions: { delta: number; reason: string; taskId: string | null }[] }

async function heldTask(o: { token: string; agent: any }, prompt = 'Pay the supplier invoice.') {
  const r = await s.post('/api/v1/tasks/submit?wait=0', { agentId: o.agent.agentId, taskType: 'general', prompt, action: { requestedValue: 500, currency: 'USD' } }, { token: o.token })
  expect(r.body.status).toBe('PENDING_APPROVAL')
  return r.body as { id: string; approvalId: string }
}

describe('POST /api/v1/tasks/{id}/cancel', () => {
  let held: { token: string; id: string; agent: any }
  beforeAll(async () => {
    held = await s.operatorWithAgent('cancel-held', ['general'])
    expect((await s.patch('/api/v1/operator/guardrails', { approvalThreshold: 10, approvalWebhookUrl: 'http://127.0.0.1:9/approvals' }, { token: held.token })).status).toBe(200)
    expect((await s.post('/api/v1/admin/clock/advance', { ms: 31_000 }, { token: admin })).status).toBe(200)
  })

  test('a held task: FAILED TASK_CANCELLED, its approval request EXPIRED with the reason, nothing charged; twice changes nothing', async () => {
    const before = (await billing(held.token)).balance.balance
    const resolvedSent = async () => ((await s.get('/api/v1/operator/webhooks/deliveries?limit=100', { token: held.token })).body.data as { event: string }[]).filter((d) => d.event === 'approval.resolved').length
    const t = await heldTask(held)
    expect(await resolvedSent()).toBe(0)
    const r = await s.post(`/api/v1/tasks/${t.id}/cancel`, undefined, { token: held.token })
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ id: t.id, status: 'FAILED', failureCode: 'TASK_CANCELLED', creditsCharged: 0, approvalId: t.approvalId })
    expect(r.body.failureMessage).toContain('cancelled')
    expect(r.body.prompt).toBeUndefined() // failed before its debit: only the prompt's hash is kept
    expect(r.body.promptSha256).toMatch(/^[0-9a-f]{64}$/)
    const apr = (await s.get(`/api/v1/approvals/${t.approvalId}`, { token: held.token })).body
    expect(apr).toMatchObject({ decision: 'EXPIRED', decidedBy: null })
    expect(apr.decisionNote).toContain('cancelled')
    expect((await s.get('/api/v1/approvals/count', { token: held.token })).body.pending).toBe(0)
    expect(await resolvedSent()).toBe(1) // approval.resolved (decision "expired") goes out, as for an expiry
    // an operator who approves it now is told it is over
    expectProblem(await s.patch(`/api/v1/approvals/${t.approvalId}`, { decision: 'approved' }, { token: held.token }), 409, 'APPROVAL_ALREADY_RESOLVED')
    const again = await s.post(`/api/v1/tasks/${t.id}/cancel`, undefined, { token: held.token })
    expect(again.status).toBe(200)
    expect(again.body).toMatchObject({ status: 'FAILED', failureCode: 'TASK_CANCELLED' })
    expect(again.body.completedAt).toBe(r.body.completedAt)
    expect(again.body.timeline.length).toBe(r.body.timeline.length)
    expect(await resolvedSent()).toBe(1)
    expect((await billing(held.token)).balance.balance).toBe(before)
  })

  test('the agent\'s own key cancels its task; another agent\'s key and another operator get 404 and change nothing', async () => {
    const t = await heldTask(held, 'Refund the customer.')
    const second = await s.post('/api/v1/agents/register', { displayName: 'second', capabilities: ['general'] }, { token: held.token })
    const other = await s.operatorWithAgent('cancel-other', ['general'])
    expectProblem(await s.post(`/api/v1/tasks/${t.id}/cancel`, undefined, { key: second.body.apiKey }), 404, 'NOT_FOUND')
    expectProblem(await s.post(`/api/v1/tasks/${t.id}/cancel`, undefined, { token: other.token }), 404, 'NOT_FOUND')
    expectProblem(await s.post(`/api/v1/tasks/${t.id}/cancel`, undefined, { key: other.agent.apiKey }), 404, 'NOT_FOUND')
    expectProblem(await s.post('/api/v1/tasks/task_unknown/cancel', undefined, { token: held.token }), 404, 'NOT_FOUND')
    expect((await s.get(`/api/v1/tasks/${t.id}`, { token: held.token })).body.status).toBe('PENDING_APPROVAL')
    const r = await s.post(`/api/v1/tasks/${t.id}/cancel`, undefined, { key: held.agent.apiKey })
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ status: 'FAILED', failureCode: 'TASK_CANCELLED' })
    expectProblem(await s.post(`/api/v1/tasks/${t.id}/cancel`, undefined), 401, 'UNAUTHENTICATED')
  })

  test('a completed task, and a failed one → 409 TASK_NOT_CANCELABLE', async () => {
    const done = await s.post('/api/v1/tasks/submit', { agentId: held.agent.agentId, taskType: 'general', prompt: 'A short task that completes.' }, { token: held.token })
    expect(done.body.status).toBe('COMPLETED')
    const r = await s.post(`/api/v1/tasks/${done.body.id}/cancel`, undefined, { token: held.token })
    expectProblem(r, 409, 'TASK_NOT_CANCELABLE')
    expect(r.body.taskStatus).toBe('COMPLETED')
    const denied = await heldTask(held, 'Wire the money.')
    expect((await s.patch(`/api/v1/approvals/${denied.approvalId}`, { decision: 'denied' }, { token: held.token })).status).toBe(200)
    expectProblem(await s.post(`/api/v1/tasks/${denied.id}/cancel`, undefined, { token: held.token }), 409, 'TASK_NOT_CANCELABLE')
    expect((await s.get(`/api/v1/tasks/${done.body.id}`, { token: held.token })).body.status).toBe('COMPLETED')
  })

  test('a task waiting in the overflow queue: the job leaves the queue, the debit is refunded once, balance and ledger agree; the computing task is not cancelable', async () => {
    const KEY = `sk-cancel-${crypto.randomUUID()}`
    const g = gate()
    fake.set(KEY, { content: 'slow answer', gate: g })
    expect((await s.post('/api/v1/admin/providers', { name: 'cancel-provider', kind: 'openai', baseUrl: fake.baseUrl, models: ['cancel-model'], keys: [{ key: KEY, concurrency: 1 }] }, { token: admin })).status).toBe(201)
    const o = await s.operatorWithAgent('cancel-queued', ['general'])
    const start = await billing(o.token)
    const submit = (prompt: string) => s.post('/api/v1/tasks/submit?wait=0', { agentId: o.agent.agentId, taskType: 'general', prompt, model: 'cancel-model' }, { token: o.token })
    // the first task holds the only slot; the second waits in the overflow queue, charged
    const first = await submit('first: computing')
    await fake.waitForRequest((r) => r.key === KEY)
    const second = await submit('second: queued')
    const queued = await until(() => s.get(`/api/v1/tasks/${second.body.id}`, { token: o.token }), (r) => r.body.status === 'QUEUED')
    expect(queued.body.creditsCharged).toBe(1)
    expect((await billing(o.token)).balance.balance).toBe(start.balance.balance - 2)

    const r = await s.post(`/api/v1/tasks/${second.body.id}/cancel`, undefined, { token: o.token })
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ status: 'FAILED', failureCode: 'TASK_CANCELLED', creditsCharged: 0 })
    const job = await fetch(`${s.url}/api/v1/compute/${queued.body.computeJobId}/status`, { headers: { authorization: `Bearer ${o.token}` } })
    const events = await job.text()
    expect(events).toContain('event: failed')
    expect(events).toContain('TASK_CANCELLED')
    // cancelling again refunds nothing more
    expect((await s.post(`/api/v1/tasks/${second.body.id}/cancel`, undefined, { token: o.token })).status).toBe(200)
    // the task in compute cannot be cancelled
    expectProblem(await s.post(`/api/v1/tasks/${first.body.id}/cancel`, undefined, { token: o.token }), 409, 'TASK_NOT_CANCELABLE')

    const after = await billing(o.token)
    expect(after.balance.balance).toBe(start.balance.balance - 1)
    const refunds = after.transactions.filter((t) => t.taskId === second.body.id && t.reason === 'task_refund')
    expect(refunds.map((t) => t.delta)).toEqual([1])
    // the balance is the sum of the ledger
    const sum = (b: typeof start) => b.transactions.reduce((a, t) => a + t.delta, 0)
    expect(after.balance.balance - sum(after)).toBe(start.balance.balance - sum(start))

    // the slot frees: the first task completes, and the cancelled one never runs
    g.release()
    fake.set(KEY, { content: 'free answer' })
    const done = await until(() => s.get(`/api/v1/tasks/${first.body.id}`, { token: o.token }), (x) => x.body.status === 'COMPLETED' || x.body.status === 'FAILED')
    expect(done.body.status).toBe('COMPLETED')
    expect(fake.requestsFor(KEY).filter((q) => JSON.stringify(q.body).includes('second: queued'))).toHaveLength(0)
    expect((await s.get(`/api/v1/tasks/${second.body.id}`, { token: o.token })).body.status).toBe('FAILED')
  })
})
