// The HMAC key of an operator's webhooks (docs/webhooks.md, "The request"): the configured
// `approvalWebhookSecret` (stored sealed in the guardrails), else a secret derived from the data key,
// the operator id and a generation. POST /api/v1/operator/webhooks/secret moves to the next
// generation and shows that secret once; it is never stored, only derived again when signing.
import { createHmac } from 'node:crypto'
import type { Database } from 'bun:sqlite'
import type { Clock } from '../clock'
import { unseal } from '../secrets'

export class WebhookSecrets {
  private q

  /** `sealedSecretOf` returns the operator's configured secret, sealed with `dataKey`, or null. */
  constructor(db: Database, private clock: Clock, private dataKey: Buffer, private sealedSecretOf: (operatorId: string) => string | null | undefined) {
    this.q = {
      gen: db.prepare('SELECT generation FROM webhook_secrets WHERE operator_id = ?1'),
      bump: db.prepare(`INSERT INTO webhook_secrets (operator_id, generation, updated_at) VALUES (?1, 1, ?2)
        ON CONFLICT(operator_id) DO UPDATE SET generation = generation + 1, updated_at = excluded.updated_at RETURNING generation`),
    }
  }

  private derived(operatorId: string, generation: number): string {
    return 'whsec_' + createHmac('sha256', this.dataKey).update(`taskgate-webhook:${operatorId}:${generation}`).digest('hex')
  }

  /** The key webhooks of this operator are signed with now. */
  secretFor(operatorId: string): string {
    const sealed = this.sealedSecretOf(operatorId)
    if (sealed) return unseal(this.dataKey, sealed)
    const g = (this.q.gen.get(operatorId) as { generation: number } | null)?.generation ?? 0
    return this.derived(operatorId, g)
  }

  /** Rotates the derived secret and returns the new one (the only time it is shown). */
  rotate(operatorId: string): string {
    const g = (this.q.bump.get(operatorId, this.clock.now()) as { generation: number }).generation
    return this.derived(operatorId, g)
  }
}
