// How a receiver verifies a TaskGate webhook: the code docs/webhooks.md shows, used as is by the tests.
import { createHmac, timingSafeEqual } from 'node:crypto'
import { verifyTypedData } from 'viem'

const FIELDS = ['event', 'approvalId', 'taskId', 'agentId', 'actionType', 'operation', 'target', 'requestedValue',
  'currency', 'triggerPolicy', 'triggerReason', 'resolveUrl', 'decision', 'decidedBy', 'timestamp']

/** `signer` and `domain` come from GET /.well-known/taskgate-signers (signers[0].address, eip712Domains.webhook). */
export async function verifyWebhook(raw: string, headers: Headers, secret: string, signer: `0x${string}`, domain: { name: string; version: string; chainId: number }) {
  // 1. HMAC-SHA256 of the raw body with your webhook secret
  const expected = Buffer.from('sha256=' + createHmac('sha256', secret).update(raw).digest('hex'))
  const given = Buffer.from(headers.get('x-taskgate-signature') ?? '')
  const hmacOk = given.length === expected.length && timingSafeEqual(given, expected)
  // 2. EIP-712: the 15 fields as strings (requestedValue "0", the others "" when absent)
  const body = JSON.parse(raw)
  const message = Object.fromEntries(FIELDS.map((f) => [f, String(body[f] ?? (f === 'requestedValue' ? '0' : ''))]))
  const eip712Ok = headers.get('x-taskgate-signer')?.toLowerCase() === signer.toLowerCase() && await verifyTypedData({
    address: signer, domain, primaryType: 'ApprovalWebhook', message,
    types: { ApprovalWebhook: FIELDS.map((name) => ({ name, type: 'string' })) },
    signature: headers.get('x-taskgate-eip712-sig') as `0x${string}`,
  })
  return hmacOk && eip712Ok
}
