// HTTP for tasks: submit, detail, stage events (SSE), cancel, the public list, the operator's recent tasks.
import { defineRoute, errorsOf, type LinkDoc } from '../http/route'
import { PAYMENT_ERRORS, PAYMENT_REQUEST_HEADERS, PAYMENT_RESPONSE_HEADERS } from '../money/x402'
import { t } from 'elysia'
import { SSE_HEADERS } from '../http/sse'
import { canRead } from '../http/auth'
import { notFound } from '../http/errors'
import { pageQuery, queryInt, WAIT } from '../http/schemas'
import type { Services } from '../services'
import { MAX_SCAN } from './list'
import { ListQuery, SubmitBody, SubmitQuery, TaskDetail, TaskIdParams, TaskList } from './schema'

const listQuery = (q: { page?: string; limit?: string; status?: string; taskType?: string; operatorId?: string; agentId?: string }) => ({ ...q, ...pageQuery(q) })

/** Links from an answer carrying a task to the operations that read it. */
export const TASK_LINKS: Record<string, LinkDoc> = {
  task: { route: 'GET /api/v1/tasks/:id', parameters: { id: '$response.body#/id' }, description: 'the task detail' },
  events: { route: 'GET /api/v1/tasks/:id/events', parameters: { id: '$response.body#/id' }, description: 'its stage events' },
  receipt: { route: 'GET /api/v1/public/proof/:cid', parameters: { cid: '$response.body#/receiptCid' }, description: 'the signed receipt, once the task completed' },
  document: { route: 'GET /ipfs/:cid', parameters: { cid: '$response.body#/ipfsCid' }, description: 'the task document on IPFS' },
  attestation: { route: 'GET /api/v1/attestations/:uid', parameters: { uid: '$response.body#/attestationUid' }, description: 'the EAS offchain attestation' },
}

/** `data:` of a task stage event. */
const StageEvent = t.Object({
  taskId: t.String(), stage: t.Integer({ minimum: 0, maximum: 8 }), name: t.String({ description: 'policy, debit, compute, verify, ipfs, fingerprint, attest, receipt' }),
  status: t.Union([t.Literal('done'), t.Literal('queued'), t.Literal('held'), t.Literal('failed'), t.Literal('completed')]),
  detail: t.Union([t.Object({}, { additionalProperties: true }), t.Null()]), at: t.String({ format: 'date-time' }),
})

const LIST_DESCRIPTION = `Newest first (createdAt, then id). \`total\` and \`totalPages\` are exact (counters kept with every task write). Deep pages are served from the nearer end and, without an agentId or taskType filter, by seeking to their day; a page that would still lie more than ${MAX_SCAN} tasks from both ends of the filtered list (possible only with an agentId or taskType filter) → 400 PAGE_TOO_DEEP: narrow it with filters.`

const PAID_HEADERS = { 'idempotent-replayed': 'idempotent-replayed', ...PAYMENT_RESPONSE_HEADERS } as const


