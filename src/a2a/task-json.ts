// A TaskGate task as an A2A Task, in JSON (docs/doors.md, "A2A", "States"): the A2A 1.0 shape, which
// is what the SDK's Task.toJSON writes (src/a2a/rpc.ts reads it back with Task.fromJSON for its
// answers), and the 0.3 shape the SDK's 0.3 layer makes of it. Plain data, no SDK: a push
// notification's body is made here inside the transaction of the task's state change
// (src/a2a/push.ts), where the SDK, loaded at the first /a2a request, may not be loaded.
// test/http/a2a-push.test.ts checks both shapes against what the SDK answers for the same task.
import { TASK_CANCELLED } from '../tasks/service'
import type { TaskRow } from '../tasks/types'

/** The A2A 1.0 task states TaskGate uses (the enum names of the protobuf JSON). */
export type A2aState = 'TASK_STATE_WORKING' | 'TASK_STATE_AUTH_REQUIRED' | 'TASK_STATE_COMPLETED' | 'TASK_STATE_FAILED' | 'TASK_STATE_CANCELED' | 'TASK_STATE_REJECTED'

/** Failure codes that are policy refusals: the task is `rejected`, not `failed`. */
const REJECTED = new Set(['GUARDRAIL_BLOCKED', 'KILL_SWITCH_ACTIVE', 'APPROVAL_DENIED'])
export const TERMINAL_STATES = new Set<A2aState>(['TASK_STATE_COMPLETED', 'TASK_STATE_FAILED', 'TASK_STATE_CANCELED', 'TASK_STATE_REJECTED'])

/** The fields of a task its A2A form is made of. */
export type TaskFields = Pick<TaskRow, 'id' | 'status' | 'failureCode' | 'failureMessage' | 'output' | 'receiptCid' | 'attestationUid' | 'agentId' | 'taskType' | 'metadata' | 'updatedAt' | 'createdAt'>

/** A task's A2A state (docs/doors.md, "A2A", "States"). */
export function a2aState(t: Pick<TaskRow, 'status' | 'failureCode'>): A2aState {
  switch (t.status) {
    case 'PENDING_APPROVAL': return 'TASK_STATE_AUTH_REQUIRED'
    case 'COMPLETED': return 'TASK_STATE_COMPLETED'
    case 'FAILED':
      if (t.failureCode === TASK_CANCELLED) return 'TASK_STATE_CANCELED'
      return REJECTED.has(t.failureCode ?? '') ? 'TASK_STATE_REJECTED' : 'TASK_STATE_FAILED'
    default: return 'TASK_STATE_WORKING' // QUEUED, PROCESSING
  }
}

/** The contextId of a stored task: the client's, kept in its metadata, else the task's own id. */
export function contextOf(t: Pick<TaskRow, 'id' | 'metadata'>): string {
  const kept = (t.metadata as Record<string, unknown> | null)?.a2aContextId
  return typeof kept === 'string' && kept ? kept : t.id
}

const iso = (ms: number | null | undefined) => (ms == null ? undefined : new Date(ms).toISOString())
const textPart = (text: string) => ({ text, mediaType: 'text/plain' })

/** An agent message of a task's status, as Message.toJSON writes it. */
function note(taskId: string, contextId: string, tag: string, said: string) {
  return { messageId: `${taskId}-${tag}`, ...(contextId ? { contextId } : {}), taskId, role: 'ROLE_AGENT', parts: [textPart(said)] }
}

export type TaskJson = ReturnType<typeof taskJson>

/**
 * A task as A2A 1.0 tells it, as Task.toJSON writes it (empty members left out). `approvalId`: its
 * approval request while held; `running`: as admitted to run, before any result.
 */
export function taskJson(t: TaskFields, contextId: string, approvalId: string | null, running = false) {
  const state: A2aState = running ? 'TASK_STATE_WORKING' : a2aState(t)
  let said: string | null = null
  if (state === 'TASK_STATE_AUTH_REQUIRED') said = `held for human approval${approvalId ? ` (approval request ${approvalId})` : ''}: an operator approves or denies it (PATCH /api/v1/approvals/{id}); once approved the task runs, and GetTask shows its result`
  else if (state !== 'TASK_STATE_WORKING' && state !== 'TASK_STATE_COMPLETED') said = `${t.failureCode ?? 'TASK_FAILED'}: ${t.failureMessage ?? 'the task failed'}`
  else if (t.status === 'QUEUED') said = 'waiting in the overflow queue for a free provider key'
  const timestamp = iso(t.updatedAt ?? t.createdAt)
  const status = { state, ...(said ? { message: note(t.id, contextId, t.status.toLowerCase(), said) } : {}), ...(timestamp ? { timestamp } : {}) }
  const artifacts = state === 'TASK_STATE_COMPLETED' ? [{
    artifactId: `${t.id}-output`, name: 'output', description: 'the task output, and the ids of its signed receipt and EAS attestation',
    parts: [textPart(t.output ?? ''), { data: { taskId: t.id, receiptCid: t.receiptCid, attestationUid: t.attestationUid }, mediaType: 'application/json' }],
  }] : []
  return {
    id: t.id, ...(contextId ? { contextId } : {}), status, ...(artifacts.length ? { artifacts } : {}),
    metadata: { taskgate: {
      taskId: t.id, status: running ? 'PROCESSING' : t.status, agentId: t.agentId, taskType: t.taskType, failureCode: running ? null : t.failureCode,
      approvalId, receiptCid: running ? null : t.receiptCid, attestationUid: running ? null : t.attestationUid,
    } },
  }
}

/** 1.0 state names → 0.3's. */
const LEGACY_STATES: Record<A2aState, string> = {
  TASK_STATE_WORKING: 'working', TASK_STATE_AUTH_REQUIRED: 'auth-required', TASK_STATE_COMPLETED: 'completed',
  TASK_STATE_FAILED: 'failed', TASK_STATE_CANCELED: 'canceled', TASK_STATE_REJECTED: 'rejected',
}

type PartJson = { text?: string; data?: unknown; mediaType?: string }
const legacyPart = (p: PartJson) => (p.text !== undefined ? { kind: 'text', text: p.text } : { kind: 'data', data: p.data })

/** The same task in the A2A 0.3 shape, as the SDK's 0.3 layer translates a 1.0 Task (toCompatTask). */
export function legacyTaskJson(t: TaskJson) {
  const m = t.status.message
  const status = {
    state: LEGACY_STATES[t.status.state],
    ...(m ? { message: { kind: 'message', messageId: m.messageId, role: 'agent', parts: m.parts.map(legacyPart), ...(m.contextId ? { contextId: m.contextId } : {}), taskId: m.taskId } } : {}),
    ...(t.status.timestamp ? { timestamp: t.status.timestamp } : {}),
  }
  return {
    kind: 'task', id: t.id, contextId: t.contextId ?? '', status,
    ...(t.artifacts ? { artifacts: t.artifacts.map((a) => ({ artifactId: a.artifactId, parts: (a.parts as PartJson[]).map(legacyPart), name: a.name, description: a.description })) } : {}),
    metadata: t.metadata,
  }
}
