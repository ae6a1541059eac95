// What a caller who is not a task's operator sees of it (issue 30, item 1; docs/security.md, "An
// anonymous client"). Failed tasks are listed publicly, so their failure must not carry private
// text: the refusal's wording quotes the prompt and the guardrail config, an approval's note, the
// operator's credit figures or the kill-switch's reason. Anonymous views, and views by another
// operator, carry `failureCode` and never `failureMessage` (the member is absent); the task's
// operator sees both. Every public surface that shows tasks is checked for the private text.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { expectProblem, startServer, type TestServer } from '../helpers/server'

let s: TestServer
let admin: string

beforeAll(async () => {
  s = await startServer({ TASKGATE_TEST_CLOCK: '1' })
  admin = await s.setupAdmin()
}, 30_000)
afterAll(async () => { await s?.cleanup() })

interface Op { token: string; id: string; agentId: string; agentKey: string; opKey: string }
let n = 0

async function operator(): Promise<Op> {
  const token = await s.signup(`priv-${++n}-${crypto.randomUUID().slice(0, 6)}`)
  const id = (await s.get('/api/v1/auth/me', { token })).body.id
  const r = await s.post('/api/v1/agents/register', { displayName: `Private ${n}`, capabilities: ['general', 'spend_control'] }, { token })
  expect(r.status).toBe(201)
  return { token, id, agentId: r.body.agentId, agentKey: r.body.apiKey, opKey: (await s.createKey(token, 'ops')).key }
}

async function guard(o: Op, patch: Record<string, unknown>): Promise<void> {
  expect((await s.patch('/api/v1/operator/guardrails', patch, { token: o.token })).status).toBe(200)
  expect((await s.post('/api/v1/admin/clock/advance', { ms: 30_000 }, { token: admin })).status).toBe(200)
}

const submit = (o: Op, prompt: string, action?: Record<string, unknown>) =>
  s.post('/api/v1/tasks/submit?wait=10', { agentId: o.agentId, taskType: action ? 'spend_control' : 'general', prompt, ...(action ? { action } : {}) }, { key: o.agentKey })

/** A task refused at stage 1: 403 GUARDRAIL_BLOCKED with the FAILED task; returns its id. */
async function refused(o: Op, prompt: string): Promise<string> {
  const r = await submit(o, prompt)
  expectProblem(r, 403, 'GUARDRAIL_BLOCKED')
  return r.body.task.id
}

/** A task held for approval; returns its id and approval id. */
async function held(o: Op): Promise<{ taskId: string; approvalId: string }> {
  const r = await submit(o, 'Pay the supplier invoice.', { actionType: 'spend_control', requestedValue: 500, currency: 'USDC' })
  expect(r.status).toBe(202)
  return { taskId: r.body.id, approvalId: r.body.approvalId }
}

/**
 * Every way a caller who is not the task's operator reads it: the detail anonymously, with another
 * operator's token and with its operator key, the public lists that contain it, the agent's
 * passport, the platform stats and the leaderboard. None carries `failureMessage` or `secret`.
 */
async function expectPrivate(o: Op, taskId: string, code: string, secret: string): Promise<void> {
  const other = await operator()
  for (const cred of [{}, { token: other.token }, { key: other.opKey }]) {
    const r = await s.get(`/api/v1/tasks/${taskId}`, cred)
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ id: taskId, status: 'FAILED', failureCode: code })
    expect('failureMessage' in r.body).toBe(false)
    expect('prompt' in r.body || 'timeline' in r.body || 'metadata' in r.body).toBe(false)
    expect(r.text).not.toContain(secret)
  }
  const surfaces = [
    '/api/v1/tasks?status=FAILED&limit=100', `/api/v1/tasks?operatorId=${o.id}`, `/api/v1/tasks?agentId=${o.agentId}&status=FAILED`,
    `/api/v1/public/agent/${o.agentId}/passport`, '/api/v1/public/stats', '/api/v1/public/stats/daily?days=7', '/api/v1/public/leaderboard',
  ]
  for (const path of surfaces) {
    const r = await s.get(path)
    expect({ path, status: r.status }).toEqual({ path, status: 200 })
    expect({ path, leaks: r.text.includes(secret) || r.text.includes('failureMessage') }).toEqual({ path, leaks: false })
  }
  expect((await s.get('/api/v1/tasks?status=FAILED&limit=100')).body.data.map((t: { id: string }) => t.id)).toContain(taskId)
  // the stage events are the owner's only
  expectProblem(await s.get(`/api/v1/tasks/${taskId}/events`), 401, 'UNAUTHENTICATED')
  expectProblem(await s.get(`/api/v1/tasks/${taskId}/events`, { token: other.token }), 404, 'NOT_FOUND')
  // the task's operator (bearer, operator key, the agent's own key) reads the message
  for (const cred of [{ token: o.token }, { key: o.opKey }, { key: o.agentKey }]) {
    const mine = await s.get(`/api/v1/tasks/${taskId}`, cred)
    expect(mine.body.failureCode).toBe(code)
    expect(mine.body.failureMessage).toContain(secret)
  }
}

describe('failed tasks seen by anyone but their operator', () => {
  test('a blocked pattern: the message quotes the pattern and the prompt; only failureCode is public', async () => {
    const o = await operator()
    await guard(o, { blockedPatterns: ['zebracorn'] })
    const id = await refused(o, 'Summarise the zebracorn memo.')
    await expectPrivate(o, id, 'GUARDRAIL_BLOCKED', 'zebracorn')
  }, 60_000)

  test('maxPromptLength: the prompt length and the limit stay private', async () => {
    const o = await operator()
    await guard(o, { maxPromptLength: 20 })
    const id = await refused(o, 'x'.repeat(1234))
    await expectPrivate(o, id, 'GUARDRAIL_BLOCKED', '1234 characters')
  }, 60_000)

  test('maxCreditsPerDay: the credits spent today stay private', async () => {
    const o = await operator()
    await guard(o, { maxCreditsPerDay: 1 })
    expect((await submit(o, 'A first, allowed task.')).body.status).toBe('COMPLETED')
    const id = await refused(o, 'A second task, over the day\'s credits.')
    await expectPrivate(o, id, 'GUARDRAIL_BLOCKED', 'spent today')
  }, 60_000)

  test('a denied approval: the approver\'s note stays private', async () => {
    const o = await operator()
    await guard(o, { approvalThreshold: 1 })
    const h = await held(o)
    const r = await s.patch(`/api/v1/approvals/${h.approvalId}`, { decision: 'denied', note: 'private reason 7f3a' }, { token: o.token })
    expect(r.status).toBe(200)
    await expectPrivate(o, h.taskId, 'APPROVAL_DENIED', 'private reason 7f3a')
  }, 60_000)

  test('the kill-switch: its reason stays private', async () => {
    const o = await operator()
    await guard(o, { approvalThreshold: 1 })
    const h = await held(o)
    expect((await s.patch('/api/v1/operator/kill-switch', { active: true, reason: 'incident 9c1d' }, { token: o.token })).status).toBe(200)
    await expectPrivate(o, h.taskId, 'KILL_SWITCH_ACTIVE', 'incident 9c1d')
  }, 60_000)
})
