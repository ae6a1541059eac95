// OpenAI's wire shapes, from and to a task (docs/doors.md): a chat request or a Responses request
// becomes the task's prompt and compute request; a finished task becomes a `chat.completion`, its
// stream `chat.completion.chunk`s, or a Responses `response` with its typed stream events.
import type { ChatMessage } from '../compute/types'
import { badRequest } from '../http/errors'
import { charLength } from '../lib/chars'
import type { TaskRow } from '../tasks/types'

/** The longest prompt a task takes (as POST /api/v1/tasks/submit). */
export const MAX_PROMPT = 100_000

/** A message's content as OpenAI clients send it: a string, or parts of which only text is run. */
export type Content = string | { type: string; text?: string }[] | null | undefined

export interface Sampling { maxTokens?: number; temperature?: number; topP?: number; stop?: string[] }

/** The text of a message's content; image, audio and file parts → 400 UNSUPPORTED_PARAMETER. */
export function textOf(content: Content, param: string): string {
  if (content == null) return ''
  if (typeof content === 'string') return content
  return content.map((part, i) => {
    if ((part.type === 'text' || part.type === 'input_text' || part.type === 'output_text') && typeof part.text === 'string') return part.text
    throw unsupported(`${param}[${i}]`, `content parts of type ${part.type} are not supported: TaskGate runs text`)
  }).join('')
}

export const unsupported = (param: string, message: string) => badRequest('UNSUPPORTED_PARAMETER', message, { errors: [{ path: `/${param.replaceAll('.', '/')}`, message }] })

/**
 * The task's prompt for a conversation: a lone user message is its text; anything else renders each
 * message as `role: text`, blank-line separated. This text is what guardrails check, what the
 * receipt's promptHash covers, and what the owner reads back; compute gets the messages themselves.
 */
export function promptOf(messages: ChatMessage[]): string {
  const prompt = messages.length === 1 && messages[0]!.role === 'user' ? messages[0]!.content : messages.map((m) => `${m.role}: ${m.content}`).join('\n\n')
  if (prompt.trim() === '') throw badRequest('PROMPT_REQUIRED', 'the conversation has no text')
  if (charLength(prompt) > MAX_PROMPT) throw badRequest('PROMPT_TOO_LONG', `the conversation, rendered as the task's prompt, is over ${MAX_PROMPT} characters`)
  return prompt
}

/** The compute request stored with the task: the messages when they say more than the prompt, and the sampling parameters given. */
export function computeRequestOf(messages: ChatMessage[], s: Sampling): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {}
  if (!(messages.length === 1 && messages[0]!.role === 'user')) out.messages = messages
  if (s.maxTokens !== undefined) out.maxTokens = s.maxTokens
  if (s.temperature !== undefined) out.temperature = s.temperature
  if (s.topP !== undefined) out.topP = s.topP
  if (s.stop !== undefined && s.stop.length > 0) out.stop = s.stop
  return Object.keys(out).length ? out : undefined
}

/** What every door answer carries about its task. */
export const taskgateOf = (t: TaskRow) => ({ taskId: t.id, receiptCid: t.receiptCid, attestationUid: t.attestationUid, ipfsCid: t.ipfsCid })

const seconds = (ms: number) => Math.floor(ms / 1000)
const usageOf = (t: TaskRow) => ({ prompt_tokens: t.promptTokens ?? 0, completion_tokens: t.completionTokens ?? 0, total_tokens: (t.promptTokens ?? 0) + (t.completionTokens ?? 0) })

// ---- Chat Completions ----

export const chatId = (taskId: string) => `chatcmpl-${taskId}`

export function chatCompletion(t: TaskRow) {
  return {
    id: chatId(t.id), object: 'chat.completion' as const, created: seconds(t.createdAt), model: t.model,
    choices: [{ index: 0, message: { role: 'assistant' as const, content: t.output ?? '', refusal: null }, logprobs: null, finish_reason: 'stop' as const }],
    usage: usageOf(t), system_fingerprint: null, taskgate: taskgateOf(t),
  }
}

