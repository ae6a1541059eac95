// The durable webhook outbox (docs/webhooks.md, "Delivery, retries, the deliveries list"). A
// delivery is a row written in the same transaction as the event it reports (an approval held,
// resolved or about to expire), driven by a `webhook.deliver` job on the durable scheduler. The job
// only starts the attempt, which runs on its own, so a slow or silent receiver never holds a job
// slot the pipeline needs; a row left pending by a stop in mid-attempt gets its job back at start
// (recover()). An attempt POSTs the stored body with both signatures; a 2xx answer delivers it,
// anything else (status, timeout, refused connection) is retried after 10 s, 20 s, 40 s … (service
// clock) up to MAX_ATTEMPTS, each attempt with a 10 s timeout. Deliveries run outside the pipeline
// and never block it; after a restart the pending ones continue where they were. Each attempt
// resolves the URL's host once and connects to the address that passed the check
// (src/lib/outbound.ts; docs/security.md, "Outbound requests"): a refused address fails the
// delivery at once, before any connection, so it records a refusal and never an HTTP status.
// A second kind of delivery, `a2a.push`, carries an A2A push notification (docs/doors.md, "A2A",
// "Push notifications"): its body is the A2A task as the client's protocol version shapes it, its
// content type and the client's token (or Authorization) come from its config at each attempt,
// and its EIP-712 signature is over the body's SHA-256 (primary type WebhookDelivery); the same
// outbox, retries, outbound checks and HMAC.
import { createHash, createHmac } from 'node:crypto'
import type { Clock } from '../clock'
import type { JobRunner } from '../jobs/runner'
import type { Logger } from '../log'
import { newId } from '../lib/ids'
import { WEBHOOK_FIELDS } from '../chain/signer'
import type { Outbound } from '../lib/outbound'
import type { Transactor } from '../db/transactor'
import type { DeliveryOutcome, WebhookRepository } from './repository'

export const MAX_ATTEMPTS = 8
export const FIRST_BACKOFF_MS = 10_000
export const ATTEMPT_TIMEOUT_MS = 10_000

export type WebhookEvent = 'approval.required' | 'approval.resolved' | 'approval.expiring'
/** The event of an A2A push notification delivery. */
export const A2A_PUSH_EVENT = 'a2a.push'

/** The 15 fields of an approval webhook, as sent in the JSON body (docs/webhooks.md, "The request"). */
export interface WebhookBody {
  event: WebhookEvent; approvalId: string; taskId: string; agentId: string; actionType: string; operation: string; target: string
  requestedValue: number | null; currency: string | null; triggerPolicy: string; triggerReason: string; resolveUrl: string
  decision: string | null; decidedBy: string | null; timestamp: string
}

/** The EIP-712 message: every field a string, normalised as docs/webhooks.md says (requestedValue "0", others "" when absent). */
export function webhookMessage(body: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(WEBHOOK_FIELDS.map((f) => [f, String(body[f] ?? (f === 'requestedValue' ? '0' : ''))]))
}

export const hmacHeader = (secret: string, raw: string) => `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`

export interface OutboxDeps {
  signer: {
    address: string
    signWebhook(m: Record<string, string>): Promise<string>
    /** A delivery whose body is not an approval webhook's fields: its event, id and body SHA-256 (docs/webhooks.md). */
    signDelivery(m: { event: string; deliveryId: string; bodySha256: `0x${string}` }): Promise<string>
  }
  /** The HMAC key of the operator's webhooks: the configured secret, else the derived one. */
  secretFor(operatorId: string): string
  /** Resolves and checks the URL once per attempt, then sends to that address. */
  outbound: Outbound
  /**
   * An A2A push delivery's own headers, read at each attempt: its content type and the client's
   * token or Authorization (never stored in the delivery), and which of their values are secrets.
   * Null when its config was deleted or replaced since: the delivery is then over.
   */
  pushHeaders(pushConfigId: string): { headers: Record<string, string>; secrets: string[] } | null
}

export class WebhookOutbox {
  /** Deliveries being attempted right now (never two attempts of one delivery at once). */
  private inflight = new Set<string>()

  constructor(private repo: WebhookRepository, private tx: Transactor, private clock: Clock, private jobs: JobRunner, private log: Logger, private deps: OutboxDeps) {}

  /** Starts an attempt without waiting for it (the job is done once it started). */
  launch(id: string): void {
    if (this.inflight.has(id)) return
    this.inflight.add(id)
    void this.deliver(id)
      .catch((e) => this.log.error({ deliveryId: id, err: e instanceof Error ? e.message : String(e) }, 'webhook delivery attempt failed unexpectedly'))
      .finally(() => this.inflight.delete(id))
  }

  /** At start: every pending delivery has a job (one stopped in mid-attempt had its job marked done). */
  recover(): number {
    const rows = this.repo.pending()
    const now = this.clock.now()
    for (const r of rows) this.jobs.enqueue('webhook.deliver', { id: r.id }, { runAt: Math.max(now, r.nextAttemptAt ?? now), dedupeKey: `webhook:${r.id}`, maxAttempts: 3 })
    return rows.length
  }

  /** Queues a delivery; call inside the transaction that records the event. Returns its id. */
  enqueue(operatorId: string, approvalId: string | null, url: string, body: WebhookBody): string {
    const id = newId('whd')
    const now = this.clock.now()
    this.repo.insert({ id, operatorId, approvalId, pushConfigId: null, event: body.event, url, body: JSON.stringify(body), now })
    this.jobs.enqueue('webhook.deliver', { id }, { runAt: now, dedupeKey: `webhook:${id}`, maxAttempts: 3 })
    return id
  }

