// The OpenAI-compatible door (docs/doors.md): a chat or Responses call becomes a task of the
// caller's agent through all 8 stages (SubmitService, as POST /api/v1/tasks/submit), and the task
// becomes OpenAI's answer: whole, or streamed as the provider sends it, closed by the receipt.
import { Value } from '@sinclair/typebox/value'
import type { ApprovalService } from '../approvals/service'
import type { Clock } from '../clock'
import type { ComputeService } from '../compute/service'
import type { ChatMessage } from '../compute/types'
import { doorAgent, type Principal } from '../http/auth'
import { badRequest, ProblemError } from '../http/errors'
import { isProblemCode } from '../http/problem-codes'
import { SSE_HEADERS } from '../http/sse'
import type { Logger } from '../log'
import type { PipelineRunner } from '../pipeline/runner'
import { TaskAction } from '../tasks/schema'
import type { SubmitService } from '../tasks/submit'
import type { TaskRow } from '../tasks/types'
import {
  chatChunk, chatCompletion, computeRequestOf, promptOf, responseEvents, responseObject, textOf, unsupported,
  type Content, type ResponseEcho, type Sampling,
} from './wire'

/** How long a door call waits for its task (through approval-free stages, the overflow queue and retries). */
export const DOOR_WAIT_MS = 600_000
/** A `: ping` comment this often keeps a quiet stream (a task waiting in the overflow queue) open through proxies. */
const PING_MS = 15_000

export interface OpenAiDoorDeps {
  submit: Pick<SubmitService, 'submit'>
  pipeline: Pick<PipelineRunner, 'settle'>
  compute: Pick<ComputeService, 'list'>
  approvals: Pick<ApprovalService, 'idForTask'>
  clock: Pick<Clock, 'now'>
  log: Logger
}

/** One HTTP call through the door: who calls, the request (headers, payment), and the answer's headers as they become known. */
export interface DoorCall { principal: Principal; request: Request; ip: () => string; headers: Record<string, string | number> }

/** What a chat or Responses request asks, in one form. */
interface Conversation { model: string; messages: ChatMessage[]; sampling: Sampling; metadata: Record<string, string> | null; stream: boolean }

export interface ChatBody {
  model: string; messages: { role: string; content?: Content; tool_calls?: unknown; function_call?: unknown }[]
  stream?: boolean | null; max_tokens?: number | null; max_completion_tokens?: number | null; temperature?: number | null; top_p?: number | null
  stop?: string | string[] | null; n?: number | null; metadata?: Record<string, string> | null
  tools?: unknown; tool_choice?: unknown; functions?: unknown; function_call?: unknown; response_format?: { type?: string } | null; audio?: unknown
}

export interface ResponsesBody {
  model: string; input: string | { role?: string; type?: string; content?: Content }[]; instructions?: string | null
  stream?: boolean | null; max_output_tokens?: number | null; temperature?: number | null; top_p?: number | null; metadata?: Record<string, string> | null
  previous_response_id?: string | null; tools?: unknown[] | null; tool_choice?: unknown; text?: { format?: { type?: string } } | null
}

const ROLES: Record<string, ChatMessage['role']> = { system: 'system', developer: 'system', user: 'user', assistant: 'assistant' }
const given = <T>(v: T | null | undefined): T | undefined => (v === null ? undefined : v)

/** A task's failure as the door answers it: its code and HTTP status. */
function failureProblem(t: TaskRow): ProblemError {
  const code = t.failureCode ?? 'TASK_FAILED'
  const status = code === 'COMPUTE_FAILED' ? 502 : code === 'GUARDRAIL_BLOCKED' || code === 'KILL_SWITCH_ACTIVE' || code.startsWith('APPROVAL_') ? 403 : code === 'INSUFFICIENT_CREDITS' ? 402 : 500
  return new ProblemError(status, isProblemCode(code) ? code : 'TASK_FAILED', t.failureMessage ?? 'the task failed', { failureCode: code, taskId: t.id })
}

export class OpenAiDoor {
  constructor(private d: OpenAiDoorDeps) {}

  /** GET /v1/models: every model the provider pool serves, `builtin` included. */
  models() {
    return { object: 'list' as const, data: this.d.compute.list().flatMap((p) => p.models.map((id) => ({ id, object: 'model' as const, created: Math.floor(p.createdAt / 1000), owned_by: p.name }))) }
  }

  model(id: string) {
    const m = this.models().data.find((x) => x.id === id)
    if (!m) throw new ProblemError(404, 'UNKNOWN_MODEL', `no provider serves model ${id}`)
    return m
  }