/** One `chat.completion.chunk`: a delta, the finish, or (no choices) the closing chunk with usage and `taskgate`. */
export function chatChunk(taskId: string, created: number, model: string, part: { delta?: { role?: 'assistant'; content?: string }; finish?: boolean; end?: TaskRow }) {
  const base = { id: chatId(taskId), object: 'chat.completion.chunk' as const, created, model, system_fingerprint: null }
  if (part.end) return { ...base, choices: [], usage: usageOf(part.end), taskgate: taskgateOf(part.end) }
  return { ...base, choices: [{ index: 0, delta: part.delta ?? {}, logprobs: null, finish_reason: part.finish ? 'stop' : null }] }
}

// ---- Responses ----

export const responseId = (taskId: string) => `resp_${taskId}`
export const messageId = (taskId: string) => `msg_${taskId}`

export interface ResponseEcho { instructions: string | null; maxOutputTokens: number | null; temperature: number | null; topP: number | null; metadata: Record<string, string> }

const outputText = (text: string) => ({ type: 'output_text' as const, text, annotations: [] as never[], logprobs: [] as never[] })
const messageItem = (taskId: string, text: string | null) => ({
  type: 'message' as const, id: messageId(taskId), status: text === null ? 'in_progress' as const : 'completed' as const, role: 'assistant' as const,
  content: text === null ? [] : [outputText(text)],
})

/** A Responses `response`: in progress (no task result yet), completed, or failed. */
export function responseObject(taskId: string, createdAt: number, model: string, echo: ResponseEcho, state: { done?: TaskRow; failed?: { code: string; message: string } }) {
  const t = state.done
  return {
    id: responseId(taskId), object: 'response' as const, created_at: seconds(createdAt), model,
    status: t ? 'completed' as const : state.failed ? 'failed' as const : 'in_progress' as const,
    error: state.failed ? { code: state.failed.code.toLowerCase(), message: state.failed.message } : null, incomplete_details: null,
    instructions: echo.instructions, max_output_tokens: echo.maxOutputTokens, temperature: echo.temperature, top_p: echo.topP,
    output: t ? [messageItem(taskId, t.output ?? '')] : [],
    parallel_tool_calls: false, tool_choice: 'none' as const, tools: [] as never[], text: { format: { type: 'text' as const } }, truncation: 'disabled' as const,
    usage: t ? { input_tokens: t.promptTokens ?? 0, input_tokens_details: { cached_tokens: 0 }, output_tokens: t.completionTokens ?? 0, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: (t.promptTokens ?? 0) + (t.completionTokens ?? 0) } : null,
    metadata: echo.metadata, taskgate: t ? taskgateOf(t) : { taskId },
  }
}

/** The typed events of a streamed response between `response.in_progress` and `response.completed`. */
export const responseEvents = {
  itemAdded: (taskId: string) => ({ type: 'response.output_item.added', output_index: 0, item: messageItem(taskId, null) }),
  partAdded: (taskId: string) => ({ type: 'response.content_part.added', item_id: messageId(taskId), output_index: 0, content_index: 0, part: outputText('') }),
  delta: (taskId: string, delta: string) => ({ type: 'response.output_text.delta', item_id: messageId(taskId), output_index: 0, content_index: 0, delta, logprobs: [] }),
  textDone: (taskId: string, text: string) => ({ type: 'response.output_text.done', item_id: messageId(taskId), output_index: 0, content_index: 0, text, logprobs: [] }),
  partDone: (taskId: string, text: string) => ({ type: 'response.content_part.done', item_id: messageId(taskId), output_index: 0, content_index: 0, part: outputText(text) }),
  itemDone: (taskId: string, text: string) => ({ type: 'response.output_item.done', output_index: 0, item: messageItem(taskId, text) }),
}
