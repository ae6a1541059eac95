// HTTP for the A2A door (docs/doors.md, "A2A"): the Agent Card at /.well-known/agent-card.json
// (public) and one JSON-RPC operation, POST /a2a.
import { t } from 'elysia'
import { defineRoute, type RouteDef } from '../http/route'
import type { ProblemCode } from '../http/problem-codes'
import { PAYMENT_ERRORS, PAYMENT_REQUEST_HEADERS, PAYMENT_RESPONSE_HEADERS } from '../money/x402'
import type { Services } from '../services'

const tags = ['A2A']
const open = { additionalProperties: true }

/** A JSON-RPC 2.0 response: `result`, or `error` with A2A's codes (docs/doors.md, "A2A", "Errors"). */
const JsonRpcAnswer = t.Object({
  jsonrpc: t.Literal('2.0'),
  id: t.Union([t.String(), t.Number(), t.Null()]),
  result: t.Optional(t.Unknown({ description: 'the method\'s result: a Task (`{ task }` for SendMessage in 1.0), a stream event, a task list' })),
  error: t.Optional(t.Object({
    code: t.Integer({ description: 'JSON-RPC and A2A codes (-32602 invalid params, -32001 task not found, -32002 not cancelable, …); -32000 a TaskGate refusal (credits, kill-switch, Terms of Service, limits)' }),
    message: t.String({ description: 'a TaskGate refusal starts with its code (`KILL_SWITCH_ACTIVE: …`)' }),
    data: t.Optional(t.Unknown({ description: 'A2A 1.0: `[ErrorInfo]` (`reason`: the A2A reason, or the TaskGate code with `domain` "taskgate"); 0.3: an object naming the TaskGate code' })),
  }, open)),
}, { ...open, description: 'a JSON-RPC 2.0 response' })

/** The TaskGate codes a JSON-RPC error of /a2a may name in its `data` (docs/doors.md, "A2A", "Errors"). */
const RPC_CODES: ProblemCode[] = [
  'VALIDATION_FAILED', 'PROMPT_REQUIRED', 'PROMPT_TOO_LONG', 'INVALID_TASK_TYPE', 'UNKNOWN_MODEL', 'INVALID_IDEMPOTENCY_KEY', 'AGENT_ID_REQUIRED', 'NOT_FOUND',
  'IDEMPOTENCY_KEY_REUSED', 'WEBHOOK_URL_NOT_ALLOWED', 'AGENT_KEY_MISMATCH', 'KILL_SWITCH_ACTIVE', 'TOS_NOT_ACCEPTED', 'TOO_MANY_PENDING_APPROVALS',
  'PUSH_CONFIG_LIMIT_REACHED', ...PAYMENT_ERRORS[402], ...PAYMENT_ERRORS[403], ...PAYMENT_ERRORS[429],
]

const Card = t.Object({
  name: t.String(), description: t.String(), version: t.String(),
  capabilities: t.Object({ streaming: t.Optional(t.Boolean()), pushNotifications: t.Optional(t.Boolean()) }, open),
  skills: t.Array(t.Object({ id: t.String(), name: t.String(), description: t.String() }, open), { description: 'one per task type' }),
  defaultInputModes: t.Array(t.String()), defaultOutputModes: t.Array(t.String()),
  securitySchemes: t.Object({}, open),
  supportedInterfaces: t.Array(t.Object({ url: t.String(), protocolBinding: t.String(), protocolVersion: t.String() }, open), { description: 'the JSON-RPC endpoint `<base>/a2a`, for protocol 1.0 and 0.3' }),
}, { ...open, description: 'An A2A Agent Card: the 1.0 shape (`securityRequirements`, one-of security schemes), or with no A2A-Version (or 0.3) the 0.3 shape (`url`, `preferredTransport`, `protocolVersion`, `security`), which embeds the 1.0 interfaces too' })

