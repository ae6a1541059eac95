// The approval queue over real HTTP (docs/governance.md, "Approvals"): holds over
// the threshold with nothing charged, every auto-approve rule (amount_cap, allowlisted_target,
// time_window in an IANA zone, trusted_agent; an empty list never auto-approves), list / count /
// detail / resolve with their status codes, approve resuming at stage 2 (the receipt, or the task
// failing for credits), deny, expiry on the scheduler (also across a restart), and the
// kill-switch ending held requests. Time moves with the test clock, never by sleeping.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { expectProblem, startServer, type TestServer } from '../helpers/server'

let s: TestServer
let admin: string

beforeAll(async () => {
  s = await startServer({ TASKGATE_TEST_CLOCK: '1', TASKGATE_WEBHOOK_ALLOW_PRIVATE: '1', TASKGATE_TASK_COST: JSON.stringify({ default: 1, data_analysis: 60 }) })
  admin = await s.setupAdmin()
}, 30_000)
afterAll(async () => { await s?.cleanup() })

let n = 0
interface Op { token: string; id: string; agentId: string; agentKey: string; opKey: string }

async function operator(): Promise<Op> {
  const token = await s.signup(`appr-${++n}-${crypto.randomUUID().slice(0, 6)}`)
  const id = (await s.get('/api/v1/auth/me', { token })).body.id
  const r = await s.post('/api/v1/agents/register', { displayName: `Approver ${n}`, capabilities: ['general', 'spend_control', 'data_analysis'] }, { token })
  expect(r.status).toBe(201)
  const opKey = (await s.createKey(token, 'ops')).key
  return { token, id, agentId: r.body.agentId, agentKey: r.body.apiKey, opKey }
}

const advance = async (ms: number) => expect((await s.post('/api/v1/admin/clock/advance', { ms }, { token: admin })).status).toBe(200)

/** PATCH the guardrails and let the 30 s activation delay pass. */
async function guard(o: Op, patch: Record<string, unknown>): Promise<void> {
  const r = await s.patch('/api/v1/operator/guardrails', patch, { token: o.token })
  expect(r.status).toBe(200)
  await advance(30_000)
  expect((await s.get('/api/v1/operator/guardrails', { token: o.token })).body.current).toMatchObject(patch)
}

const balance = async (o: Op) => (await s.get('/api/v1/operator/billing', { token: o.token })).body.balance.balance as number

const ACTION = { actionType: 'spend_control', operation: 'invoice_payment', target: '0xAcmeCorp', requestedValue: 12000, currency: 'USDC', evidenceRefs: ['ipfs://invoice-17'] }

const submit = (o: Op, action: Record<string, unknown> = ACTION, taskType = 'spend_control') =>
  s.post('/api/v1/tasks/submit?wait=10', { agentId: o.agentId, taskType, prompt: 'Pay the Acme invoice of this month.', action }, { key: o.agentKey })

async function held(o: Op, action: Record<string, unknown> = ACTION, taskType = 'spend_control'): Promise<{ taskId: string; approvalId: string }> {
  const r = await submit(o, action, taskType)
  expect(r.status).toBe(202)
  expect(r.body).toMatchObject({ status: 'PENDING_APPROVAL', creditsCharged: 0, stage: 1 })
  expect(r.body.approvalId).toMatch(/^apr_/)
  expect((await s.get(`/api/v1/tasks/${r.body.id}`, { key: o.agentKey })).body).toEqual(r.body) // the answer's timeline (from memory) is the stored one
  return { taskId: r.body.id, approvalId: r.body.approvalId }
}

const task = async (o: Op, id: string) => (await s.get(`/api/v1/tasks/${id}`, { token: o.token })).body

