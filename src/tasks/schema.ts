import { t } from 'elysia'
import { TASK_TYPES } from '../agents/schema'
import { DateTime, Id, Nullable, PageParams, PROBLEM_CODE, QueryInt, WAIT } from '../http/schemas'

/** A task type a client may ask for (docs/pipeline.md, "Task types"; `system` is internal). Anything else → 400 INVALID_TASK_TYPE. */
export const TaskType = t.Union(TASK_TYPES.map((x) => t.Literal(x)), { description: 'one of the 12 task types', [PROBLEM_CODE]: 'INVALID_TASK_TYPE' })

/** What an approval judges (docs/governance.md): `action` on submit, header `x-taskgate-action` on the doors. */
export const TaskAction = t.Object({
  actionType: t.Optional(t.String({ maxLength: 64 })), operation: t.Optional(t.String({ maxLength: 128 })), target: t.Optional(t.String({ maxLength: 256 })),
  requestedValue: t.Optional(t.Number()), currency: t.Optional(t.String({ maxLength: 16 })), evidenceRefs: t.Optional(t.Array(t.String({ maxLength: 512 }), { maxItems: 32 })),
}, { additionalProperties: false })

export const SubmitBody = t.Object({
  agentId: Id(128, 'one of the operator\'s agents (an agent-bound key: its own agent)'),
  taskType: TaskType,
  prompt: t.String({ minLength: 1, maxLength: 100_000 }),
  model: t.Optional(t.String({ minLength: 1, maxLength: 128 })),
  metadata: t.Optional(t.Record(t.String(), t.Unknown())),
  action: t.Optional(TaskAction),
})

export const SubmitQuery = t.Object({ wait: t.Optional(QueryInt('seconds to wait for the result (0 = answer at once)', WAIT)) })

const statuses = ['PENDING_APPROVAL', 'QUEUED', 'PROCESSING', 'COMPLETED', 'FAILED'] as const
export const TaskStatus = t.Union(statuses.map((s) => t.Literal(s)))

export const Task = t.Object({
  id: t.String(), taskType: t.String({ description: 'one of the task types, or `system` for service records (ToS acceptance)' }), status: TaskStatus, agentId: t.String(), model: t.String(), provider: t.String(),
  latencyMs: Nullable(t.Number()), ipfsCid: Nullable(t.String({ description: 'CID of the task document (stage 5)' })), stateRoot: Nullable(t.String()),
  verificationStatus: Nullable(t.String()), verificationScore: Nullable(t.Number()), verificationProof: Nullable(t.String()),
  verificationExplorerUrl: Nullable(t.String()), attestationUid: Nullable(t.String()), attestationExplorerUrl: Nullable(t.String()),
  receiptCid: Nullable(t.String({ description: 'CID of the signed receipt: GET /api/v1/public/proof/{cid}, or /explorer/receipt/{cid} to check it in a browser' })),
  createdAt: DateTime, completedAt: Nullable(DateTime),
  door: Nullable(t.Union([t.Literal('openai'), t.Literal('mcp'), t.Literal('a2a')], { description: 'the door that made the task (docs/doors.md): `openai` (/v1/chat/completions, /v1/responses), `mcp` (/mcp), `a2a` (/a2a); null for POST /api/v1/tasks/submit' })),
})

export const TaskDetail = t.Composite([Task, t.Object({
  operatorId: t.String(), stage: t.Integer({ minimum: 0, maximum: 8 }), failureCode: Nullable(t.String({ description: 'why the task failed, as a stable code (GUARDRAIL_BLOCKED, APPROVAL_DENIED, …); public' })),
  failureMessage: t.Optional(Nullable(t.String({ description: 'owner only: the failure in words (it may quote the prompt, the guardrail config, credit figures, an approver\'s note or the kill-switch\'s reason); absent for anyone else' }))),
  creditsCharged: t.Integer(),
  receipt: Nullable(t.Object({ payload: t.Object({}, { additionalProperties: true }), signature: t.String(), signer: t.String() }, { description: 'EIP-712 typed data `{ domain, types, primaryType, message }`, its signature and signer' })),
  attestation: Nullable(t.Object({}, { additionalProperties: true, description: 'the EAS offchain attestation (`uid`, `sig`, `signer`)' })),
  computeJobId: t.Optional(Nullable(t.String())),
  usage: t.Optional(Nullable(t.Object({ promptTokens: t.Integer(), completionTokens: t.Integer(), totalTokens: t.Integer() }, { description: 'owner only: tokens as the provider counted them (the builtin provider counts words); null before compute' }))),
  costUsd: t.Optional(Nullable(t.Number({ description: 'owner only: estimated cost in USD from the model\'s price (GET /api/v1/admin/prices) at compute time; null when the model has no price' }))),
  approvalId: t.Optional(Nullable(t.String({ description: 'the approval request when the task was held for approval (GET /api/v1/approvals/{id})' }))),
  prompt: t.Optional(t.String({ description: 'owner only; absent once the task failed before its debit (then `promptSha256` and `promptLength`)' })),
  promptSha256: t.Optional(t.String({ pattern: '^[0-9a-f]{64}$', description: 'owner only, instead of `prompt` for a task that failed before its debit (refused at stage 1, or held and then denied, expired or stopped): SHA-256 of the prompt\'s UTF-8 bytes, hex; such a task keeps neither its prompt nor its metadata' })),
  promptLength: t.Optional(t.Integer({ minimum: 1, description: 'owner only, with `promptSha256`: the prompt\'s length in characters (code points)' })),
  output: t.Optional(Nullable(t.String({ description: 'owner only' }))),
  metadata: t.Optional(Nullable(t.Record(t.String(), t.Unknown(), { description: 'owner only' }))),
  timeline: t.Optional(t.Array(t.Object({}, { additionalProperties: true }), { description: 'owner only: the stage events, oldest first; each `id` is the event\'s position in the timeline, from 1' })),
})])

export const TaskList = t.Object({ data: t.Array(Task), total: t.Integer(), page: t.Integer(), limit: t.Integer(), totalPages: t.Integer() })

export const ListQuery = t.Object({
  ...PageParams,
  status: t.Optional(TaskStatus),
  taskType: t.Optional(t.Union(TASK_TYPES.map((x) => t.Literal(x)), { description: 'one of the task types (unknown → 400)' })),
  operatorId: t.Optional(Id(64)),
  agentId: t.Optional(Id(128)),
})

export const TaskIdParams = t.Object({ id: Id(64, 'task id (`task_…`)') })
