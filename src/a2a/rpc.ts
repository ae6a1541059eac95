// The A2A door's JSON-RPC side on the official SDK (@a2a-js/sdk 1.3), loaded at the first /a2a
// request (A2aDoor, src/a2a/service.ts); docs/doors.md, "A2A". The SDK's transport handlers parse
// the request, dispatch the method and write the A2A types and errors, in protocol 1.0
// (JsonRpcTransportHandler: SendMessage, SendStreamingMessage, GetTask, CancelTask, ListTasks,
// SubscribeToTask, the four TaskPushNotificationConfig methods) or 0.3
// (LegacyJsonRpcTransportHandler: message/send, message/stream, tasks/get, tasks/cancel,
// tasks/resubscribe, tasks/pushNotificationConfig/*), chosen by the A2A-Version header as the SDK's own
// express adapter chooses. TaskGateHandler is the SDK's A2ARequestHandler over TaskGate: a message
// is a task through SubmitService; A2A task id = TaskGate task id. Push notification configs are
// stored and delivered by A2aPush (src/a2a/push.ts).
import {
  AgentCard, Role, Task, TaskState, type DeleteTaskPushNotificationConfigRequest, type GetTaskPushNotificationConfigRequest,
  type ListTaskPushNotificationConfigsRequest, type ListTaskPushNotificationConfigsResponse, type Message, type Part, type SendMessageRequest,
  type StreamResponse, type TaskPushNotificationConfig,
} from '@a2a-js/sdk'
import {
  A2A_ERROR_CODE, A2AError, ContentTypeNotSupportedError, ERROR_INFO_TYPE, ExtendedAgentCardNotConfiguredError, JsonRpcRequestMalformedError,
  TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError,
} from '@a2a-js/sdk/errors'
import { JsonRpcTransportHandler, ServerCallContext, validateVersion, type A2ARequestHandler } from '@a2a-js/sdk/server'
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server'
import { Value } from '@sinclair/typebox/value'
import { TASK_TYPES } from '../agents/schema'
import { isDatabaseBusy, isStorageFull } from '../db/storage'
import { canRead, doorAgent } from '../http/auth'
import { badRequest, ProblemError } from '../http/errors'
import { eventStream, SSE_HEADERS } from '../http/sse'
import { charLength } from '../lib/chars'
import type { TaskEvent } from '../pipeline/runner'
import { TaskAction } from '../tasks/schema'
import type { SubmitInput } from '../tasks/service'
import type { TaskRow } from '../tasks/types'
import type { PushConfigInput, PushVersion } from './push'
import { contextOf, taskJson } from './task-json'
import { A2A_WAIT_MS, type A2aCall, type A2aDoorDeps } from './types'

/** The prompt's limit, as on POST /api/v1/tasks/submit. */
const MAX_PROMPT = 100_000
/** A client's contextId is kept with the task (its metadata); this long at most. */
const MAX_CONTEXT_ID = 256
/**
 * The JSON-RPC code of a TaskGate refusal that is not about the request's shape (402 credits, 403
 * kill-switch, Terms of Service, another agent, 429 pending approvals): JSON-RPC's
 * implementation-defined server error, which A2A leaves unused. `data` names the TaskGate code.
 */
export const REFUSED = -32000
/** ErrorInfo.domain of TaskGate's own reasons (the TaskGate problem codes, docs/api.md). */
const DOMAIN = 'taskgate'
const TERMINAL = new Set<TaskState>([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_REJECTED])
const MAX_PAGE = 100

/**
 * A TaskGate refusal as a JSON-RPC error: `code` -32602 (invalid params) for what is wrong with the
 * request, REFUSED otherwise; the message starts with the TaskGate code; `data` names it: in A2A 1.0
 * a google.rpc.ErrorInfo `{ reason: <code>, domain: "taskgate", metadata }`, in 0.3 an object
 * `{ code, status, … }` with the problem's other members (a 402's x402 payment requirements).
 */