describe('holds and the queue', () => {
  let o: Op, other: Op
  let h: { taskId: string; approvalId: string }
  beforeAll(async () => {
    o = await operator(); other = await operator()
    await guard(o, { approvalThreshold: 5000 })
  })

  test('over the threshold → 202 PENDING_APPROVAL with approvalId, nothing charged; at or under it runs', async () => {
    const before = await balance(o)
    h = await held(o)
    expect(await balance(o)).toBe(before)
    const t = await task(o, h.taskId)
    expect(t).toMatchObject({ status: 'PENDING_APPROVAL', approvalId: h.approvalId })
    expect(t.timeline.at(-1)).toMatchObject({ stage: 1, status: 'held' })
    const small = await submit(o, { ...ACTION, requestedValue: 5000 })
    expect(small.status).toBe(200)
    expect(small.body).toMatchObject({ status: 'COMPLETED', approvalId: null })
    const none = await submit(o, { operation: 'no value' })
    expect(none.body.status).toBe('COMPLETED')
  })

  test('the approval record: list (default PENDING), count, detail; agent keys read; others get 404', async () => {
    const list = await s.get('/api/v1/approvals', { token: o.token })
    expect(list.status).toBe(200)
    expect(list.body).toHaveLength(1)
    const a = list.body[0]
    expect(a).toMatchObject({
      id: h.approvalId, taskId: h.taskId, operatorId: o.id, agentId: o.agentId, actionType: 'spend_control', operation: 'invoice_payment',
      target: '0xAcmeCorp', requestedValue: 12000, currency: 'USDC', triggerPolicy: 'human_approval_threshold', decision: 'PENDING',
      decidedBy: null, decidedAt: null, decisionNote: null, evidenceRefs: { refs: ['ipfs://invoice-17'] },
    })
    expect(a.triggerReason).toContain('exceeds approvalThreshold 5000')
    expect(a.policyEvaluations[0]).toMatchObject({ name: 'approval_threshold', result: 'fail' })
    expect(Date.parse(a.expiresAt) - Date.parse(a.createdAt)).toBe(24 * 3600_000)
    expect((await s.get('/api/v1/approvals?decision=APPROVED', { token: o.token })).body).toEqual([])
    expect((await s.get('/api/v1/approvals/count', { key: o.agentKey })).body).toEqual({ pending: 1 })
    expect((await s.get(`/api/v1/approvals/${h.approvalId}`, { key: o.agentKey })).body).toEqual(a)
    expect((await s.get('/api/v1/approvals', { key: o.opKey })).body).toHaveLength(1)
    // another operator: 404 for detail, resolve and callback; its own list is empty
    expectProblem(await s.get(`/api/v1/approvals/${h.approvalId}`, { token: other.token }), 404, 'NOT_FOUND')
    expectProblem(await s.patch(`/api/v1/approvals/${h.approvalId}`, { decision: 'approved' }, { token: other.token }), 404, 'NOT_FOUND')
    expectProblem(await s.post(`/api/v1/approvals/${h.approvalId}/callback`, { callbackUrl: 'http://127.0.0.1:9/cb' }, { token: other.token }), 404, 'NOT_FOUND')
    expect((await s.get('/api/v1/approvals', { token: other.token })).body).toEqual([])
    expectProblem(await s.get('/api/v1/approvals?decision=MAYBE', { token: o.token }), 400, 'VALIDATION_FAILED')
    expectProblem(await s.patch(`/api/v1/approvals/${h.approvalId}`, { decision: 'APPROVED' }, { token: o.token }), 400, 'VALIDATION_FAILED')
  })

  test('an agent key never resolves (403); the operator approves: resumes at stage 2 with the receipt', async () => {
    expectProblem(await s.patch(`/api/v1/approvals/${h.approvalId}`, { decision: 'approved' }, { key: o.agentKey }), 403, 'APPROVAL_RESOLVE_FORBIDDEN')
    const before = await balance(o)
    const r = await s.patch(`/api/v1/approvals/${h.approvalId}`, { decision: 'approved', note: 'invoice checked' }, { token: o.token })
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ success: true, decision: 'approved', taskId: h.taskId, resumeError: null })
    expect(r.body.receipt).toMatchObject({ taskId: h.taskId, status: 'COMPLETED', agentId: o.agentId, creditCharged: 1 })
    expect(r.body.receipt.ipfsCid).toBeTruthy()
    expect(r.body.receipt.receiptCid).toBeTruthy()
    expect(await balance(o)).toBe(before - 1)
    const t = await task(o, h.taskId)
    expect(t).toMatchObject({ status: 'COMPLETED', creditsCharged: 1, approvalId: h.approvalId })
    expect(t.timeline.map((e: any) => `${e.stage}:${e.status}`).slice(0, 3)).toEqual(['1:held', '2:done', '3:done'])
    const a = (await s.get(`/api/v1/approvals/${h.approvalId}`, { token: o.token })).body
    expect(a).toMatchObject({ decision: 'APPROVED', decidedBy: o.id, decisionNote: 'invoice checked' })
    expect(a.decidedAt).toBeString()
    expect((await s.get('/api/v1/approvals/count', { token: o.token })).body).toEqual({ pending: 0 })
    // resolving it again → 409, whichever way
    expectProblem(await s.patch(`/api/v1/approvals/${h.approvalId}`, { decision: 'denied' }, { token: o.token }), 409, 'APPROVAL_ALREADY_RESOLVED')
    expectProblem(await s.patch(`/api/v1/approvals/${h.approvalId}`, { decision: 'approved' }, { key: o.opKey }), 409, 'APPROVAL_ALREADY_RESOLVED')
  })

  test('deny: the task FAILS with APPROVAL_DENIED and nothing is charged; an operator key may resolve', async () => {
    const d = await held(o)
    const before = await balance(o)
    const r = await s.patch(`/api/v1/approvals/${d.approvalId}`, { decision: 'denied', note: 'not ours' }, { key: o.opKey })
    expect(r.status).toBe(200)
    expect(r.body).toEqual({ success: true, decision: 'denied', taskId: d.taskId, receipt: null, resumeError: null })
    expect(await task(o, d.taskId)).toMatchObject({ status: 'FAILED', failureCode: 'APPROVAL_DENIED', creditsCharged: 0 })
    expect(await balance(o)).toBe(before)
    expect((await s.get('/api/v1/approvals?decision=DENIED', { token: o.token })).body.map((a: any) => a.id)).toEqual([d.approvalId])
    // the data export carries every request, whatever its decision
    const doc = JSON.parse((await s.get('/api/v1/operator/export', { token: o.token })).text)
    expect(doc.approvals.map((a: any) => [a.id, a.decision])).toEqual([[d.approvalId, 'DENIED'], [h.approvalId, 'APPROVED']])
  })

  test('approving when the balance no longer covers the task fails it; the decision stays recorded', async () => {
    const p = await operator()
    await guard(p, { approvalThreshold: 10 })
    const before = await balance(p) // 100 FREE credits; data_analysis costs 60
    const a = await held(p, { requestedValue: 20 }, 'data_analysis')
    const b = await held(p, { requestedValue: 20 }, 'data_analysis')
    expect((await s.patch(`/api/v1/approvals/${a.approvalId}`, { decision: 'approved' }, { token: p.token })).body.receipt.status).toBe('COMPLETED')
    const r = await s.patch(`/api/v1/approvals/${b.approvalId}`, { decision: 'approved' }, { token: p.token })
    expect(r.status).toBe(200)
    expect(r.body.resumeError).toMatch(/credit/)
    expect(r.body.receipt).toMatchObject({ taskId: b.taskId, status: 'FAILED', failureCode: 'INSUFFICIENT_CREDITS', creditCharged: 0, receiptCid: null })
    expect(await task(p, b.taskId)).toMatchObject({ status: 'FAILED', failureCode: 'INSUFFICIENT_CREDITS', creditsCharged: 0 })
    expect((await s.get(`/api/v1/approvals/${b.approvalId}`, { token: p.token })).body.decision).toBe('APPROVED')
    expect(await balance(p)).toBe(before - 60)
  })
})

