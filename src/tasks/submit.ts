// A task submission from start to answer, the steps every door takes (docs/architecture.md, "The
// path of a task"): the Idempotency-Key replay, admission, the x402 payment, the submit
// transaction, the wait, and the answer. `POST /api/v1/tasks/submit` maps HTTP to it; a new door
// (docs/architecture.md, "Where things go", "A door") calls it the same way.
import type { AgentService } from '../agents/service'
import { InsufficientCredits } from '../credits/ledger'
import type { Principal } from '../http/auth'
import { ProblemError } from '../http/errors'
import type { X402Gate } from '../money/x402'
import { TERMINAL, type PipelineRunner } from '../pipeline/runner'
import type { TosService } from '../tos/service'
import { assertAdmissible } from './admission'
import type { SubmitInput, TaskService } from './service'
import type { TaskRow } from './types'

export interface SubmitServiceDeps {
  tasks: Pick<TaskService, 'replay' | 'submit' | 'detail' | 'costOf'>
  pipeline: Pick<PipelineRunner, 'waitFor' | 'task'>
  x402: Pick<X402Gate, 'paying' | 'gate' | 'paymentRequired'>
  agents: Pick<AgentService, 'identity'>
  tos: Pick<TosService, 'assertAccepted'>
}

export interface SubmitRequest {
  principal: Principal
  input: SubmitInput
  /** The `Idempotency-Key` as sent (null: none). */
  idempotencyKey: string | null
  /**
   * The request that carries the payment: the x402 gate reads its `PAYMENT-SIGNATURE`, `X-PAYMENT` or
   * `X-402-Payment` header, and its URL is the paid resource named in the payment requirements.
   */
  payment: Request
  /** The client address, read only when a forged payment is counted against it. */
  ip: () => string
  /** How long to wait for the task to finish, in milliseconds (0: answer at once). */
  waitMs: number
}

export type TaskDetailView = ReturnType<TaskService['detail']>

/** The answer: 200 with a finished task, 202 with one still running (PENDING_APPROVAL, QUEUED or PROCESSING). */
export interface SubmitAnswer { status: 200 | 202; body: TaskDetailView }

export class SubmitService {
  constructor(private d: SubmitServiceDeps) {}

  /**
   * Runs a submission. Refusals are thrown as problems (403 GUARDRAIL_BLOCKED carries the FAILED
   * task; 402 carries the x402 payment requirements). `headersOut` receives the answer's headers as
   * they become known: `payment-response` (x402 v2) or `x-payment-response` once a payment settled (so a refusal after it still
   * confirms the payment), `idempotent-replayed` and, for a 202, `location`.
   */
  async submit(r: SubmitRequest, headersOut: Record<string, string | number>): Promise<SubmitAnswer> {
    const { principal: auth, input, idempotencyKey, waitMs } = r
    const { tasks, pipeline, x402 } = this.d
    const answer = async (taskId: string, replayed: boolean, known?: TaskRow): Promise<SubmitAnswer> => {
      const settled = waitMs > 0 ? await pipeline.waitFor(taskId, waitMs, known) : null
      const cur = settled?.row ?? pipeline.task(taskId)!
      if (replayed) headersOut['idempotent-replayed'] = 'true'
      let status: 200 | 202 = 200
      if (!TERMINAL.has(cur.status)) { status = 202; headersOut.location = `/api/v1/tasks/${cur.id}` }
      return { status, body: tasks.detail(cur, true, settled?.timeline) }
    }
    // A replay answers the original task before any payment, credit or guardrail check.
    const prior = tasks.replay(auth, input, idempotencyKey)
    if (prior) return answer(prior.id, true)
    const agent = assertAdmissible(this.d, auth, input.agentId) // agent, kill-switch, ToS: before any payment or credit
    // A payment is settled first. Without one, the balance is checked by the submit's own
    // transaction before its first stage (no read ahead of it): short → 402 with the payment
    // requirements, below, as the gate answers.
    const paid = x402.paying(r.payment) ? await x402.gate(r.payment, auth, tasks.costOf(input.taskType), r.ip) : null
    if (paid) Object.assign(headersOut, paid.responseHeaders)
    let submitted
    try {
      submitted = await tasks.submit(auth, input, idempotencyKey, agent)
    } catch (e) {
      // short of credits (or lost a race for the last ones after a payment): answer with the payment requirements
      if (e instanceof InsufficientCredits) throw x402.paymentRequired(r.payment, e.extra.needed as number, e.extra.balance as number)
      throw e
    }
    const { task, replayed } = submitted
    if (task.status === 'FAILED' && task.failureCode === 'GUARDRAIL_BLOCKED' && !replayed) {
      throw new ProblemError(403, 'GUARDRAIL_BLOCKED', task.failureMessage ?? 'blocked by policy', { task: tasks.detail(task, true) })
    }
    return answer(task.id, replayed, task)
  }
}