class Refusal extends JsonRpcRequestMalformedError {
  private info: Record<string, string>
  constructor(readonly problem: ProblemError) {
    const extra = problemExtra(problem)
    super({ message: `${problem.code}: ${problem.detail}`, envelopeCode: problem.status === 400 || problem.status === 404 || problem.status === 409 ? A2A_ERROR_CODE.INVALID_PARAMS : REFUSED, data: { code: problem.code, status: problem.status, ...extra } as never })
    this.info = Object.fromEntries(Object.entries({ status: problem.status, ...extra }).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]))
  }
  override toErrorInfo() {
    return { '@type': ERROR_INFO_TYPE, reason: this.problem.code, domain: DOMAIN, metadata: this.info } as never
  }
}

/** A problem's members for an error's data: JSON values only, without the FAILED task a submit refusal carries. */
function problemExtra(p: ProblemError): Record<string, unknown> {
  const { task: _task, ...rest } = p.extra
  return JSON.parse(JSON.stringify(rest)) as Record<string, unknown>
}

const invalid = (detail: string, path: string) => new ProblemError(400, 'VALIDATION_FAILED', detail, { errors: [{ path, message: detail }] })

/** A queue of stream events, read with `for await`, that ends on close() (or on the first error). */
class EventQueue<T> implements AsyncIterable<T> {
  private items: T[] = []
  private waiting: ((r: IteratorResult<T>) => void) | null = null
  private failWaiting: ((e: unknown) => void) | null = null
  private done = false
  private error: unknown = null

  push(item: T): void {
    if (this.done) return
    if (this.waiting) { const w = this.waiting; this.waiting = null; w({ value: item, done: false }) } else this.items.push(item)
  }

  close(): void {
    if (this.done) return
    this.done = true
    if (this.waiting) { const w = this.waiting; this.waiting = null; w({ value: undefined, done: true }) }
  }

  fail(e: unknown): void {
    if (this.done) return
    this.error = e
    this.done = true
    if (this.failWaiting) this.failWaiting(e)
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        if (this.items.length) return Promise.resolve({ value: this.items.shift()!, done: false })
        if (this.error) return Promise.reject(this.error)
        if (this.done) return Promise.resolve({ value: undefined, done: true })
        return new Promise((resolve, reject) => { this.waiting = resolve; this.failWaiting = reject })
      },
    }
  }
}

const text = (value: string): Part => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' })
const iso = (ms: number | null | undefined) => (ms == null ? undefined : new Date(ms).toISOString())

/** The SDK's A2ARequestHandler over TaskGate, one per request, bound to the caller's credential. */
class TaskGateHandler implements A2ARequestHandler {
  /** A server condition met while handling (a full disk, a busy database): the HTTP answer becomes its problem (507, 503). */
  escalated: unknown = null
  /** This handler failed unexpectedly (logged): the answer is JSON-RPC's internal error with HTTP 500. */
  internal = false

  /** The protocol of this request: a push config made over 0.3 gets 0.3-shaped notifications. */
  private version: PushVersion

  constructor(private d: A2aDoorDeps, private call: A2aCall, private card: AgentCard, private stop: AbortSignal, private legacy: boolean) {
    this.version = legacy ? '0.3' : '1.0'
  }

  async getAgentCard(): Promise<AgentCard> { return this.card }