describe('paging the queue', () => {
  test('?limit pages newest first; Link rel="next" leads through every request exactly once; a foreign cursor → 400', async () => {
    const o = await operator(), other = await operator()
    await guard(o, { approvalThreshold: 1 })
    const ids: string[] = []
    for (let i = 0; i < 5; i++) { ids.unshift((await held(o)).approvalId); await advance(1) }
    const seen: string[] = []
    let url: string | null = '/api/v1/approvals?limit=2'
    for (let pages = 0; url !== null; pages++) {
      expect(pages).toBeLessThan(3)
      const r: { status: number; body: any; headers: Headers } = await s.get(url, { token: o.token })
      expect(r.status).toBe(200)
      expect(r.body.length).toBeLessThanOrEqual(2)
      seen.push(...r.body.map((a: { id: string }) => a.id))
      url = r.headers.get('link')?.match(/^<([^>]+)>; rel="next"$/)?.[1] ?? null
    }
    expect(seen).toEqual(ids)
    const last = await s.get(`/api/v1/approvals?limit=5`, { token: o.token })
    expect(last.body.map((a: { id: string }) => a.id)).toEqual(ids)
    expect(last.headers.get('link')).toBeNull()
    expectProblem(await s.get(`/api/v1/approvals?before=${ids[0]}`, { token: other.token }), 400, 'INVALID_CURSOR')
    expectProblem(await s.get('/api/v1/approvals?limit=0', { token: o.token }), 400, 'VALIDATION_FAILED')
    expectProblem(await s.get('/api/v1/approvals?limit=1001', { token: o.token }), 400, 'VALIDATION_FAILED')
  })
})

