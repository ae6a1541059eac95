// HTTP for the operator's webhooks (docs/webhooks.md): the derived signing
// secret (rotated and shown once) and the deliveries of the outbox.
import { t } from 'elysia'
import { defineRoute } from '../http/route'
import { DateTime, Nullable, pageQuery, PageParams } from '../http/schemas'
import type { Services } from '../services'
import { FIRST_BACKOFF_MS, MAX_ATTEMPTS } from './outbox'

const Delivery = t.Object({
  id: t.String({ description: 'delivery id, the `x-taskgate-delivery` header (the same on every retry)' }),
  event: t.String({ description: '`approval.required`, `approval.resolved`, `approval.expiring`, or `a2a.push` (an A2A push notification, docs/doors.md)' }),
  url: t.String(), status: t.Union([t.Literal('pending'), t.Literal('delivered'), t.Literal('failed')]),
  attempts: t.Integer({ minimum: 0 }), lastStatus: Nullable(t.Integer({ description: 'HTTP status of the last attempt' })), lastError: Nullable(t.String()),
  nextAttemptAt: Nullable(DateTime), createdAt: DateTime,
})

export function webhookRoutes(s: Services) {
  const tags = ['Webhooks']
  return [
    defineRoute({
      method: 'POST', path: '/api/v1/operator/webhooks/secret', auth: 'bearer', tags,
      summary: 'Rotate the derived webhook secret and show it once',
      description: 'Webhooks, callbacks and A2A push notifications are signed with `x-taskgate-signature: sha256=<hex HMAC-SHA256 of the raw body>`. The key is the guardrail `approvalWebhookSecret` when one is configured; otherwise it is this derived secret. Each call derives a new one (the old one stops signing at once) and answers it; it is never shown again.',
      responses: { 200: { description: 'the new secret', schema: t.Object({ secret: t.String() }) } },
      handler: ({ auth }) => ({ secret: s.webhookSecrets.rotate(auth.operator.id) }),
    }),
    defineRoute({
      method: 'GET', path: '/api/v1/operator/webhooks/deliveries', auth: 'bearer', tags, query: t.Object(PageParams),
      summary: 'Webhook and callback deliveries, newest first',
      description: `From the durable outbox, approval webhooks and callbacks and A2A push notifications: \`pending\` (waiting for its next attempt), \`delivered\` (a 2xx answer) or \`failed\` (${MAX_ATTEMPTS} attempts without a 2xx, an address refused at delivery time, or an A2A push config deleted or replaced before its delivery). Retries wait ${FIRST_BACKOFF_MS / 1000} s, then twice as long each time (service clock); each attempt has a 10 s timeout.`,
      responses: { 200: { description: 'a page of deliveries', schema: t.Object({ data: t.Array(Delivery), page: t.Integer(), total: t.Integer() }) } },
      handler: ({ auth, query }) => { const p = pageQuery(query); return s.outbox.list(auth.operator.id, p.page, p.limit) },
    }),
  ]
}