  /** POST /v1/chat/completions. */
  async chat(call: DoorCall, body: ChatBody): Promise<unknown> {
    for (const param of ['tools', 'functions', 'function_call', 'audio'] as const) if (body[param] != null) throw unsupported(param, `${param} is not supported: TaskGate runs text completions`)
    if (body.tool_choice != null && body.tool_choice !== 'none') throw unsupported('tool_choice', 'tool_choice is not supported: TaskGate runs text completions')
    if (body.n != null && body.n !== 1) throw unsupported('n', 'n must be 1')
    if (body.response_format?.type && body.response_format.type !== 'text') throw unsupported('response_format', 'only the text response format is supported')
    const messages = body.messages.map((m, i): ChatMessage => {
      const role = ROLES[m.role]
      if (!role) throw unsupported(`messages.${i}.role`, `messages of role ${m.role} are not supported (system, developer, user, assistant)`)
      if (m.tool_calls != null || m.function_call != null) throw unsupported(`messages.${i}.tool_calls`, 'tool calls are not supported')
      return { role, content: textOf(m.content, `messages.${i}.content`) }
    })
    const stop = typeof body.stop === 'string' ? [body.stop] : given(body.stop)
    const conv: Conversation = {
      model: body.model, messages, metadata: given(body.metadata) ?? null, stream: body.stream === true,
      sampling: { maxTokens: given(body.max_completion_tokens) ?? given(body.max_tokens), temperature: given(body.temperature), topP: given(body.top_p), stop },
    }
    if (!conv.stream) return chatCompletion(await this.complete(call, conv))
    const created = Math.floor(this.d.clock.now() / 1000)
    return this.stream(call, conv, {
      start: (id) => [{ data: chatChunk(id, created, conv.model, { delta: { role: 'assistant', content: '' } }) }],
      delta: (id, text) => ({ data: chatChunk(id, created, conv.model, { delta: { content: text } }) }),
      done: (t) => [{ data: chatChunk(t.id, created, conv.model, { finish: true }) }, { data: chatChunk(t.id, created, conv.model, { end: t }) }, { data: '[DONE]' }],
      failed: (_id, p) => [{ data: { error: { message: p.detail, type: 'server_error', code: p.code.toLowerCase(), param: null, taskgate: p.extra } } }],
    })
  }

  /** POST /v1/responses. */
  async respond(call: DoorCall, body: ResponsesBody): Promise<unknown> {
    if (body.previous_response_id != null) throw unsupported('previous_response_id', 'previous_response_id is not supported: send the whole conversation in `input`')
    if (body.tools != null && body.tools.length > 0) throw unsupported('tools', 'tools are not supported: TaskGate runs text responses')
    if (body.text?.format?.type && body.text.format.type !== 'text') throw unsupported('text.format', 'only the text format is supported')
    const items = typeof body.input === 'string' ? [{ role: 'user', content: body.input as Content }] : body.input
    const messages: ChatMessage[] = body.instructions ? [{ role: 'system', content: body.instructions }] : []
    items.forEach((item, i) => {
      if (item.type !== undefined && item.type !== 'message') throw unsupported(`input.${i}.type`, `input items of type ${item.type} are not supported (messages only)`)
      const role = ROLES[item.role ?? 'user']
      if (!role) throw unsupported(`input.${i}.role`, `input of role ${item.role} is not supported (system, developer, user, assistant)`)
      messages.push({ role, content: textOf(item.content, `input.${i}.content`) })
    })
    const conv: Conversation = {
      model: body.model, messages, metadata: given(body.metadata) ?? null, stream: body.stream === true,
      sampling: { maxTokens: given(body.max_output_tokens), temperature: given(body.temperature), topP: given(body.top_p) },
    }
    const echo: ResponseEcho = { instructions: given(body.instructions) ?? null, maxOutputTokens: given(body.max_output_tokens) ?? null, temperature: given(body.temperature) ?? null, topP: given(body.top_p) ?? null, metadata: conv.metadata ?? {} }
    const createdAt = this.d.clock.now()
    if (!conv.stream) {
      const t = await this.complete(call, conv)
      return responseObject(t.id, createdAt, conv.model, echo, { done: t })
    }
    let text = ''
    return this.stream(call, conv, {
      start: (id) => {
        const pending = responseObject(id, createdAt, conv.model, echo, {})
        return [
          { event: 'response.created', data: { type: 'response.created', response: pending } },
          { event: 'response.in_progress', data: { type: 'response.in_progress', response: pending } },
          { event: 'response.output_item.added', data: responseEvents.itemAdded(id) },
          { event: 'response.content_part.added', data: responseEvents.partAdded(id) },
        ]
      },
      delta: (id, piece) => { text += piece; return { event: 'response.output_text.delta', data: responseEvents.delta(id, piece) } },
      done: (t) => {
        const out = t.output ?? text
        return [
          { event: 'response.output_text.done', data: responseEvents.textDone(t.id, out) },
          { event: 'response.content_part.done', data: responseEvents.partDone(t.id, out) },
          { event: 'response.output_item.done', data: responseEvents.itemDone(t.id, out) },
          { event: 'response.completed', data: { type: 'response.completed', response: responseObject(t.id, createdAt, conv.model, echo, { done: t }) } },
        ]
      },
      failed: (id, p) => [{ event: 'response.failed', data: { type: 'response.failed', response: responseObject(id, createdAt, conv.model, echo, { failed: { code: p.code, message: p.detail } }) } }],
    }, true)
  }