describe('auto-approve rules', () => {
  test('every rule must pass; an empty list never auto-approves', async () => {
    const o = await operator()
    await guard(o, { approvalThreshold: 100, approvalAutoRules: [] })
    await held(o, { ...ACTION, requestedValue: 150 })
    const p = await operator()
    await guard(p, { approvalThreshold: 100, approvalAutoRules: [{ type: 'amount_cap', maxValue: 1000 }, { type: 'allowlisted_target', targets: ['0xAcmeCorp', '0xVendor'] }, { type: 'trusted_agent', minTrustLevel: 'QUARANTINE' }] })
    const ok = await submit(p, { ...ACTION, requestedValue: 900 })
    expect(ok.status).toBe(200)
    expect(ok.body).toMatchObject({ status: 'COMPLETED', approvalId: null })
    // one failing rule holds it, and the record says which
    const over = await held(p, { ...ACTION, requestedValue: 1500 })
    const evals = (await s.get(`/api/v1/approvals/${over.approvalId}`, { token: p.token })).body.policyEvaluations
    expect(evals.map((e: any) => `${e.name}:${e.result}`)).toEqual(['approval_threshold:fail', 'amount_cap:fail', 'allowlisted_target:pass', 'trusted_agent:pass'])
    await held(p, { ...ACTION, requestedValue: 900, target: '0xStranger' })
    const q = await operator()
    await guard(q, { approvalThreshold: 100, approvalAutoRules: [{ type: 'trusted_agent', minTrustLevel: 'TRUSTED' }] })
    await held(q, { ...ACTION, requestedValue: 150 }) // a new agent is PROBATIONARY
  })

  test('time_window reads the hour and weekday in its IANA time zone', async () => {
    // the service clock has moved: read it from a task's createdAt
    const o = await operator()
    const probe = await submit(o, { operation: 'probe' })
    const now = Date.parse(probe.body.createdAt)
    const tz = 'Asia/Kolkata'
    const parts = new Intl.DateTimeFormat('en-US', { timeZone: tz, weekday: 'short', hour: 'numeric', hourCycle: 'h23' }).formatToParts(new Date(now))
    const day = parts.find((p) => p.type === 'weekday')!.value.slice(0, 3).toLowerCase()
    const hour = Number(parts.find((p) => p.type === 'hour')!.value) % 24
    const inside = { type: 'time_window', days: [day], startHour: hour, endHour: hour + 1, tz }
    await guard(o, { approvalThreshold: 100, approvalAutoRules: [inside] })
    // the guard's 30 s may cross the hour: re-read the time and only assert when it did not
    const after = Date.parse((await submit(o, { operation: 'probe' })).body.createdAt)
    const hourNow = Number(new Intl.DateTimeFormat('en-US', { timeZone: tz, hour: 'numeric', hourCycle: 'h23' }).format(new Date(after))) % 24
    if (hourNow === hour) expect((await submit(o, { ...ACTION, requestedValue: 150 })).body.status).toBe('COMPLETED')
    const p = await operator()
    const week = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun']
    const notNow = week[(week.indexOf(day) + 3) % 7]! // neither today nor tomorrow there, whatever the test clock does meanwhile
    await guard(p, { approvalThreshold: 100, approvalAutoRules: [{ type: 'time_window', days: [notNow], startHour: 0, endHour: 24, tz }] })
    await held(p, { ...ACTION, requestedValue: 150 })
  })
})

