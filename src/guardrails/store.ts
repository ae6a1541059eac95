// Operator guardrails (decisions.md §9, §14, §15): the active config of each operator, with the
// documented defaults for every field an operator has not set. The PATCH/activation flow builds on
// this table (operator_guardrails: current, pending, activates_at).
import type { Database } from 'bun:sqlite'

export interface GuardrailConfig {
  maxCreditsPerDay: number | null
  maxTasksPerHour: number | null
  allowedTaskTypes: string[]
  blockedPatterns: string[]
  maxPromptLength: number | null
  approvalThreshold: number | null
  approvalTtlHours: number
  approvalWebhookUrl: string | null
  approvalAutoRules: Record<string, unknown>[]
  /** Whether public task documents on IPFS carry the output itself (default: only its hash). */
  publishOutputs: boolean
}

export const DEFAULT_GUARDRAILS: GuardrailConfig = {
  maxCreditsPerDay: null, maxTasksPerHour: null, allowedTaskTypes: [], blockedPatterns: [], maxPromptLength: null,
  approvalThreshold: null, approvalTtlHours: 24, approvalWebhookUrl: null, approvalAutoRules: [], publishOutputs: false,
}

export class GuardrailStore {
  private q
  constructor(db: Database) {
    this.q = { current: db.prepare('SELECT current FROM operator_guardrails WHERE operator_id = ?1') }
  }

  /** The operator's active guardrails (defaults for anything not set). */
  current(operatorId: string): GuardrailConfig {
    const row = this.q.current.get(operatorId) as { current: string } | null
    return row ? { ...DEFAULT_GUARDRAILS, ...(JSON.parse(row.current) as Partial<GuardrailConfig>) } : DEFAULT_GUARDRAILS
  }
}
