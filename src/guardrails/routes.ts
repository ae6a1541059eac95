// HTTP for operator governance: guardrails (GET, PATCH with delayed activation) and the kill-switch
// (docs/governance.md, "Guardrails" and "Kill-switch"). Bearer only: these are the operator's own
// controls, not an agent's.
import type { Services } from '../services'
import { defineRoute } from '../http/route'
import { killSwitchOf } from './kill-switch'
import { GuardrailsPatch, GuardrailsPatched, GuardrailsView, KillSwitchBody, KillSwitchView } from './schema'
import { ACTIVATION_DELAY_MS, configView, WRITE_INTERVAL_MS } from './store'

const iso = (ms: number) => new Date(ms).toISOString()

export function guardrailRoutes(s: Services) {
  const tags = ['Governance']
  const view = (operatorId: string) => {
    const st = s.guardrails.state(operatorId)
    return {
      current: configView(st.current),
      pending: st.pending ? { config: configView(st.pending.config), activatesAt: iso(st.pending.activatesAt) } : null,
      killSwitch: killSwitchOf(s.operators.byId(operatorId)?.flags),
    }
  }
  return [
    defineRoute({
      method: 'GET', path: '/api/v1/operator/guardrails', auth: 'bearer', tags,
      summary: 'The operator\'s guardrails: active, pending, and the kill-switch',
      description: '`current` is the active config (defaults: every limit null = none, `allowedTaskTypes` [] = all, `blockedPatterns` [], `approvalTtlHours` 24, `approvalAutoRules` [], `publishOutputs` false); `pending` the config a PATCH queued and when it activates (null when none). `approvalWebhookSecret` is write-only: only `approvalWebhookSecretSet` shows whether one is stored. `killSwitch` is the kill-switch state.',
      responses: { 200: { description: 'guardrails', schema: GuardrailsView } },
      handler: ({ auth }) => view(auth.operator.id),
    }),
    defineRoute({
      method: 'PATCH', path: '/api/v1/operator/guardrails', auth: 'bearer', tags, body: GuardrailsPatch,
      summary: 'Queue a guardrail change (active 30 s later)',
      description: `A partial config: omitted fields keep the newest value (the pending config if there is one, else the current one). The result is queued as \`pending\` and becomes active at \`activatesAt\` = now + ${ACTIVATION_DELAY_MS / 1000} s (the service clock), on the durable scheduler: also across a restart, and at once on start when the server was down at \`activatesAt\`. A newer PATCH replaces a pending one (and restarts the delay). One write per ${WRITE_INTERVAL_MS / 1000} s: a second one within it → 429 RATE_LIMITED with Retry-After. Every bad field → 400 VALIDATION_FAILED, each listed in \`errors\`. \`blockedPatterns\` are plain substrings (never regular expressions), matched case-insensitively in linear time; at most 100 of 200 characters. Stage 1 enforces the active config on every submission: a block fails the task (403 GUARDRAIL_BLOCKED with the FAILED task, no credit spent). \`approvalWebhookUrl\` must not reach a loopback, private, link-local, metadata or other special-purpose address, also after DNS resolution (400 WEBHOOK_URL_NOT_ALLOWED, unless TASKGATE_WEBHOOK_ALLOW_PRIVATE=1); see docs/webhooks.md.`,
      responses: { 200: { description: 'queued', schema: GuardrailsPatched } },
      errors: { 400: ['WEBHOOK_URL_NOT_ALLOWED'] },
      handler: async ({ auth, body }) => {
        if (body.approvalWebhookUrl) await s.outbound.assertAllowed(body.approvalWebhookUrl, 'approvalWebhookUrl')
        const r = s.guardrails.update(auth.operator.id, body)
        return { pending: configView(r.pending), activatesAt: iso(r.activatesAt) }
      },
    }),
    defineRoute({
      method: 'PATCH', path: '/api/v1/operator/kill-switch', auth: 'bearer', tags, body: KillSwitchBody,
      summary: 'Turn the kill-switch on or off (effective at once)',
      description: 'While active: task submissions, test runs and compute requests → 403 KILL_SWITCH_ACTIVE, before any payment or credit, and nothing is recorded for them: no task, no job, no credit movement (an Idempotency-Key replay of an earlier request still answers the original). Turning it on fails, in the same transaction, the operator\'s tasks that are PENDING_APPROVAL or QUEUED and its compute jobs still queued, with KILL_SWITCH_ACTIVE, and refunds them; an admitted task that has not reached compute fails the same way at stage 3; tasks already computing finish. Reads keep working. The state shows in `GET /api/v1/auth/me` (`flags.killSwitch`) and in the guardrails GET. `reason` is optional (null when omitted).',
      responses: { 200: { description: 'the kill-switch state', schema: KillSwitchView } },
      handler: ({ auth, body }) => {
        const { stopped: _stopped, ...state } = s.killSwitch.set(auth.operator.id, body.active, body.reason ?? null)
        return state
      },
    }),
  ]
}