describe('expiry, the kill-switch and restarts', () => {
  test('at expiresAt the scheduler sets EXPIRED and fails the task (APPROVAL_EXPIRED), nothing charged', async () => {
    const o = await operator()
    await guard(o, { approvalThreshold: 1, approvalTtlHours: 2 })
    const before = await balance(o)
    const h = await held(o)
    await advance(2 * 3600_000 - 60_000)
    expect((await s.get(`/api/v1/approvals/${h.approvalId}`, { token: o.token })).body.decision).toBe('PENDING')
    await advance(60_000)
    const a = (await s.get(`/api/v1/approvals/${h.approvalId}`, { token: o.token })).body
    expect(a).toMatchObject({ decision: 'EXPIRED', decidedBy: null })
    expect(await task(o, h.taskId)).toMatchObject({ status: 'FAILED', failureCode: 'APPROVAL_EXPIRED', creditsCharged: 0 })
    expect(await balance(o)).toBe(before)
    expectProblem(await s.patch(`/api/v1/approvals/${h.approvalId}`, { decision: 'approved' }, { token: o.token }), 409, 'APPROVAL_ALREADY_RESOLVED')
    expect((await s.get('/api/v1/approvals?decision=EXPIRED', { token: o.token })).body.map((x: any) => x.id)).toEqual([h.approvalId])
  })

  test('the kill-switch fails held tasks and ends their requests (EXPIRED, the reason as note)', async () => {
    const o = await operator()
    await guard(o, { approvalThreshold: 1 })
    const h = await held(o)
    expect((await s.patch('/api/v1/operator/kill-switch', { active: true, reason: 'rogue agent' }, { token: o.token })).status).toBe(200)
    expect(await task(o, h.taskId)).toMatchObject({ status: 'FAILED', failureCode: 'KILL_SWITCH_ACTIVE' })
    const a = (await s.get(`/api/v1/approvals/${h.approvalId}`, { token: o.token })).body
    expect(a.decision).toBe('EXPIRED')
    expect(a.decisionNote).toContain('rogue agent')
    expectProblem(await s.patch(`/api/v1/approvals/${h.approvalId}`, { decision: 'approved' }, { token: o.token }), 409, 'APPROVAL_ALREADY_RESOLVED')
    expect((await s.patch('/api/v1/operator/kill-switch', { active: false }, { token: o.token })).status).toBe(200)
  })

  test('a pending approval survives a restart and expires on schedule after it', async () => {
    const o = await operator()
    await guard(o, { approvalThreshold: 1, approvalTtlHours: 1 })
    const h = await held(o)
    const keep = await held(o)
    await s.restart()
    admin = (await s.post('/api/v1/auth/login', { login: 'admin', password: 'admin-password' })).body.accessToken
    expect((await s.get(`/api/v1/approvals/${h.approvalId}`, { token: o.token })).body.decision).toBe('PENDING')
    expect((await s.patch(`/api/v1/approvals/${keep.approvalId}`, { decision: 'approved' }, { token: o.token })).body.receipt.status).toBe('COMPLETED')
    await advance(3600_000)
    expect((await s.get(`/api/v1/approvals/${h.approvalId}`, { token: o.token })).body.decision).toBe('EXPIRED')
    expect(await task(o, h.taskId)).toMatchObject({ status: 'FAILED', failureCode: 'APPROVAL_EXPIRED' })
  })
})

/** Moves the service clock past the next UTC midnight when it is less than 15 minutes after `now` (daily limits). */
async function awayFromMidnight(now: number): Promise<void> {
  const left = 86_400_000 - (now % 86_400_000)
  if (left < 15 * 60_000) await advance(left + 60_000)
}