export function a2aRoutes(s: Services): RouteDef[] {
  return [
    defineRoute({
      method: 'GET', path: '/.well-known/agent-card.json', auth: 'none', tags,
      summary: 'The gateway\'s A2A Agent Card',
      description: 'Public. Skills are the task types; the JSON-RPC endpoint is `<base>/a2a` (protocol 1.0 and 0.3), `<base>` being TASKGATE_PUBLIC_URL when set, else the origin the request was sent to; security: an API key as `Authorization: Bearer` or `x-api-key` (or an operator\'s bearer token). Header `A2A-Version: 1.0` (as the A2A SDK\'s client sends it) gets the 1.0 card; none, or 0.3, the 0.3 card. Cacheable for 5 minutes (`Vary: A2A-Version`).',
      responses: { 200: { description: 'the Agent Card', schema: Card, headers: { 'Cache-Control': 'Cache-Control', Vary: { description: '`A2A-Version`: the card\'s shape follows it' } } } },
      handler: ({ request, set }) => s.a2a.card(request, set.headers),
    }),
    defineRoute({
      method: 'POST', path: '/a2a', auth: 'either', longLived: true, tags,
      body: t.Object({
        jsonrpc: t.Literal('2.0'), method: t.String({ minLength: 1, maxLength: 128 }),
        id: t.Optional(t.Union([t.String({ maxLength: 256 }), t.Integer(), t.Null()])),
        params: t.Optional(t.Object({}, { ...open, description: 'the method\'s params (A2A 1.0 or 0.3 types)' })),
      }, { description: 'one JSON-RPC 2.0 request of the Agent2Agent protocol' }),
      requestHeaders: [...PAYMENT_REQUEST_HEADERS],
      summary: 'Agent2Agent (A2A) JSON-RPC endpoint',
      description: 'Built with the A2A SDK (@a2a-js/sdk 1.3). Header `A2A-Version` picks the protocol: `1.0` (methods SendMessage, SendStreamingMessage, GetTask, CancelTask, ListTasks, SubscribeToTask, Create/Get/List/DeleteTaskPushNotificationConfig), absent or `0.3` (message/send, message/stream, tasks/get, tasks/cancel, tasks/resubscribe, tasks/pushNotificationConfig/set|get|list|delete); another version → A2A\'s version error (-32009). Every message is a task of the caller\'s agent through all 8 stages: its text parts are the prompt, `metadata.taskType` the task type (default `general`; header `x-taskgate-task-type` wins), `metadata.action` what an approval judges, `metadata.model` the model. An agent-bound key acts as its agent; an operator key or a bearer token names it in header `x-taskgate-agent-id`. A2A task id = TaskGate task id; states: PENDING_APPROVAL → auth-required, QUEUED/PROCESSING → working, COMPLETED → completed with an artifact (the output text and a data part `{ taskId, receiptCid, attestationUid }`), FAILED → failed, rejected (GUARDRAIL_BLOCKED, KILL_SWITCH_ACTIVE, APPROVAL_DENIED) or canceled (TASK_CANCELLED). Answers are JSON-RPC at HTTP 200, errors included (a refusal before a task exists: -32602 for the request, -32000 for credits, kill-switch, Terms of Service and limits, the TaskGate code in `data`); streams are server-sent events of JSON-RPC responses. A missing or bad credential → 401 with WWW-Authenticate. A payment header (`PAYMENT-SIGNATURE` for x402 v2, `X-PAYMENT` for v1) pays for a message; a refusal for credits carries the v2 requirements in the `PAYMENT-REQUIRED` header and the v1 ones in the error\'s data (docs/payments.md); `Idempotency-Key` replays the original task, as on POST /api/v1/tasks/submit. Push notifications: a task\'s push configs (the TaskPushNotificationConfig methods, or `configuration.taskPushNotificationConfig` of a message; at most 10 per task, TASKGATE_MAX_A2A_PUSH_CONFIGS on an operator\'s unfinished tasks → -32000 `PUSH_CONFIG_LIMIT_REACHED`) get the whole task POSTed at each A2A state change (auth-required, working again once approved, completed, failed, rejected, canceled), as the SDK\'s own sender posts it (`{ task }` for 1.0, the 0.3 Task for a config made over 0.3; `X-A2A-Notification-Token`, or `Authorization` for a config with authentication), through the signed webhook outbox (docs/webhooks.md: `x-taskgate-signature`, `x-taskgate-eip712-sig`, retries, deliveries list); the URL is checked as a webhook URL (-32602 `WEBHOOK_URL_NOT_ALLOWED`).',
      responses: {
        200: {
          description: 'the JSON-RPC response, or for a stream its events', problemCodes: RPC_CODES, headers: { 'idempotent-replayed': 'idempotent-replayed', ...PAYMENT_RESPONSE_HEADERS, 'PAYMENT-REQUIRED': 'PAYMENT-REQUIRED' },
          content: { 'application/json': JsonRpcAnswer },
          events: {
            message: { description: 'a JSON-RPC response whose `result` is a stream event: the task, a status update, an artifact update', data: JsonRpcAnswer },
            error: { description: 'the stream failed after it began: a JSON-RPC response with `error`', data: JsonRpcAnswer },
          },
        },
      },
      handler: (c) => s.a2a.handle({ principal: c.auth, request: c.request, ip: () => c.ip, requestId: c.requestId, headers: c.set.headers }, c.body),
    }),
  ]
}
