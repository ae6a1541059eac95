import { t } from 'elysia'
import { DateTime, Id, Nullable, PROBLEM_CODE } from '../http/schemas'

/** Task types capabilities are validated against (docs/pipeline.md, "Task types"); `system` is internal only. */
export const TASK_TYPES = [
  'general', 'code', 'analysis', 'creative', 'trade_signal', 'sentiment_analysis', 'evm_action', 'spend_control',
  'data_analysis', 'external_comms', 'deploy_actions', 'content_publication',
] as const

/** A capability is a task type; anything else → 400 INVALID_CAPABILITY. */
const Capability = t.Union(TASK_TYPES.map((x) => t.Literal(x)), { [PROBLEM_CODE]: 'INVALID_CAPABILITY' })
const capabilities = t.Array(Capability, { minItems: 1, maxItems: TASK_TYPES.length, uniqueItems: true, description: 'the task types this agent may run' })

export const RegisterAgentBody = t.Object({
  displayName: t.String({ minLength: 1, maxLength: 100 }),
  capabilities,
  description: t.Optional(t.String({ maxLength: 2000 })),
  model: t.Optional(t.String({ minLength: 1, maxLength: 128, description: 'default model for this agent\'s tasks (default: builtin)' })),
  agentVersion: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
})

export const UpdateAgentBody = t.Object({
  displayName: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
  description: t.Optional(t.String({ maxLength: 2000 })),
  capabilities: t.Optional(capabilities),
  model: t.Optional(t.String({ minLength: 1, maxLength: 128 })),
}, { additionalProperties: false, minProperties: 1 })

export const Agent = t.Object({
  agentId: t.String(), operatorId: t.String(), displayName: t.String(), capabilities: t.Array(t.String()),
  description: t.String(), model: t.String(), agentVersion: t.String(),
  status: t.Union([t.Literal('ACTIVE'), t.Literal('ARCHIVED')]), createdAt: DateTime, updatedAt: DateTime,
})

export const RegisteredAgent = t.Composite([Agent, t.Object({ apiKey: t.String({ description: 'agent-bound API key, shown once' }), keyId: t.String() })])

export const AgentDetail = t.Composite([Agent, t.Object({
  stateRoot: t.String(),
  policyStatus: t.Object({ allowedTaskTypes: t.Array(t.String()), keyActive: t.Boolean(), status: t.String(), trustLevel: t.String() }),
  verificationHistory: t.Array(t.Object({ taskId: t.String(), taskType: t.String(), verificationStatus: Nullable(t.String()), verificationScore: Nullable(t.Number()), completedAt: Nullable(DateTime) })),
  metrics: t.Object({}, { additionalProperties: true }),
})])

export const AgentIdParams = t.Object({ agentId: Id(128, 'agent id (`agent_…`)') })
export const TestRunBody = t.Object({
  taskType: t.Optional(t.Union(TASK_TYPES.map((x) => t.Literal(x)), { description: 'default: the agent\'s first capability', [PROBLEM_CODE]: 'INVALID_TASK_TYPE' })),
  prompt: t.Optional(t.String({ minLength: 1, maxLength: 20000 })),
})