describe('an approved task meets the present guardrails again before its debit (issue 30)', () => {
  test('maxCreditsPerDay: four held tasks approved once the day\'s credits ran out — one runs, three fail GUARDRAIL_BLOCKED uncharged', async () => {
    const o = await operator()
    await guard(o, { approvalThreshold: 1, maxCreditsPerDay: 2 })
    const holds = [await held(o), await held(o), await held(o), await held(o)]
    await awayFromMidnight(Date.parse((await task(o, holds[0]!.taskId)).createdAt)) // the day's credits are counted from here on
    const before = await balance(o)
    expect((await submit(o, { operation: 'no value' })).body.status).toBe('COMPLETED') // 1 of the day's 2 credits
    const first = await s.patch(`/api/v1/approvals/${holds[0]!.approvalId}`, { decision: 'approved' }, { token: o.token })
    expect(first.body).toMatchObject({ decision: 'approved', resumeError: null, receipt: { status: 'COMPLETED', creditCharged: 1 } })
    for (const h of holds.slice(1)) {
      const r = await s.patch(`/api/v1/approvals/${h.approvalId}`, { decision: 'approved' }, { token: o.token })
      expect(r.status).toBe(200)
      expect(r.body).toMatchObject({ success: true, decision: 'approved', taskId: h.taskId, receipt: { taskId: h.taskId, status: 'FAILED', failureCode: 'GUARDRAIL_BLOCKED', creditCharged: 0, receiptCid: null } })
      expect(r.body.resumeError).toMatch(/maxCreditsPerDay \(2\) would be exceeded: 2 spent today/)
      const t = await task(o, h.taskId)
      expect(t).toMatchObject({ status: 'FAILED', failureCode: 'GUARDRAIL_BLOCKED', creditsCharged: 0, stage: 1 })
      expect(t.timeline.map((e: any) => `${e.stage}:${e.status}`)).toEqual(['1:held', '1:failed'])
      expect((await s.get(`/api/v1/approvals/${h.approvalId}`, { token: o.token })).body.decision).toBe('APPROVED')
    }
    expect(await balance(o)).toBe(before - 2)
  }, 60_000)

  test('blockedPatterns and allowedTaskTypes that became active while the task was held refuse it when approved', async () => {
    const o = await operator()
    await guard(o, { approvalThreshold: 1 })
    const pattern = await held(o) // 'Pay the Acme invoice of this month.'
    const type = await held(o, ACTION, 'general')
    const before = await balance(o)
    await guard(o, { blockedPatterns: ['ACME INVOICE'], allowedTaskTypes: ['spend_control'] })
    const a = await s.patch(`/api/v1/approvals/${pattern.approvalId}`, { decision: 'approved' }, { token: o.token })
    expect(a.body.resumeError).toMatch(/blocked pattern/)
    expect(a.body.receipt).toMatchObject({ status: 'FAILED', failureCode: 'GUARDRAIL_BLOCKED', creditCharged: 0 })
    const b = await s.patch(`/api/v1/approvals/${type.approvalId}`, { decision: 'approved' }, { key: o.opKey })
    expect(b.body.resumeError).toMatch(/allowedTaskTypes/)
    for (const h of [pattern, type]) expect(await task(o, h.taskId)).toMatchObject({ status: 'FAILED', failureCode: 'GUARDRAIL_BLOCKED', creditsCharged: 0 })
    expect(await balance(o)).toBe(before)
  }, 60_000)

  test('maxTasksPerHour lowered while the task was held refuses it when approved', async () => {
    const o = await operator()
    await guard(o, { approvalThreshold: 1 })
    const h = await held(o)
    for (let i = 0; i < 2; i++) expect((await submit(o, { operation: `run ${i}` })).body.status).toBe('COMPLETED')
    await guard(o, { maxTasksPerHour: 2 })
    const before = await balance(o)
    const r = await s.patch(`/api/v1/approvals/${h.approvalId}`, { decision: 'approved' }, { token: o.token })
    expect(r.body.resumeError).toMatch(/maxTasksPerHour \(2\) reached/)
    expect(await task(o, h.taskId)).toMatchObject({ status: 'FAILED', failureCode: 'GUARDRAIL_BLOCKED', creditsCharged: 0 })
    expect(await balance(o)).toBe(before)
  }, 60_000)
})

