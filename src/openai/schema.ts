// The OpenAI-compatible requests and answers as the door accepts and documents them (docs/doors.md).
// Requests keep members the door does not name (clients send many; they are ignored, as OpenAI's
// own optional defaults); the members it cannot honour are refused by the service with
// UNSUPPORTED_PARAMETER.
import { t } from 'elysia'
import { Nullable } from '../http/schemas'

const open = { additionalProperties: true }
const Model = t.String({ minLength: 1, maxLength: 128, description: 'a model the provider pool serves (GET /v1/models)' })
const Part = t.Object({ type: t.String({ maxLength: 64 }), text: t.Optional(t.String()) }, { ...open, description: 'a content part: text parts only (`text`, `input_text`)' })
const Content = t.Union([t.String(), t.Null(), t.Array(Part, { maxItems: 256 })])
const Metadata = Nullable(t.Record(t.String({ maxLength: 64 }), t.String({ maxLength: 512 }), { description: 'stored as the task\'s metadata; `taskType` picks the task type (else header x-taskgate-task-type, else `general`)' }))
const Sampling = {
  temperature: t.Optional(Nullable(t.Number({ minimum: 0, maximum: 2 }))),
  top_p: t.Optional(Nullable(t.Number({ minimum: 0, maximum: 1 }))),
  stream: t.Optional(Nullable(t.Boolean({ description: 'server-sent events, each provider chunk forwarded as it arrives, closed by the receipt' }))),
  metadata: t.Optional(Metadata),
}
const MaxTokens = t.Optional(Nullable(t.Integer({ minimum: 1, maximum: 1_000_000 })))

export const ChatRequest = t.Object({
  model: Model,
  messages: t.Array(t.Object({ role: t.String({ maxLength: 32, description: 'system, developer, user or assistant' }), content: t.Optional(Content) }, open), { minItems: 1, maxItems: 1024 }),
  max_tokens: MaxTokens, max_completion_tokens: MaxTokens, ...Sampling,
  stop: t.Optional(Nullable(t.Union([t.String({ maxLength: 256 }), t.Array(t.String({ maxLength: 256 }), { maxItems: 4 })]))),
  n: t.Optional(Nullable(t.Integer({ minimum: 1, maximum: 1, description: 'one choice only' }))),
  stream_options: t.Optional(Nullable(t.Object({ include_usage: t.Optional(t.Boolean()) }, open))),
}, { ...open, description: 'OpenAI\'s chat completion request. Not run (400 UNSUPPORTED_PARAMETER): tools, functions, non-text content, n > 1, a response_format other than text. Other members are accepted and ignored.' })

export const ResponsesRequest = t.Object({
  model: Model,
  input: t.Union([t.String({ minLength: 1 }), t.Array(t.Object({ role: t.Optional(t.String({ maxLength: 32 })), type: t.Optional(t.String({ maxLength: 64 })), content: t.Optional(Content) }, open), { minItems: 1, maxItems: 1024 })]),
  instructions: t.Optional(Nullable(t.String())),
  max_output_tokens: MaxTokens, ...Sampling,
  previous_response_id: t.Optional(Nullable(t.String({ maxLength: 256, description: 'not supported (400): send the whole conversation' }))),
  tools: t.Optional(Nullable(t.Array(t.Unknown(), { description: 'not supported (400) unless empty' }))),
}, { ...open, description: 'The Responses API\'s request: `input` as text or message items, `instructions` as the system message. Not run (400 UNSUPPORTED_PARAMETER): tools, non-message items, non-text content, previous_response_id. Other members are accepted and ignored.' })

const Taskgate = t.Object({
  taskId: t.String(), receiptCid: Nullable(t.String()), attestationUid: Nullable(t.String()), ipfsCid: Nullable(t.String()),
}, { description: 'the task behind the answer and its proofs (GET /api/v1/public/proof/{receiptCid} verifies)' })

const Usage = t.Object({ prompt_tokens: t.Integer(), completion_tokens: t.Integer(), total_tokens: t.Integer() })

export const ChatCompletion = t.Object({
  id: t.String(), object: t.Literal('chat.completion'), created: t.Integer(), model: t.String(),
  choices: t.Array(t.Object({ index: t.Integer(), message: t.Object({ role: t.Literal('assistant'), content: t.String(), refusal: t.Null() }), logprobs: t.Null(), finish_reason: t.String() })),
  usage: Usage, system_fingerprint: t.Null(), taskgate: Taskgate,
})

export const ChatChunk = t.Object({
  id: t.String(), object: t.Literal('chat.completion.chunk'), created: t.Integer(), model: t.String(), system_fingerprint: t.Null(),
  choices: t.Array(t.Object({ index: t.Integer(), delta: t.Object({ role: t.Optional(t.Literal('assistant')), content: t.Optional(t.String()) }), logprobs: t.Null(), finish_reason: Nullable(t.String()) })),
  usage: t.Optional(Usage), taskgate: t.Optional(Taskgate),
}, { description: 'a delta; the last chunk before `[DONE]` has no choices and carries `usage` and `taskgate`' })

export const ResponseObject = t.Object({
  id: t.String(), object: t.Literal('response'), created_at: t.Integer(), model: t.String(), status: t.String({ description: 'completed, failed, in_progress' }),
  error: Nullable(t.Object({ code: t.String(), message: t.String() })), output: t.Array(t.Object({}, open)),
  usage: Nullable(t.Object({}, open)), metadata: t.Record(t.String(), t.String()), taskgate: t.Object({ taskId: t.String() }, open),
}, open)

export const ModelObject = t.Object({ id: t.String(), object: t.Literal('model'), created: t.Integer(), owned_by: t.String({ description: 'the provider\'s name' }) })
export const ModelList = t.Object({ object: t.Literal('list'), data: t.Array(ModelObject) })
