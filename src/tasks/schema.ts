import { t } from 'elysia'
import { TASK_TYPES } from '../agents/schema'
import { DateTime, Nullable, QueryInt } from '../http/schemas'

export const SubmitBody = t.Object({
  agentId: t.String({ minLength: 1, maxLength: 128 }),
  taskType: t.String({ minLength: 1, maxLength: 64 }),
  prompt: t.String({ minLength: 1, maxLength: 100_000 }),
  model: t.Optional(t.String({ minLength: 1, maxLength: 128 })),
  metadata: t.Optional(t.Record(t.String(), t.Unknown())),
  action: t.Optional(t.Object({
    actionType: t.Optional(t.String({ maxLength: 64 })), operation: t.Optional(t.String({ maxLength: 128 })), target: t.Optional(t.String({ maxLength: 256 })),
    requestedValue: t.Optional(t.Number()), currency: t.Optional(t.String({ maxLength: 16 })), evidenceRefs: t.Optional(t.Array(t.String({ maxLength: 512 }), { maxItems: 32 })),
  })),
})

export const SubmitQuery = t.Object({ wait: t.Optional(QueryInt('seconds to wait for the result, 0–120 (default 30, 0 = return at once)')) })

const statuses = ['PENDING_APPROVAL', 'QUEUED', 'PROCESSING', 'COMPLETED', 'FAILED'] as const
export const TaskStatus = t.Union(statuses.map((s) => t.Literal(s)))

export const Task = t.Object({
  id: t.String(), taskType: t.String(), status: t.String(), agentId: t.String(), model: t.String(), provider: t.String(),
  latencyMs: Nullable(t.Number()), ipfsCid: Nullable(t.String()), stateRoot: Nullable(t.String()),
  verificationStatus: Nullable(t.String()), verificationScore: Nullable(t.Number()), verificationProof: Nullable(t.String()),
  verificationExplorerUrl: Nullable(t.String()), attestationUid: Nullable(t.String()), attestationExplorerUrl: Nullable(t.String()),
  createdAt: DateTime, completedAt: Nullable(DateTime),
})

export const TaskDetail = t.Composite([Task, t.Object({
  operatorId: t.String(), stage: t.Integer(), failureCode: Nullable(t.String()), creditsCharged: t.Integer(), receiptCid: Nullable(t.String()),
  receipt: Nullable(t.Object({}, { additionalProperties: true })), attestation: Nullable(t.Object({}, { additionalProperties: true })),
  prompt: t.Optional(t.String()), output: t.Optional(Nullable(t.String())), timeline: t.Optional(t.Array(t.Object({}, { additionalProperties: true }))),
})])

export const TaskList = t.Object({ data: t.Array(Task), total: t.Integer(), page: t.Integer(), limit: t.Integer(), totalPages: t.Integer() })

export const ListQuery = t.Object({
  page: t.Optional(QueryInt('page number, from 1 (default 1)')),
  limit: t.Optional(QueryInt('page size, 1–100 (default 20)')),
  status: t.Optional(TaskStatus),
  taskType: t.Optional(t.Union(TASK_TYPES.map((x) => t.Literal(x)), { description: 'one of the task types (unknown → 400)' })),
  operatorId: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
  agentId: t.Optional(t.String({ minLength: 1, maxLength: 128 })),
})

export const TaskIdParams = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) })