  /** Queues an A2A push notification (`body`: the JSON as sent) for the config `pushConfigId`; call inside the transaction of the state change. */
  enqueuePush(operatorId: string, pushConfigId: string, url: string, body: string): string {
    const id = newId('whd')
    const now = this.clock.now()
    this.repo.insert({ id, operatorId, approvalId: null, pushConfigId, event: A2A_PUSH_EVENT, url, body, now })
    this.jobs.enqueue('webhook.deliver', { id }, { runAt: now, dedupeKey: `webhook:${id}`, maxAttempts: 3 })
    return id
  }

  /**
   * Deletes the deliveries created before `before` that are over (delivered or failed), for the
   * retention job; one still pending (a server that was down) is kept until it is over. Returns how
   * many it deleted.
   */
  prune(before: number): number {
    return this.tx.write(() => this.repo.prune(before))
  }

  list(operatorId: string, page: number, limit: number) {
    const rows = this.repo.page(operatorId, limit, (page - 1) * limit)
    const total = this.repo.count(operatorId)
    const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())
    return {
      data: rows.map((r) => ({ id: r.id, event: r.event, url: r.url, status: r.status, attempts: r.attempts, lastStatus: r.lastStatus, lastError: r.lastError, nextAttemptAt: iso(r.nextAttemptAt), createdAt: iso(r.createdAt)! })),
      page, total,
    }
  }

  /** One attempt (the job handler). Never throws: the outbox keeps its own schedule of retries. */
  async deliver(id: string): Promise<void> {
    const row = this.repo.get(id)
    if (!row || row.status !== 'pending') return
    const now = this.clock.now()
    if (row.nextAttemptAt !== null && row.nextAttemptAt > now) { // not due yet (a job run early after a restart): run then
      this.jobs.enqueue('webhook.deliver', { id }, { runAt: row.nextAttemptAt, dedupeKey: `webhook:${id}`, maxAttempts: 3 })
      return
    }
    const attempts = row.attempts + 1
    let status: number | null = null
    let error: string | null = null
    const push = row.pushConfigId === null ? null : this.deps.pushHeaders(row.pushConfigId)
    if (row.pushConfigId !== null && push === null) {
      this.record(id, 'failed', attempts, null, 'not delivered: the push notification config was deleted or replaced', null, this.clock.now())
      return
    }
    // Again at delivery time (DNS may have changed), and the request goes to the address checked now.
    const target = await this.deps.outbound.target(row.url)
    if ('refused' in target && !target.transient) {
      this.record(id, 'failed', attempts, null, `not delivered: ${target.refused}`, null, this.clock.now())
      this.log.warn({ deliveryId: id, url: row.url }, 'webhook URL refused at delivery time')
      return
    }
    try {
      if ('refused' in target) throw new Error(target.refused) // the name did not resolve: retried like a refused connection
      const signature = push
        ? await this.deps.signer.signDelivery({ event: row.event, deliveryId: id, bodySha256: `0x${createHash('sha256').update(row.body).digest('hex')}` })
        : await this.deps.signer.signWebhook(webhookMessage(JSON.parse(row.body)))
      const res = await this.deps.outbound.fetch(target, {
        method: 'POST', body: row.body, signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
        headers: {
          'content-type': 'application/json', 'user-agent': 'TaskGate-Webhook/1', ...push?.headers,
          'x-taskgate-signature': hmacHeader(this.deps.secretFor(row.operatorId), row.body),
          'x-taskgate-eip712-sig': signature, 'x-taskgate-signer': this.deps.signer.address,
          'x-taskgate-event': row.event, 'x-taskgate-delivery': id,
        },
      })
      status = res.status
      await res.body?.cancel().catch(() => {})
      if (res.status >= 200 && res.status < 300) {
        this.record(id, 'delivered', attempts, status, null, null, this.clock.now())
        return
      }
      error = `HTTP ${res.status}`
    } catch (e) {
      error = e instanceof Error ? (e.name === 'TimeoutError' ? `timed out after ${ATTEMPT_TIMEOUT_MS / 1000} s` : e.message) : String(e)
      // The client's token or credentials never reach the deliveries list or the log, even in an error's text.
      for (const v of push?.secrets ?? []) if (v) error = error.split(v).join('[redacted]')
    }
    const after = this.clock.now()
    if (attempts >= MAX_ATTEMPTS) {
      this.record(id, 'failed', attempts, status, error, null, after)
      this.log.warn({ deliveryId: id, attempts, err: error }, 'webhook delivery failed for good')
      return
    }
    const next = after + FIRST_BACKOFF_MS * 2 ** (attempts - 1)
    this.tx.write(() => {
      this.record(id, 'pending', attempts, status, error, next, after)
      this.jobs.enqueue('webhook.deliver', { id }, { runAt: next, dedupeKey: `webhook:${id}`, maxAttempts: 3 })
    })
  }

  private record(id: string, status: string, attempts: number, lastStatus: number | null, lastError: string | null, nextAttemptAt: number | null, now: number): void {
    this.repo.record(id, { status, attempts, lastStatus, lastError, nextAttemptAt, now } satisfies DeliveryOutcome)
  }
}