  async getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    throw new ExtendedAgentCardNotConfiguredError('this agent has no extended card: the public card at /.well-known/agent-card.json is the whole card')
  }

  sendMessage(params: SendMessageRequest): Promise<Task> {
    return this.guard(async () => {
      const push = await this.pushOf(params)
      const admitted = await this.admit(params)
      this.attach(admitted.row, push)
      if (params.configuration?.returnImmediately || !admitted.running) return this.taskOf(admitted.row, admitted.contextId, admitted.running)
      const settled = await this.d.pipeline.settle(admitted.row.id, A2A_WAIT_MS)
      return this.taskOf(settled ?? admitted.row, admitted.contextId)
    })
  }

  async *sendMessageStream(params: SendMessageRequest): AsyncGenerator<StreamResponse, void, undefined> {
    try {
      const push = await this.pushOf(params)
      const admitted = await this.admit(params)
      this.attach(admitted.row, push)
      // The task as admitted (working, held or refused); the rest follows as it happens.
      yield { payload: { $case: 'task', value: this.taskOf(admitted.row, admitted.contextId, admitted.running) } }
      if (admitted.running) yield* this.follow(admitted.row.id, admitted.contextId)
    } catch (e) {
      throw this.rpcError(e)
    }
  }

  getTask(params: { id: string }): Promise<Task> {
    return this.guard(async () => {
      const t = this.readable(params.id)
      return this.taskOf(t, contextOf(t))
    })
  }

  cancelTask(params: { id: string }): Promise<Task> {
    return this.guard(async () => {
      const t = this.readable(params.id)
      try {
        return this.taskOf(this.d.tasks.cancel(this.call.principal, t.id, 'A2A CancelTask'), contextOf(t))
      } catch (e) {
        if (e instanceof ProblemError && e.code === 'TASK_NOT_CANCELABLE') throw new TaskNotCancelableError(`Task not cancelable: ${t.id} (${e.detail})`)
        throw e
      }
    })
  }

  /**
   * The caller's tasks, newest first (an agent-bound key: its agent's), a page at a time
   * (`pageToken`: the page number the last answer gave). Filters: `status` COMPLETED or
   * AUTH_REQUIRED; the others, `contextId` and `statusTimestampAfter` are not kept in a form a
   * list can filter by (UnsupportedOperation: use GET /api/v1/operator/tasks).
   */
  listTasks(params: { contextId: string; status: TaskState; pageSize?: number; pageToken: string; statusTimestampAfter?: string; includeArtifacts?: boolean }) {
    return this.guard(async () => {
      if (params.contextId || params.statusTimestampAfter) throw new UnsupportedOperationError('ListTasks filters by status (COMPLETED or AUTH_REQUIRED) only; GET /api/v1/operator/tasks has the other filters')
      const status = params.status === TaskState.TASK_STATE_COMPLETED ? 'COMPLETED' : params.status === TaskState.TASK_STATE_AUTH_REQUIRED ? 'PENDING_APPROVAL' : undefined
      if (status === undefined && params.status !== TaskState.TASK_STATE_UNSPECIFIED) throw new UnsupportedOperationError('ListTasks filters by status COMPLETED or AUTH_REQUIRED only; GET /api/v1/operator/tasks has the other filters')
      if (params.pageToken && !/^[1-9][0-9]{0,5}$/.test(params.pageToken)) throw invalid('pageToken is not a page this list gave', '/params/pageToken')
      const limit = Math.min(Math.max(Math.trunc(params.pageSize ?? 50), 1), MAX_PAGE)
      const page = Number(params.pageToken || 1)
      const p = this.call.principal
      const list = this.d.tasks.list({ operatorId: p.operator.id, agentId: p.key?.agentId ?? undefined, status, page, limit })
      const tasks = list.data.map((v) => this.d.pipeline.task(v.id)).filter((t): t is TaskRow => t !== null).map((t) => {
        const task = this.taskOf(t, contextOf(t))
        return params.includeArtifacts ? task : { ...task, artifacts: [] }
      })
      return { tasks, nextPageToken: page < list.totalPages ? String(page + 1) : '', pageSize: limit, totalSize: list.total }
    })
  }

  /** A stream of a task still running: the task, then its progress to the end; a finished task → UnsupportedOperation, as in the SDK. */
  async *resubscribe(params: { id: string }): AsyncGenerator<StreamResponse, void, undefined> {
    try {
      const t = this.readable(params.id)
      const task = this.taskOf(t, contextOf(t))
      if (TERMINAL.has(task.status!.state)) throw new UnsupportedOperationError(`Task ${t.id} is in a terminal state (${TaskState[task.status!.state]}) and cannot be subscribed to.`)
      yield { payload: { $case: 'task', value: task } }
      if (t.status !== 'PENDING_APPROVAL') yield* this.follow(t.id, contextOf(t))
    } catch (e) {
      throw this.rpcError(e)
    }
  }

  /**
   * A push config for one of the caller's tasks (docs/doors.md, "A2A", "Push notifications"): its
   * URL checked as a webhook URL's, stored (the same id again replaces it; no id: the task's id).
   * It is told of the task's state changes from now on.
   */
  createTaskPushNotificationConfig(params: TaskPushNotificationConfig): Promise<TaskPushNotificationConfig> {
    return this.guard(async () => {
      const t = this.readable(params.taskId)
      const c = await this.d.push.check(params, this.legacy ? '/params/pushNotificationConfig' : '/params')
      return this.d.push.save(t, c, this.version, { catchUp: false, roomChecked: false })
    })
  }

  getTaskPushNotificationConfig(params: GetTaskPushNotificationConfigRequest): Promise<TaskPushNotificationConfig> {
    return this.guard(async () => {
      const t = this.readable(params.taskId)
      const c = this.d.push.get(t, params.id)
      if (!c) throw new TaskNotFoundError(`Push notification config ${JSON.stringify(params.id || t.id)} not found for task ${t.id}`)
      return c
    })
  }

  /** All of the task's configs (at most 10: one page). */
  listTaskPushNotificationConfigs(params: ListTaskPushNotificationConfigsRequest): Promise<ListTaskPushNotificationConfigsResponse> {
    return this.guard(async () => ({ configs: this.d.push.list(this.readable(params.taskId)), nextPageToken: '' }))
  }

  /** Deletes one (its notifications not yet delivered are not sent); an unknown id changes nothing, as in the SDK. */
  deleteTaskPushNotificationConfig(params: DeleteTaskPushNotificationConfigRequest): Promise<void> {
    return this.guard(async () => { this.d.push.remove(this.readable(params.taskId), params.id) })
  }

  /**
   * The push config a message brings (`configuration.taskPushNotificationConfig`; 0.3:
   * `pushNotificationConfig`), checked before the message runs, with room for it under the
   * operator's limit, so a refused config makes no task.
   */
  private async pushOf(params: SendMessageRequest): Promise<PushConfigInput | null> {
    const c = params.configuration?.taskPushNotificationConfig
    if (!c) return null
    const checked = await this.d.push.check(c, this.legacy ? '/params/configuration/pushNotificationConfig' : '/params/configuration/taskPushNotificationConfig')
    this.d.push.assertRoom(this.call.principal.operator.id)
    return checked
  }

  /** Stores a message's push config for its task; a task already held or finished is notified of that at once. */
  private attach(row: TaskRow, push: PushConfigInput | null): void {
    if (push) this.d.push.save(row, push, this.version, { catchUp: true, roomChecked: true })
  }

  /** One of the caller's tasks, or A2A's task-not-found (another operator's, another agent's for an agent-bound key, or none). */
  private readable(id: string): TaskRow {
    const t = id ? this.d.pipeline.task(id) : null
    if (!t || !canRead(this.call.principal, t)) throw new TaskNotFoundError(`Task not found: ${id}`)
    return t
  }

  /**
   * A message as a task: submitted (refusals before a task exists are thrown; a guardrail refusal
   * records a FAILED task, answered rejected), with the contextId the answer carries. `running`:
   * the task was admitted to run (PROCESSING or QUEUED), rather than held, refused or replayed finished.
   */
  private async admit(params: SendMessageRequest): Promise<{ row: TaskRow; contextId: string; running: boolean }> {
    const { principal, request } = this.call
    const agentId = doorAgent(principal, request.headers.get('x-taskgate-agent-id'))
    const { input, contextId } = this.inputOf(params, agentId, request.headers.get('x-taskgate-task-type'))
    let id: string
    let status: string
    try {
      const answer = await this.d.submit.submit({ principal, input, idempotencyKey: request.headers.get('idempotency-key'), payment: request, ip: this.call.ip, waitMs: 0 }, this.call.headers)
      delete this.call.headers.location // the REST answer's; an A2A client reads the task by its id
      id = answer.body.id
      status = answer.body.status
    } catch (e) {
      // A guardrail refusal is a recorded (FAILED) task: answered as the rejected task it is.
      const refused = e instanceof ProblemError && e.code === 'GUARDRAIL_BLOCKED' ? (e.extra.task as { id?: string } | undefined)?.id : undefined
      if (!refused) throw e
      id = refused
      status = 'FAILED'
    }
    const row = this.d.pipeline.task(id)!
    return { row, contextId: contextId ?? contextOf(row), running: status === 'PROCESSING' || status === 'QUEUED' }
  }

  /** The submission a message makes (docs/doors.md, "A2A", "What a message asks"). */
  private inputOf(params: SendMessageRequest, agentId: string, typeHeader: string | null): { input: SubmitInput; contextId: string | null } {
    const m = params.message
    if (!m) throw invalid('params.message is required: its text parts are the prompt', '/params/message')
    if (m.taskId) throw new UnsupportedOperationError(`a TaskGate task takes one message: send a new message without taskId (a task held for approval runs once an operator approves it; GetTask ${m.taskId} shows it)`)
    const texts: string[] = []
    for (const part of m.parts) {
      if (part.content?.$case !== 'text') throw new ContentTypeNotSupportedError(`TaskGate runs text tasks: send text parts only (this message has a ${part.content?.$case ?? 'empty'} part)`)
      texts.push(part.content.value)
    }
    const prompt = texts.join('\n')
    if (prompt.trim() === '') throw badRequest('PROMPT_REQUIRED', 'the message has no text: its text parts are the prompt')
    if (charLength(prompt) > MAX_PROMPT) throw badRequest('PROMPT_TOO_LONG', `the message's text is over ${MAX_PROMPT} characters`)
    if (m.contextId && charLength(m.contextId) > MAX_CONTEXT_ID) throw invalid(`contextId is over ${MAX_CONTEXT_ID} characters`, '/params/message/contextId')
    // The message's metadata (else the request's) names the type, the model and the action.
    const { taskType: metaType, action, model, a2aContextId: _ours, ...rest } = { ...(params.metadata ?? {}), ...(m.metadata ?? {}) } as Record<string, unknown>
    const taskType = typeHeader ?? metaType ?? 'general'
    if (typeof taskType !== 'string' || !(TASK_TYPES as readonly string[]).includes(taskType)) throw badRequest('INVALID_TASK_TYPE', `unknown taskType ${JSON.stringify(taskType)} (allowed: ${TASK_TYPES.join(', ')})`, { allowed: TASK_TYPES })
    if (action !== undefined && !Value.Check(TaskAction, action)) throw invalid('metadata.action must be an object of the submit `action` shape (actionType, operation, target, requestedValue, currency, evidenceRefs)', '/params/message/metadata/action')
    if (model !== undefined && (typeof model !== 'string' || model.length < 1 || model.length > 128)) throw invalid('metadata.model must be a model name (1-128 characters; GET /v1/models lists them)', '/params/message/metadata/model')
    const metadata: Record<string, unknown> = { ...rest, ...(m.contextId ? { a2aContextId: m.contextId } : {}) }
    return {
      contextId: m.contextId || null,
      input: {
        agentId, taskType, prompt, door: 'a2a', ...(model !== undefined ? { model: model as string } : {}),
        ...(Object.keys(metadata).length ? { metadata } : {}), ...(action !== undefined ? { action: action as Record<string, unknown> } : {}),
      },
    }
  }

  /**
   * The task's progress after its admission, until it ends: a `working` status update per stage
   * (and one when it waits in the overflow queue), then, completed, the artifact and the final
   * status; failed, the final status. Ends early when the client leaves or the stream's credential
   * fails; a task not finished within the wait ends the stream at its last `working` update
   * (SubscribeToTask or GetTask follow it).
   */
  private async *follow(id: string, contextId: string): AsyncGenerator<StreamResponse, void, undefined> {
    const q = new EventQueue<StreamResponse>()
    const on = (e: TaskEvent) => {
      if (e.status !== 'done' && e.status !== 'queued') return
      const waiting = e.status === 'queued'
      q.push({ payload: { $case: 'statusUpdate', value: {
        taskId: id, contextId,
        status: { state: TaskState.TASK_STATE_WORKING, message: this.note(id, contextId, `${e.stage}-${e.name}-${e.status}`, waiting ? 'waiting in the overflow queue for a free provider key' : `stage ${e.stage} (${e.name}) done`), timestamp: iso(e.at) },
        metadata: { taskgate: { stage: e.stage, name: e.name, status: e.status } },
      } } })
    }
    const stop = () => q.close()
    this.d.pipeline.events.on(id, on)
    this.stop.addEventListener('abort', stop)
    void this.d.pipeline.settle(id, A2A_WAIT_MS).then((t) => {
      this.d.pipeline.events.off(id, on)
      if (t && t.status !== 'PROCESSING' && t.status !== 'QUEUED') {
        const task = this.taskOf(t, contextId)
        if (task.artifacts.length) q.push({ payload: { $case: 'artifactUpdate', value: { taskId: id, contextId, artifact: task.artifacts[0], append: false, lastChunk: true, metadata: undefined } } })
        q.push({ payload: { $case: 'statusUpdate', value: { taskId: id, contextId, status: task.status, metadata: undefined } } })
      }
      q.close()
    }, (e) => q.fail(e))
    try {
      for await (const e of q) yield e
    } finally {
      this.d.pipeline.events.off(id, on)
      this.stop.removeEventListener('abort', stop)
    }
  }

  /**
   * A task as A2A tells it (docs/doors.md, "A2A", "States"); `running`: as admitted to run, before
   * any result. Made as JSON by src/a2a/task-json.ts, as push notifications are, and read back.
   */
  private taskOf(t: TaskRow, contextId: string, running = false): Task {
    const approvalId = t.status === 'PENDING_APPROVAL' ? this.d.approvals.idForTask(t.id) : null
    return Task.fromJSON(taskJson(t, contextId, approvalId, running))
  }

  private note(taskId: string, contextId: string, tag: string, said: string): Message {
    return { messageId: `${taskId}-${tag}`, contextId, taskId, role: Role.ROLE_AGENT, parts: [text(said)], metadata: undefined, extensions: [], referenceTaskIds: [] }
  }

  private async guard<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run()
    } catch (e) {
      throw this.rpcError(e)
    }
  }

  /**
   * What a failure becomes: A2A's own errors as they are; a TaskGate refusal as a Refusal; a server
   * condition (a full disk, a busy database, a 5xx problem) escalated to the HTTP answer; anything
   * else logged and answered as JSON-RPC's internal error, whose message says nothing of it.
   */
  private rpcError(e: unknown): unknown {
    if (e instanceof A2AError) return e
    if (e instanceof ProblemError && e.status < 500) {
      Object.assign(this.call.headers, e.headers) // Retry-After, a 402's payment headers
      return new Refusal(e)
    }
    if (e instanceof ProblemError || isStorageFull(e) || isDatabaseBusy(e)) this.escalated = e
    else {
      this.internal = true
      this.d.log.error({ err: e instanceof Error ? { type: e.name, message: e.message, stack: e.stack } : { message: String(e) }, requestId: this.call.requestId }, 'a2a request failed')
    }
    return new A2AError({ message: 'internal error; the request id identifies it in the logs' })
  }
}

