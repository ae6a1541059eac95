// Stage 1: guardrails and policy. Runs inside the submit transaction. Rules are a list so later
// features (kill-switch, guardrails, approval thresholds) plug in without touching the runner.
// Touches: the operators (kill-switch), the guardrails, the approval queue (holdFor).
import { KILL_SWITCH_CODE, killSwitchRefusal } from '../../guardrails/kill-switch'
import type { Stage, StageContext, StageResult } from '../types'

/** What the rules read. */
export type PolicyContext = StageContext<'operators' | 'guardrails' | 'holdFor'>
export type PolicyRule = (ctx: PolicyContext) => StageResult | null

/** The agent may only run task types listed in its capabilities. */
export const allowedTaskTypes: PolicyRule = ({ task, agent }) =>
  task.taskType === 'system' || agent.capabilities.includes(task.taskType)
    ? null
    : { fail: { code: 'GUARDRAIL_BLOCKED', message: `agent ${agent.id} is not allowed to run ${task.taskType} tasks (capabilities: ${agent.capabilities.join(', ')})` } }

export const agentActive: PolicyRule = ({ agent }) =>
  agent.status === 'ACTIVE' ? null : { fail: { code: 'GUARDRAIL_BLOCKED', message: `agent ${agent.id} is archived` } }

/**
 * The operator's active guardrails (docs/governance.md, "Enforcement"): allowedTaskTypes,
 * maxPromptLength, blockedPatterns (linear-time matcher), maxTasksPerHour (rolling),
 * maxCreditsPerDay (UTC day).
 */
export const operatorGuardrails: PolicyRule = ({ task, guardrails }) => {
  const why = guardrails.check(task)
  return why === null ? null : { fail: { code: 'GUARDRAIL_BLOCKED', message: why } }
}

/**
 * Last: an action whose `requestedValue` exceeds the operator's `approvalThreshold` is held for
 * approval (PENDING_APPROVAL, nothing charged) unless every auto-approve rule passes.
 */
export const approvalThreshold: PolicyRule = ({ task, holdFor }) => holdFor(task)

export const POLICY_RULES: PolicyRule[] = [agentActive, allowedTaskTypes, operatorGuardrails, approvalThreshold]

/** The kill-switch as of now (a submission meets it before stage 1: assertNotKilled). */
export const notKilled: PolicyRule = ({ task, operators }) => {
  const refusal = killSwitchRefusal(operators.byId(task.operatorId) ?? { flags: null })
  return refusal === null ? null : { fail: { code: KILL_SWITCH_CODE, message: refusal } }
}

/**
 * What an approved task meets again when it resumes, before its debit (docs/governance.md,
 * Approvals): every stage-1 check that may have changed while it was held — the kill-switch, the
 * agent and its capabilities, and the operator's guardrails as active now (allowedTaskTypes,
 * maxPromptLength, blockedPatterns, maxTasksPerHour, maxCreditsPerDay). Not the approval
 * threshold: the approval answered it.
 */
export const RESUME_RULES: PolicyRule[] = [notKilled, agentActive, allowedTaskTypes, operatorGuardrails]

/** Why an approved task may no longer run (the first failing RESUME_RULES rule), or null. */
export function resumeRefusal(ctx: PolicyContext): { code: string; message: string } | null {
  for (const rule of RESUME_RULES) {
    const r = rule(ctx)
    if (r?.fail) return r.fail
  }
  return null
}

export const policy: Stage = {
  n: 1,
  name: 'policy',
  sync: (ctx: PolicyContext) => {
    for (const rule of POLICY_RULES) {
      const r = rule(ctx)
      if (r) return r
    }
    return { detail: { rules: POLICY_RULES.length } }
  },
}