  /** Admits the call's task and waits for it: the completed task, or its refusal, hold or failure thrown as a problem. */
  private async complete(call: DoorCall, conv: Conversation): Promise<TaskRow> {
    const taskId = await this.admit(call, conv)
    return this.finished(call, await this.d.pipeline.settle(taskId, DOOR_WAIT_MS))
  }

  /**
   * Submits the task (refusals thrown as problems, the task's id in `x-taskgate-task-id` when one
   * was recorded) and answers at once with its id; a hold for approval is thrown (APPROVAL_REQUIRED).
   */
  private async admit(call: DoorCall, conv: Conversation, onDelta?: (text: string) => void): Promise<string> {
    const { principal, request } = call
    const agentId = doorAgent(principal, request.headers.get('x-taskgate-agent-id'))
    const { taskType: metaType, ...metadata } = conv.metadata ?? {}
    const taskType = request.headers.get('x-taskgate-task-type') ?? metaType ?? 'general'
    try {
      const answer = await this.d.submit.submit({
        principal,
        input: {
          agentId, taskType, prompt: promptOf(conv.messages), model: conv.model, door: 'openai',
          computeRequest: computeRequestOf(conv.messages, conv.sampling), onDelta,
          ...(Object.keys(metadata).length ? { metadata } : {}), ...actionOf(request),
        },
        idempotencyKey: request.headers.get('idempotency-key'), payment: request, ip: call.ip, waitMs: 0,
      }, call.headers)
      delete call.headers.location // the REST answer's; a door's caller reads the task by its id header
      const task = answer.body
      call.headers['x-taskgate-task-id'] = task.id
      if (task.status === 'PENDING_APPROVAL') throw this.held(call, task.id)
      return task.id
    } catch (e) {
      const refused = e instanceof ProblemError ? (e.extra.task as { id?: string } | undefined) : undefined
      if (refused?.id) { call.headers['x-taskgate-task-id'] = refused.id; delete (e as ProblemError).extra.task } // a guardrail refusal records a FAILED task
      throw e
    }
  }

  private held(call: DoorCall, taskId: string): ProblemError {
    const approvalId = this.d.approvals.idForTask(taskId)
    if (approvalId) call.headers['x-taskgate-approval-id'] = approvalId
    return new ProblemError(403, 'APPROVAL_REQUIRED', 'the call is held for human approval: the task waits PENDING_APPROVAL and its result appears on the task once approved', { approvalId, taskId })
  }

  /** The settled task: completed (its receipt in the headers), or its hold, failure or unfinished wait thrown. */
  private finished(call: DoorCall, t: TaskRow | null): TaskRow {
    if (!t) throw new ProblemError(500, 'INTERNAL', 'the task is gone')
    if (t.status === 'COMPLETED') {
      call.headers['x-taskgate-receipt-cid'] = t.receiptCid!
      call.headers['x-taskgate-attestation-uid'] = t.attestationUid!
      return t
    }
    if (t.status === 'PENDING_APPROVAL') throw this.held(call, t.id)
    if (t.status === 'FAILED') throw failureProblem(t)
    throw new ProblemError(504, 'TASK_STILL_RUNNING', `the task did not finish within ${DOOR_WAIT_MS / 1000} s; it goes on: GET /api/v1/tasks/${t.id}`, { taskId: t.id })
  }

