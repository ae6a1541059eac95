// The HMAC key of an operator's webhooks (docs/webhooks.md, "The request"): the configured
// `approvalWebhookSecret` (stored sealed in the guardrails), else a secret derived from the data key,
// the operator id and a generation. POST /api/v1/operator/webhooks/secret moves to the next
// generation and shows that secret once; it is never stored, only derived again when signing.
import { createHmac } from 'node:crypto'
import type { Clock } from '../clock'
import { unseal } from '../secrets'
import type { WebhookRepository } from './repository'

export class WebhookSecrets {
  /** `sealedSecretOf` returns the operator's configured secret, sealed with `dataKey`, or null. */
  constructor(private repo: WebhookRepository, private clock: Clock, private dataKey: Buffer, private sealedSecretOf: (operatorId: string) => string | null | undefined) {}

  private derived(operatorId: string, generation: number): string {
    return 'whsec_' + createHmac('sha256', this.dataKey).update(`taskgate-webhook:${operatorId}:${generation}`).digest('hex')
  }

  /** The key webhooks of this operator are signed with now. */
  secretFor(operatorId: string): string {
    const sealed = this.sealedSecretOf(operatorId)
    if (sealed) return unseal(this.dataKey, sealed)
    return this.derived(operatorId, this.repo.generation(operatorId))
  }

  /** Rotates the derived secret and returns the new one (the only time it is shown). */
  rotate(operatorId: string): string {
    return this.derived(operatorId, this.repo.nextGeneration(operatorId, this.clock.now()))
  }
}
