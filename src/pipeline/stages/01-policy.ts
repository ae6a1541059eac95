// Stage 1: guardrails and policy. Runs inside the submit transaction. Rules are a list so later
// features (kill-switch, guardrails, approval thresholds) plug in without touching the runner.
import type { Stage, StageContext, StageResult } from '../types'

export type PolicyRule = (ctx: StageContext) => StageResult | null

/** The agent may only run task types listed in its capabilities. */
export const allowedTaskTypes: PolicyRule = ({ task, agent }) =>
  task.taskType === 'system' || agent.capabilities.includes(task.taskType)
    ? null
    : { fail: { code: 'GUARDRAIL_BLOCKED', message: `agent ${agent.id} is not allowed to run ${task.taskType} tasks (capabilities: ${agent.capabilities.join(', ')})` } }

export const agentActive: PolicyRule = ({ agent }) =>
  agent.status === 'ACTIVE' ? null : { fail: { code: 'GUARDRAIL_BLOCKED', message: `agent ${agent.id} is archived` } }

/**
 * The operator's active guardrails (decisions.md §14): allowedTaskTypes, maxPromptLength,
 * blockedPatterns (linear-time matcher), maxTasksPerHour (rolling), maxCreditsPerDay (UTC day).
 */
export const operatorGuardrails: PolicyRule = ({ task, s }) => {
  const why = s.guardrails.check(task)
  return why === null ? null : { fail: { code: 'GUARDRAIL_BLOCKED', message: why } }
}

/**
 * Last: an action whose `requestedValue` exceeds the operator's `approvalThreshold` is held for
 * approval (PENDING_APPROVAL, nothing charged) unless every auto-approve rule passes.
 */
export const approvalThreshold: PolicyRule = ({ task, s }) => s.approvals.holdFor(task)

export const POLICY_RULES: PolicyRule[] = [agentActive, allowedTaskTypes, operatorGuardrails, approvalThreshold]

export const policy: Stage = {
  n: 1,
  name: 'policy',
  sync: (ctx) => {
    for (const rule of POLICY_RULES) {
      const r = rule(ctx)
      if (r) return r
    }
    return { detail: { rules: POLICY_RULES.length } }
  },
}
