// SubmitService as a door calls it, with its narrow dependencies faked (docs/architecture.md, "The
// path of a task"): the order of the steps (a replay before admission and payment), the 200/202
// answer and its headers, and the refusals it turns into problems (402 with the payment
// requirements, 403 GUARDRAIL_BLOCKED with the task).
import { describe, expect, test } from 'bun:test'
import { InsufficientCredits } from '../../src/credits/ledger'
import type { Principal } from '../../src/http/auth'
import { ProblemError } from '../../src/http/errors'
import { SubmitService, type SubmitServiceDeps } from '../../src/tasks/submit'
import type { TaskRow } from '../../src/tasks/types'

const principal = { operator: { id: 'op_1', flags: null }, via: 'apiKey', key: null } as unknown as Principal
const input = { agentId: 'agent_1', taskType: 'general', prompt: 'hi' }
const row = (id: string, status: string, extra: Partial<TaskRow> = {}) => ({ id, status, failureCode: null, failureMessage: null, ...extra }) as unknown as TaskRow

function service(o: { prior?: TaskRow | null; submitted?: TaskRow | Error; finished?: TaskRow | null; paying?: boolean }) {
  const calls: string[] = []
  const deps: SubmitServiceDeps = {
    tasks: {
      replay: () => { calls.push('replay'); return o.prior ?? null },
      submit: async () => { calls.push('submit'); if (o.submitted instanceof Error) throw o.submitted; return { task: o.submitted!, replayed: false } },
      detail: ((t: TaskRow) => ({ id: t.id, status: t.status })) as unknown as SubmitServiceDeps['tasks']['detail'],
      costOf: () => 3,
    },
    pipeline: {
      waitFor: async (id) => { calls.push(`wait ${id}`); return o.finished ? { row: o.finished, timeline: null } : null },
      task: (id) => o.prior?.id === id ? o.prior : o.submitted instanceof Error ? null : o.submitted ?? null,
    },
    x402: {
      paying: () => o.paying === true,
      gate: async () => { calls.push('gate'); return { txHash: '0x1', payer: '0x2', credits: 3, header: 'settled' } },
      paymentRequired: (_r, cost, balance) => new ProblemError(402, 'INSUFFICIENT_CREDITS', 'pay', { needed: cost, balance }),
    },
    agents: { identity: () => { calls.push('admission'); return { id: 'agent_1', operatorId: 'op_1' } as never } },
    tos: { assertAccepted: () => {} },
  }
  return { svc: new SubmitService(deps), calls }
}
const request = (waitMs = 1000) => ({ principal, input, idempotencyKey: 'k1', payment: new Request('http://x/api/v1/tasks/submit'), ip: () => '127.0.0.1', waitMs })

describe('SubmitService', () => {
  test('a replay answers the original task before admission and payment', async () => {
    const { svc, calls } = service({ prior: row('task_1', 'COMPLETED'), paying: true })
    const headers: Record<string, string | number> = {}
    const a = await svc.submit(request(), headers)
    expect(a).toEqual({ status: 200, body: { id: 'task_1', status: 'COMPLETED' } as never })
    expect(headers).toEqual({ 'idempotent-replayed': 'true' })
    expect(calls).toEqual(['replay', 'wait task_1'])
  })

  test('a task still running → 202 with its Location; a payment settles first', async () => {
    const { svc, calls } = service({ submitted: row('task_2', 'PROCESSING'), paying: true })
    const headers: Record<string, string | number> = {}
    const a = await svc.submit(request(0), headers)
    expect(a.status).toBe(202)
    expect(headers).toEqual({ 'x-payment-response': 'settled', location: '/api/v1/tasks/task_2' })
    expect(calls).toEqual(['replay', 'admission', 'gate', 'submit'])
  })

  test('short of credits → 402 with the payment requirements', async () => {
    const { svc } = service({ submitted: new InsufficientCredits(3, 1) })
    const e = await svc.submit(request(), {}).catch((x) => x)
    expect(e).toBeInstanceOf(ProblemError)
    expect(e.status).toBe(402)
    expect(e.extra).toEqual({ needed: 3, balance: 1 })
  })

  test('refused at stage 1 → 403 GUARDRAIL_BLOCKED carrying the task', async () => {
    const { svc } = service({ submitted: row('task_3', 'FAILED', { failureCode: 'GUARDRAIL_BLOCKED', failureMessage: 'too long' }) })
    const e = await svc.submit(request(), {}).catch((x) => x)
    expect(e.code).toBe('GUARDRAIL_BLOCKED')
    expect(e.extra.task).toEqual({ id: 'task_3', status: 'FAILED' })
  })
})
