// Shapes of the guardrails and kill-switch routes (docs/governance.md, "Guardrails" and
// "Kill-switch").
import { t } from 'elysia'
import { TASK_TYPES } from '../agents/schema'
import { DateTime, HttpUrl } from '../http/schemas'

const limit = (description: string) => t.Union([t.Integer({ minimum: 0 }), t.Null()], { description: `${description}; null = no limit` })
const TaskTypeName = t.Union(TASK_TYPES.map((x) => t.Literal(x)))
const TRUST_LEVELS = ['QUARANTINE', 'PROBATIONARY', 'PROVISIONAL', 'STANDARD', 'TRUSTED'] as const
const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const

/** approvalAutoRules entries (docs/governance.md, "Approvals"); every rule must pass to auto-approve a hold. */
export const AutoRule = t.Union([
  t.Object({ type: t.Literal('amount_cap'), maxValue: t.Number({ minimum: 0 }) }, { additionalProperties: false }),
  t.Object({ type: t.Literal('allowlisted_target'), targets: t.Array(t.String({ minLength: 1, maxLength: 200 }), { maxItems: 100 }) }, { additionalProperties: false }),
  t.Object({
    type: t.Literal('time_window'), days: t.Array(t.Union(DAYS.map((d) => t.Literal(d))), { maxItems: 7, uniqueItems: true }),
    startHour: t.Integer({ minimum: 0, maximum: 23 }), endHour: t.Integer({ minimum: 1, maximum: 24 }),
    tz: t.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z][A-Za-z0-9_+-]*(?:/[A-Za-z0-9_+-]+){0,2}$', description: 'IANA time zone, e.g. `Europe/Berlin`' }),
  }, { additionalProperties: false }),
  t.Object({ type: t.Literal('trusted_agent'), minTrustLevel: t.Union(TRUST_LEVELS.map((l) => t.Literal(l))) }, { additionalProperties: false }),
])

const fields = {
  maxCreditsPerDay: limit('credits spent per UTC day (since 00:00 UTC, this task\'s cost included)'),
  maxTasksPerHour: limit('admitted tasks in the rolling 60 minutes'),
  allowedTaskTypes: t.Array(TaskTypeName, { maxItems: TASK_TYPES.length, uniqueItems: true, description: 'task types the operator\'s agents may run; empty = all' }),
  blockedPatterns: t.Array(t.String({ minLength: 1, maxLength: 200 }), { maxItems: 100, description: 'plain substrings (never regular expressions) refused in prompts, matched case-insensitively; at most 100 of 200 characters' }),
  maxPromptLength: limit('prompt length in characters'),
  approvalThreshold: t.Union([t.Number({ minimum: 0 }), t.Null()], { description: 'actions whose `requestedValue` exceeds it are held for approval; null = never' }),
  approvalTtlHours: t.Integer({ minimum: 1, maximum: 720, description: 'hours before an unresolved approval expires (default 24)' }),
  approvalWebhookUrl: t.Union([HttpUrl(), t.Null()], { description: 'http(s) URL that receives approval webhooks; null = none' }),
  approvalAutoRules: t.Array(AutoRule, { maxItems: 20, description: 'rules that auto-approve a hold when every one passes (empty = never)' }),
  publishOutputs: t.Boolean({ description: 'whether public task documents on IPFS carry the output itself (default false: only its hash)' }),
}

/** A guardrail config as answered: every field, the webhook secret only as `approvalWebhookSecretSet`. */
export const GuardrailConfigView = t.Object({
  ...fields,
  approvalWebhookSecretSet: t.Boolean({ description: 'whether an approval webhook secret is stored (the secret itself is never shown)' }),
})

export const KillSwitchView = t.Object({
  active: t.Boolean(), reason: t.Union([t.String(), t.Null()]), updatedAt: t.Union([DateTime, t.Null()], { description: 'null when never set' }),
})

export const GuardrailsView = t.Object({
  current: GuardrailConfigView,
  pending: t.Union([t.Object({ config: GuardrailConfigView, activatesAt: DateTime }), t.Null()]),
  killSwitch: KillSwitchView,
})

export const GuardrailsPatch = t.Object({
  maxCreditsPerDay: t.Optional(fields.maxCreditsPerDay),
  maxTasksPerHour: t.Optional(fields.maxTasksPerHour),
  allowedTaskTypes: t.Optional(fields.allowedTaskTypes),
  blockedPatterns: t.Optional(fields.blockedPatterns),
  maxPromptLength: t.Optional(fields.maxPromptLength),
  approvalThreshold: t.Optional(fields.approvalThreshold),
  approvalTtlHours: t.Optional(fields.approvalTtlHours),
  approvalWebhookUrl: t.Optional(fields.approvalWebhookUrl),
  approvalWebhookSecret: t.Optional(t.Union([t.String({ minLength: 16, maxLength: 256 }), t.Null()], { description: 'write-only HMAC key for approval webhooks (16–256 characters); null removes it' })),
  approvalAutoRules: t.Optional(fields.approvalAutoRules),
  publishOutputs: t.Optional(fields.publishOutputs),
}, { additionalProperties: false })

export const GuardrailsPatched = t.Object({
  pending: GuardrailConfigView, activatesAt: DateTime,
})

export const KillSwitchBody = t.Object({
  active: t.Boolean(), reason: t.Optional(t.Union([t.String({ maxLength: 500 }), t.Null()])),
}, { additionalProperties: false })