export function taskRoutes(s: Services) {
  const tags = ['Tasks']
  return [
    defineRoute({
      method: 'POST', path: '/api/v1/tasks/submit', auth: 'either', longLived: true, tags, body: SubmitBody, query: SubmitQuery,
      requestHeaders: ['Idempotency-Key', ...PAYMENT_REQUEST_HEADERS],
      errors: errorsOf(PAYMENT_ERRORS, { 400: ['UNKNOWN_MODEL', 'INVALID_IDEMPOTENCY_KEY'], 403: ['AGENT_KEY_MISMATCH', 'GUARDRAIL_BLOCKED', 'KILL_SWITCH_ACTIVE', 'TOS_NOT_ACCEPTED'], 404: ['NOT_FOUND'], 409: ['IDEMPOTENCY_KEY_REUSED'], 429: ['TOO_MANY_PENDING_APPROVALS'] }),
      summary: 'Submit a task to the 8-stage pipeline',
      description: 'Waits up to `?wait=` seconds (default 30). A finished task → 200 with the detail; otherwise 202 with the task (PENDING_APPROVAL, QUEUED or PROCESSING) and a Location header. `Idempotency-Key`: same key and body → the original task (header `idempotent-replayed: true`), answered right after authentication and before any payment, credit or guardrail check, so a retry is never charged or refused for the balance; another body → 409 IDEMPOTENCY_KEY_REUSED. An agent-bound key submits only for its own agent (403 AGENT_KEY_MISMATCH). `metadata` is stored as given and never changes the cost. Guardrail block (the operator\'s active guardrails: allowedTaskTypes, maxPromptLength, blockedPatterns, maxTasksPerHour, maxCreditsPerDay) → 403 GUARDRAIL_BLOCKED with the FAILED task in `task`, no credit spent. An `action.requestedValue` above the operator\'s `approvalThreshold` is held unless every auto-approve rule passes: 202 with the task PENDING_APPROVAL and its `approvalId`, nothing charged until it is approved (`PATCH /api/v1/approvals/{id}`); with TASKGATE_MAX_PENDING_APPROVALS (default 100) requests of the operator already pending → 429 TOO_MANY_PENDING_APPROVALS and nothing is recorded (no task, no approval request, no webhook). A task refused before its debit keeps its prompt\'s SHA-256 and length (`promptSha256`, `promptLength`) instead of the prompt, and no metadata. Kill-switch on → 403 KILL_SWITCH_ACTIVE before any payment or credit, and no task is recorded (the problem carries no `task`; a replay still answers the original task). With `TASKGATE_TOS_REQUIRED=1`, an operator who has not accepted the current Terms of Service → 403 TOS_NOT_ACCEPTED, also before any payment or credit. No credits → 402 INSUFFICIENT_CREDITS with the x402 payment requirements: v1 in the body (`x402Version`, `accepts`), v2 in the `PAYMENT-REQUIRED` header; pay with `PAYMENT-SIGNATURE` (x402 v2), `X-PAYMENT` (x402 v1; both scheme exact, EIP-3009) or the legacy `X-402-Payment`; `PAYMENT-RESPONSE` (v2) or `X-PAYMENT-RESPONSE` (v1, legacy) confirms a settled payment.',
      responses: {
        200: { description: 'finished (COMPLETED or FAILED)', schema: TaskDetail, headers: PAID_HEADERS, links: TASK_LINKS },
        202: { description: 'accepted, still running (PENDING_APPROVAL, QUEUED or PROCESSING)', schema: TaskDetail, headers: { ...PAID_HEADERS, Location: 'Location' }, links: TASK_LINKS },
      },
      handler: async (c) => {
        const { auth, body, query, request, set } = c // not `ip`: reading the client address is a system call (~1 µs); only a forged payment needs it
        const { status, body: task } = await s.submit.submit({
          principal: auth, input: body, idempotencyKey: request.headers.get('idempotency-key'),
          payment: request, ip: () => c.ip, waitMs: queryInt('wait', query.wait, WAIT) * 1000,
        }, set.headers as Record<string, string | number>)
        if (status === 202) set.status = 202
        return task
      },
    }),
    defineRoute({
      method: 'GET', path: '/api/v1/tasks/:id', auth: 'optional', tags, params: TaskIdParams,
      summary: 'Task detail (failure message, prompt, output and timeline only for the owner)',
      description: 'Public fields for anyone, a failed task\'s `failureCode` included. The owner (bearer token or operator key of the task\'s operator, or the agent-bound key of the task\'s agent) also gets `failureMessage`, `prompt` (or, for a task refused before its debit, `promptSha256` and `promptLength`), `output`, `metadata` and the timeline; for anyone else these members are absent. An agent-bound key reads only its own agent\'s tasks: any other task → 404.',
      errors: { 404: ['NOT_FOUND'] },
      responses: { 200: { description: 'task', schema: TaskDetail, links: { events: TASK_LINKS.events!, receipt: TASK_LINKS.receipt!, document: TASK_LINKS.document!, attestation: TASK_LINKS.attestation! } } },
      handler: ({ auth, params }) => {
        const task = s.tasks.get(params.id)
        const owner = canRead(auth, task)
        if (!owner && auth?.key?.agentId) throw notFound('task')
        return s.tasks.detail(task, owner)
      },
    }),
    defineRoute({
      method: 'GET', path: '/api/v1/tasks/:id/events', auth: 'either', queryToken: true, longLived: true, tags, params: TaskIdParams,
      summary: 'Stage transitions of a task (server-sent events, owner only)',
      description: 'Each event: `event: stage`, data `{ taskId, stage, name, status, detail, at }`, and an `id:`: the event\'s position in the task\'s timeline, from 1 (tasks that finished before the timeline moved into the task row keep their earlier ids). Replays the timeline, then follows; ends when the task is COMPLETED or FAILED (or held for approval), and within seconds once the credential is revoked, the token logged out or the operator suspended. `: ping` comments keep it alive; the server\'s idle timeout does not apply. Another operator\'s task, or for an agent-bound key another agent\'s task → 404. `?access_token=` works for EventSource.',
      errors: { 404: ['NOT_FOUND'] },
      responses: { 200: { description: 'the stage events, then the end of the stream', headers: { 'Cache-Control': 'Cache-Control' }, events: { stage: { description: 'a stage transition (each with an `id:`)', data: StageEvent } } } },
      handler: ({ auth, params, request }) => {
        const task = s.tasks.get(params.id)
        if (!canRead(auth, task)) throw notFound('task')
        return new Response(s.tasks.events(task, s.auth.streamGuard(auth, request.signal)), { headers: SSE_HEADERS })
      },
    }),
    defineRoute({
      method: 'POST', path: '/api/v1/tasks/:id/cancel', auth: 'either', tags, params: TaskIdParams,
      summary: 'Cancel a task that has not reached compute',
      description: 'A task held for approval (PENDING_APPROVAL) or waiting in the overflow queue (QUEUED, its compute job not started) becomes FAILED with `failureCode` TASK_CANCELLED, in one transaction: a held task\'s approval request ends EXPIRED (its `decisionNote` says the task was cancelled; `approval.resolved` is sent with decision `expired`) and nothing was charged; a queued task\'s job leaves the queue and its debit is refunded. Answers the task. Cancelling a cancelled task answers it again and changes nothing. A task whose compute started, or that finished → 409 TASK_NOT_CANCELABLE. The caller\'s tasks only: another operator\'s task, or for an agent-bound key another agent\'s → 404 (an agent-bound key may cancel its own agent\'s tasks, approval holds included).',
      errors: { 404: ['NOT_FOUND'], 409: ['TASK_NOT_CANCELABLE'] },
      responses: { 200: { description: 'the cancelled task (FAILED, TASK_CANCELLED), owner view', schema: TaskDetail, links: { task: TASK_LINKS.task! } } },
      handler: ({ auth, params }) => s.tasks.detail(s.tasks.cancel(auth, params.id, 'POST /api/v1/tasks/{id}/cancel'), true),
    }),
    defineRoute({
      method: 'GET', path: '/api/v1/tasks', auth: 'none', tags, query: ListQuery,
      summary: 'Public paginated task list (no prompts or outputs)',
      description: LIST_DESCRIPTION,
      errors: { 400: ['PAGE_TOO_DEEP'] },
      responses: { 200: { description: 'page of tasks', schema: TaskList } },
      handler: ({ query }) => s.tasks.list(listQuery(query)),
    }),
    defineRoute({
      method: 'GET', path: '/api/v1/operator/tasks', auth: 'bearer', tags, query: ListQuery,
      summary: 'The operator\'s recent tasks',
      description: `Includes the system tasks (\`taskType: "system"\`) that record the operator's Terms of Service acceptances. ${LIST_DESCRIPTION}`,
      errors: { 400: ['PAGE_TOO_DEEP'] },
      responses: { 200: { description: 'page of tasks', schema: TaskList } },
      handler: ({ auth, query }) => s.tasks.list({ ...listQuery(query), operatorId: auth.operator.id, includeSystem: true }),
    }),
  ]
}

