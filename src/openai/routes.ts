// HTTP for the OpenAI-compatible door (docs/doors.md): /v1/models, /v1/chat/completions and
// /v1/responses. Errors under /v1/ take OpenAI's shape (http/app.ts).
import { t } from 'elysia'
import { defineRoute, errorsOf, type RouteDef } from '../http/route'
import { PAYMENT_ERRORS, PAYMENT_REQUEST_HEADERS, PAYMENT_RESPONSE_HEADERS } from '../money/x402'
import type { Services } from '../services'
import { ChatChunk, ChatCompletion, ChatRequest, ModelList, ModelObject, ResponseObject, ResponsesRequest } from './schema'

const tags = ['OpenAI-compatible']
const TASK_HEADERS = { 'idempotent-replayed': 'idempotent-replayed', ...PAYMENT_RESPONSE_HEADERS, 'x-taskgate-task-id': 'x-taskgate-task-id', 'x-taskgate-receipt-cid': 'x-taskgate-receipt-cid', 'x-taskgate-attestation-uid': 'x-taskgate-attestation-uid' } as const
const DOOR_ERRORS = errorsOf(PAYMENT_ERRORS, {
  400: ['UNKNOWN_MODEL', 'INVALID_TASK_TYPE', 'INVALID_IDEMPOTENCY_KEY', 'AGENT_ID_REQUIRED', 'INVALID_ACTION_HEADER', 'UNSUPPORTED_PARAMETER', 'PROMPT_REQUIRED', 'PROMPT_TOO_LONG'],
  403: ['AGENT_KEY_MISMATCH', 'GUARDRAIL_BLOCKED', 'KILL_SWITCH_ACTIVE', 'TOS_NOT_ACCEPTED', 'APPROVAL_REQUIRED'],
  404: ['NOT_FOUND'], 409: ['IDEMPOTENCY_KEY_REUSED'], 429: ['TOO_MANY_PENDING_APPROVALS'],
  500: ['TASK_FAILED'], 502: ['COMPUTE_FAILED'], 504: ['TASK_STILL_RUNNING'],
})
const DOOR_RULES = 'Each call is a task of the caller\'s agent through all 8 stages (guardrails, credits or x402, approvals, compute, verification, IPFS, fingerprint, attestation, receipt); `x-taskgate-task-id` names it, and on success `x-taskgate-receipt-cid` and `x-taskgate-attestation-uid` its proofs. An agent-bound key acts as its agent; an operator key or a bearer token names it in `x-taskgate-agent-id`. A call held for approval → 403 `approval_required` with `x-taskgate-approval-id`; the task waits PENDING_APPROVAL. Errors take OpenAI\'s shape with TaskGate\'s code in lower case. `Idempotency-Key` replays the original task, as on submit.'
const HEADERS = ['Idempotency-Key', ...PAYMENT_REQUEST_HEADERS, 'x-taskgate-agent-id', 'x-taskgate-task-type', 'x-taskgate-action'] as const

export function openAiRoutes(s: Services): RouteDef[] {
  const call = (c: { auth: NonNullable<Parameters<typeof s.openai.chat>[0]['principal']>; request: Request; set: { headers: Record<string, string | number> }; ip: string }) =>
    ({ principal: c.auth, request: c.request, ip: () => c.ip, headers: c.set.headers })
  return [
    defineRoute({
      method: 'GET', path: '/v1/models', auth: 'either', tags,
      summary: 'Models the provider pool serves (OpenAI\'s list shape)',
      responses: { 200: { description: 'every model of every provider, `builtin` included', schema: ModelList } },
      handler: () => s.openai.models(),
    }),
    defineRoute({
      method: 'GET', path: '/v1/models/:model', auth: 'either', tags, params: t.Object({ model: t.String({ minLength: 1, maxLength: 128 }) }),
      summary: 'One model', errors: { 404: ['UNKNOWN_MODEL'] },
      responses: { 200: { description: 'the model', schema: ModelObject } },
      handler: ({ params }) => s.openai.model(params.model),
    }),
    defineRoute({
      method: 'POST', path: '/v1/chat/completions', auth: 'either', longLived: true, tags, body: ChatRequest, requestHeaders: HEADERS, errors: DOOR_ERRORS,
      summary: 'Chat completion through the 8-stage pipeline (OpenAI-compatible)',
      description: `${DOOR_RULES} With \`stream: true\`: \`chat.completion.chunk\` events, each provider chunk forwarded as it arrives, then a chunk with no choices carrying \`usage\` and \`taskgate\` (\`taskId\`, \`receiptCid\`, \`attestationUid\`): the receipt covers exactly the streamed text. A failure after the stream opened is sent as \`data: { error }\`.`,
      responses: {
        200: {
          description: 'the completion, or its stream', headers: TASK_HEADERS,
          content: { 'application/json': ChatCompletion },
          events: { message: { description: 'a `chat.completion.chunk`, then `[DONE]`', data: ChatChunk } },
        },
      },
      handler: (c) => s.openai.chat(call(c), c.body),
    }),
    defineRoute({
      method: 'POST', path: '/v1/responses', auth: 'either', longLived: true, tags, body: ResponsesRequest, requestHeaders: HEADERS, errors: DOOR_ERRORS,
      summary: 'A response through the 8-stage pipeline (OpenAI Responses API)',
      description: `${DOOR_RULES} With \`stream: true\`: the Responses API's typed events (\`response.created\`, \`response.in_progress\`, \`response.output_item.added\`, \`response.content_part.added\`, \`response.output_text.delta\` …, \`response.output_text.done\`, \`response.content_part.done\`, \`response.output_item.done\`, then \`response.completed\` whose response carries \`taskgate\`), or \`response.failed\`.`,
      responses: {
        200: {
          description: 'the response, or its events', headers: TASK_HEADERS,
          content: { 'application/json': ResponseObject },
          events: { 'response.output_text.delta': { description: 'a piece of output text' }, 'response.completed': { description: 'the finished response, with `taskgate`', data: t.Object({ type: t.Literal('response.completed'), response: ResponseObject }) } },
        },
      },
      handler: (c) => s.openai.respond(call(c), c.body),
    }),
  ]
}