  /**
   * A streamed answer: the task is admitted first (a refusal or hold is an ordinary error answer),
   * then the stream opens with `x-taskgate-task-id`, forwards each piece of output as the provider
   * sends it, and closes with the finished task (or its failure). Pieces that arrive before the
   * admission's commit returns the task's id wait for it (under a millisecond); output the provider
   * did not stream (the builtin provider) is sent whole at the end, so the client always receives
   * exactly the output the receipt covers.
   */
  private async stream(call: DoorCall, conv: Conversation, shape: StreamShape, typed = false): Promise<Response> {
    const out = new EventWriter(typed)
    let taskId: string | null = null
    let sent = ''
    const early: string[] = []
    const onDelta = (text: string) => {
      sent += text
      if (taskId) out.write(shape.delta(taskId, text))
      else early.push(text)
    }
    taskId = await this.admit(call, conv, onDelta)
    const id = taskId
    out.writeAll(shape.start(id))
    for (const text of early) out.write(shape.delta(id, text))
    void this.d.pipeline.settle(id, DOOR_WAIT_MS).then((t) => {
      try {
        const done = this.finished({ ...call, headers: {} }, t)
        const output = done.output ?? ''
        if (output.startsWith(sent) && output.length > sent.length) out.write(shape.delta(id, output.slice(sent.length)))
        else if (!output.startsWith(sent)) this.d.log.error({ taskId: id }, 'streamed text is not a prefix of the task output')
        out.writeAll(shape.done(done))
      } catch (e) {
        const p = e instanceof ProblemError ? e : new ProblemError(500, 'INTERNAL', 'internal error')
        out.writeAll(shape.failed(id, p))
      }
      out.close()
    }, (e) => { this.d.log.error({ taskId: id, err: (e as Error).message }, 'door stream failed'); out.close() })
    return new Response(out.readable, { headers: { ...SSE_HEADERS, ...stringHeaders(call.headers) } })
  }
}

interface StreamEvent { event?: string; data: unknown }
interface StreamShape {
  start(taskId: string): StreamEvent[]
  delta(taskId: string, text: string): StreamEvent
  done(task: TaskRow): StreamEvent[]
  failed(taskId: string, p: ProblemError): StreamEvent[]
}

const stringHeaders = (h: Record<string, string | number>) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k, String(v)]))

/** `x-taskgate-action`: the JSON object that `action` is on submit, or 400 INVALID_ACTION_HEADER. */
function actionOf(request: Request): { action?: Record<string, unknown> } {
  const raw = request.headers.get('x-taskgate-action')
  if (raw === null) return {}
  let action: unknown
  try { action = JSON.parse(raw) } catch { throw badRequest('INVALID_ACTION_HEADER', 'x-taskgate-action is not valid JSON') }
  if (!Value.Check(TaskAction, action)) throw badRequest('INVALID_ACTION_HEADER', 'x-taskgate-action must be a JSON object of the submit `action` shape (actionType, operation, target, requestedValue, currency, evidenceRefs)')
  return { action: action as Record<string, unknown> }
}

/**
 * The server-sent events of a streamed answer, written as they come (no buffering of our own):
 * `data:` lines (with `event:` for the Responses API's typed events, each numbered by
 * `sequence_number`), a `: ping` comment while quiet, and the end. A client that leaves stops the
 * writing, not the task: it finishes and keeps its receipt.
 */
class EventWriter {
  readonly readable: ReadableStream<Uint8Array>
  private controller!: ReadableStreamDefaultController<Uint8Array>
  private closed = false
  private seq = 0
  private readonly encoder = new TextEncoder()
  private readonly ping: ReturnType<typeof setInterval>

  constructor(private typed: boolean) {
    this.readable = new ReadableStream<Uint8Array>({
      start: (c) => { this.controller = c },
      cancel: () => this.stop(),
    })
    this.ping = setInterval(() => this.raw(': ping\n\n'), PING_MS)
    this.ping.unref?.()
  }

  write(e: StreamEvent): void {
    if (this.closed) return
    const data = typeof e.data === 'string' ? e.data : JSON.stringify(this.typed ? { ...(e.data as object), sequence_number: this.seq++ } : e.data)
    this.raw(e.event ? `event: ${e.event}\ndata: ${data}\n\n` : `data: ${data}\n\n`)
  }

  writeAll(events: StreamEvent[]): void { for (const e of events) this.write(e) }

  close(): void {
    if (this.closed) return
    this.stop()
    try { this.controller.close() } catch { /* cancelled */ }
  }

  private raw(text: string): void {
    if (this.closed) return
    try { this.controller.enqueue(this.encoder.encode(text)) } catch { this.stop() }
  }

  private stop(): void {
    this.closed = true
    clearInterval(this.ping)
  }
}