describe('agent-bound keys see and act only on their own agent\'s requests (issue 30)', () => {
  test('list, count, detail, callback and resolve: another agent\'s request → 404 (its own: resolve stays 403); operator keys and the bearer token see all', async () => {
    const o = await operator()
    const reg = await s.post('/api/v1/agents/register', { displayName: 'Second agent', capabilities: ['spend_control'] }, { token: o.token })
    expect(reg.status).toBe(201)
    const second = { agentId: reg.body.agentId as string, key: reg.body.apiKey as string }
    await guard(o, { approvalThreshold: 1 })
    const mine = await held(o)
    const r = await s.post('/api/v1/tasks/submit?wait=10', { agentId: second.agentId, taskType: 'spend_control', prompt: 'Pay the other invoice.', action: ACTION }, { key: second.key })
    expect(r.status).toBe(202)
    const theirs = { taskId: r.body.id as string, approvalId: r.body.approvalId as string }

    const ids = async (cred: { key?: string; token?: string }) => (await s.get('/api/v1/approvals', cred)).body.map((a: { id: string }) => a.id).sort()
    for (const [key, own, other] of [[o.agentKey, mine, theirs], [second.key, theirs, mine]] as const) {
      expect(await ids({ key })).toEqual([own.approvalId])
      expect((await s.get('/api/v1/approvals/count', { key })).body).toEqual({ pending: 1 })
      expect((await s.get(`/api/v1/approvals/${own.approvalId}`, { key })).status).toBe(200)
      expectProblem(await s.get(`/api/v1/approvals/${other.approvalId}`, { key }), 404, 'NOT_FOUND')
      expectProblem(await s.get(`/api/v1/approvals?before=${other.approvalId}`, { key }), 400, 'INVALID_CURSOR')
      expectProblem(await s.patch(`/api/v1/approvals/${other.approvalId}`, { decision: 'approved' }, { key }), 404, 'NOT_FOUND')
      expectProblem(await s.patch(`/api/v1/approvals/${own.approvalId}`, { decision: 'approved' }, { key }), 403, 'APPROVAL_RESOLVE_FORBIDDEN')
    }
    for (const cred of [{ token: o.token }, { key: o.opKey }]) {
      expect(await ids(cred)).toEqual([mine.approvalId, theirs.approvalId].sort())
      expect((await s.get('/api/v1/approvals/count', cred)).body).toEqual({ pending: 2 })
      for (const h of [mine, theirs]) expect((await s.get(`/api/v1/approvals/${h.approvalId}`, cred)).status).toBe(200)
    }

    // the one-shot callback: the second agent cannot take over the first one's, so the decision goes to the first one's URL
    expect((await s.post(`/api/v1/approvals/${mine.approvalId}/callback`, { callbackUrl: 'http://127.0.0.1:9/mine' }, { key: o.agentKey })).status).toBe(201)
    expectProblem(await s.post(`/api/v1/approvals/${mine.approvalId}/callback`, { callbackUrl: 'http://127.0.0.1:9/attacker' }, { key: second.key }), 404, 'NOT_FOUND')
    expect((await s.patch(`/api/v1/approvals/${mine.approvalId}`, { decision: 'denied' }, { token: o.token })).status).toBe(200)
    const urls = (await s.get('/api/v1/operator/webhooks/deliveries', { token: o.token })).body.data.map((d: { url: string }) => d.url)
    expect(urls).toContain('http://127.0.0.1:9/mine')
    expect(urls).not.toContain('http://127.0.0.1:9/attacker')
    // an operator key registers a callback for any of the operator's requests
    expect((await s.post(`/api/v1/approvals/${theirs.approvalId}/callback`, { callbackUrl: 'http://127.0.0.1:9/ops' }, { key: o.opKey })).status).toBe(201)
  }, 60_000)
})
