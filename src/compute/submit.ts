// A direct compute request (POST /api/v1/compute): who it acts for, idempotency, payment, debit
// and enqueue. Order matters (docs/pipeline.md, "Admission"): the agent-bound key rule and a
// replayed Idempotency-Key are answered right after authentication, before any payment or credit
// check, so a replay or a refused request is never charged.
import { InsufficientCredits } from '../credits/ledger'
import { actingAgent, type Principal } from '../http/auth'
import { badRequest, ProblemError } from '../http/errors'
import { assertNotKilled } from '../guardrails/kill-switch'
import { assertAdmissible } from '../tasks/admission'
import { newId, sha256Hex } from '../lib/ids'
import type { Services } from '../services'
import type { ChatMessage } from './types'

export interface ComputeInput {
  model?: string; prompt?: string; messages?: ChatMessage[]; taskType?: string; agentId?: string
}

export interface ComputeAccepted {
  body: { jobId: string; status: 'queued'; position: number; statusUrl: string }
  replayed: boolean
  /** The header confirming a payment settled for this request (PAYMENT-RESPONSE or X-PAYMENT-RESPONSE). */
  paymentHeaders?: Record<string, string>
}

const accepted = (job: { jobId: string; position: number }) =>
  ({ jobId: job.jobId, status: 'queued' as const, position: job.position, statusUrl: `/api/v1/compute/${job.jobId}/status` })

export async function submitCompute(s: Services, p: Principal, input: ComputeInput, idempotencyKey: string | null, request: Request, ip: () => string): Promise<ComputeAccepted> {
  const agentId = actingAgent(p, input.agentId) // 403 AGENT_KEY_MISMATCH for another agent
  if (idempotencyKey !== null && (idempotencyKey.length < 1 || idempotencyKey.length > 255)) throw badRequest('INVALID_IDEMPOTENCY_KEY', 'Idempotency-Key must be 1-255 characters')
  // Bound to the request as sent (model as named) and the agent it acts for.
  const hash = sha256Hex(JSON.stringify([input.model ?? null, input.prompt ?? null, input.messages ?? null, input.taskType ?? null, agentId]))
  if (idempotencyKey) {
    const prior = s.overflow.replay(p.operator.id, idempotencyKey, hash)
    if (prior) return { body: accepted(prior), replayed: true }
  }

  const model = input.model ?? 'builtin'
  if (!s.compute.resolveModel(model)) throw badRequest('UNKNOWN_MODEL', `no provider serves model ${model}`)
  const messages = input.messages ?? (input.prompt ? [{ role: 'user' as const, content: input.prompt }] : null)
  if (!messages) throw badRequest('PROMPT_REQUIRED', 'send prompt or messages')
  assertAdmissible(s, p, input.agentId) // agent, kill-switch, ToS: before any payment or credit
  const id = newId('job')
  const taskType = input.taskType ?? 'general'
  // The operator's guardrails, as stage 1 applies them to tasks (maxTasksPerHour counts tasks only).
  const blocked = s.guardrails.check({ id, operatorId: p.operator.id, taskType, prompt: messages.map((m) => m.content).join('\n'), diagnostic: false }, { countTasks: false })
  if (blocked !== null) throw new ProblemError(403, 'GUARDRAIL_BLOCKED', blocked)
  const cost = s.tasks.costOf(taskType)
  const paid = await s.x402.gate(request, p, cost, ip)
  try {
    // A concurrent twin may have won while the payment was checked (submit answers it).
    const r = s.overflow.submit(p.operator.id, { model, messages, taskType: input.taskType }, { id, agentId, creditsCharged: cost, idempotencyKey, requestHash: hash }, {
      check: () => assertNotKilled(s.operators.byId(p.operator.id) ?? p.operator), // turned on while the payment was checked
      charge: () => s.ledger.debit(p.operator.id, cost, 'compute_debit', `compute:${id}`),
    })
    return { body: accepted(r.job), replayed: r.replayed, paymentHeaders: paid?.responseHeaders }
  } catch (e) {
    if (e instanceof InsufficientCredits) throw s.x402.paymentRequired(request, cost, e.extra.balance as number)
    throw e
  }
}