type JsonRpcAnswer = { jsonrpc: '2.0'; id: string | number | null; result?: unknown; error?: { code: number; message: string; data?: unknown } }

const stringHeaders = (h: Record<string, string | number>) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k, String(v)]))

/**
 * Answers one JSON-RPC request to /a2a, as the SDK's express adapter does (jsonRpcHandler): the
 * A2A-Version header picks the protocol (0.3 when absent), a version the card does not list is
 * A2A's version error, and the transport handler's answer is sent as JSON (HTTP 200, errors
 * included), or, for a stream, as server-sent events `data: <JSON-RPC response>` (an error after
 * the first event as `event: error`). A stream that fails before its first event answers its error
 * as JSON.
 */
export async function serve(d: A2aDoorDeps, call: A2aCall, cardJson: Record<string, unknown>, body: unknown): Promise<unknown> {
  const card = AgentCard.fromJSON(cardJson)
  const asked = call.request.headers.get('a2a-version') || undefined
  const legacy = (asked ?? '0.3') === '0.3'
  const mapError = (e: unknown) => (legacy ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(e) : JsonRpcTransportHandler.mapToJSONRPCError(e))
  const rpc = body as { id?: string | number | null; method?: string }
  const id = rpc.id ?? null
  const stop = new AbortController()
  const handler = new TaskGateHandler(d, call, card, stop.signal, legacy)
  call.request.signal.addEventListener('abort', () => stop.abort())
  let out: JsonRpcAnswer | AsyncGenerator<JsonRpcAnswer, void, undefined>
  try {
    const context = new ServerCallContext({ requestedVersion: asked })
    validateVersion(context.requestedVersion, card, 'JSONRPC')
    const transport = legacy ? new LegacyJsonRpcTransportHandler(handler) : new JsonRpcTransportHandler(handler)
    out = await transport.handle(body as Record<string, unknown>, context) as typeof out
  } catch (e) {
    if (!(e instanceof A2AError)) throw e
    return { jsonrpc: '2.0', id, error: mapError(e) }
  }
  if (handler.escalated) throw handler.escalated
  if (!(Symbol.asyncIterator in out)) return answered(out, handler, call)

  // A stream: the first event is awaited first, so a refusal is an ordinary JSON answer (not for
  // a 0.3 tasks/resubscribe, which the SDK always answers with events).
  const events = out[Symbol.asyncIterator]()
  let first: IteratorResult<JsonRpcAnswer> | null = null
  if (!(legacy && rpc.method === 'tasks/resubscribe')) {
    try {
      first = await events.next()
    } catch (e) {
      if (handler.escalated) throw handler.escalated
      return answered({ jsonrpc: '2.0', id, error: mapError(e) }, handler, call)
    }
  }
  const stream = eventStream({
    guard: d.auth.streamGuard(call.principal, call.request.signal), pingMs: d.ssePingMs,
    open: (sink) => {
      // Numbered as every event stream of the service (the SDK's client ignores `id:`); a client
      // that lost the stream resubscribes (SubscribeToTask) rather than resuming.
      let n = 0
      if (first && !first.done) sink.send({ id: ++n, data: first.value })
      void (async () => {
        try {
          if (!first?.done) for (let r = await events.next(); !r.done && !sink.closed; r = await events.next()) sink.send({ id: ++n, data: r.value })
        } catch (e) {
          sink.send({ id: ++n, event: 'error', data: { jsonrpc: '2.0', id, error: mapError(e) } })
        } finally {
          sink.close()
          void events.return?.(undefined)?.catch(() => {}) // a stream left early lets go of the task's events now
        }
      })()
      return () => stop.abort() // the client left, or its credential failed: the task goes on
    },
  })
  return new Response(stream, { headers: { ...SSE_HEADERS, ...stringHeaders(call.headers) } })
}

/**
 * A JSON answer. JSON-RPC's internal error is the handler's own failure (logged): HTTP 500, as
 * the SDK answers it. One the handler did not make is the SDK failing to read the request's
 * params (a value of the wrong type where it expected an object): invalid params.
 */
function answered(out: JsonRpcAnswer, handler: TaskGateHandler, call: A2aCall): unknown {
  if (out.error?.code !== A2A_ERROR_CODE.INTERNAL_ERROR) return out
  if (handler.internal) return new Response(JSON.stringify(out), { status: 500, headers: { ...stringHeaders(call.headers), 'content-type': 'application/json' } })
  return { ...out, error: { code: A2A_ERROR_CODE.INVALID_PARAMS, message: 'invalid params: the request\'s params are not the shape the method takes' } }
}
