// Payment headers for the payments bench: x402 "exact" (an EIP-3009 TransferWithAuthorization
// signed with viem), as X-PAYMENT (v1, the payload x402/client's createPaymentHeader produced) or
// PAYMENT-SIGNATURE (v2, the payload @x402/core 2.x's client builds: `accepted` instead of scheme and
// network). test/interop pays with Coinbase's @x402 client itself.
import { getAddress, toHex } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'

/** One entry of a 402 answer's `accepts`. */
export type Requirements = {
  scheme: 'exact'; network: string; maxAmountRequired: string; resource: string; description: string; mimeType: string
  payTo: string; maxTimeoutSeconds: number; asset: string; extra?: { name: string; version: string } | Record<string, unknown>
}

const TYPES = { TransferWithAuthorization: [{ name: 'from', type: 'address' }, { name: 'to', type: 'address' }, { name: 'value', type: 'uint256' }, { name: 'validAfter', type: 'uint256' }, { name: 'validBefore', type: 'uint256' }, { name: 'nonce', type: 'bytes32' }] } as const

/** The `PAYMENT-REQUIRED` header of a 402 answer, decoded (x402 v2). */
export type RequiredV2 = {
  x402Version: 2; resource: { url: string; description?: string; mimeType?: string }
  accepts: { scheme: 'exact'; network: string; amount: string; asset: string; payTo: string; maxTimeoutSeconds: number; extra: { name: string; version: string } }[]
}

/** A PAYMENT-SIGNATURE value (x402 v2) paying the first entry of `required.accepts`. */
export async function createPaymentSignature(account: PrivateKeyAccount, required: RequiredV2): Promise<string> {
  const req = required.accepts[0]!
  const payload = await authorize(account, { ...req, maxAmountRequired: req.amount })
  return Buffer.from(JSON.stringify({ x402Version: 2, resource: required.resource, accepted: req, payload })).toString('base64')
}

export async function createPaymentHeader(account: PrivateKeyAccount, x402Version: 1, req: Requirements): Promise<string> {
  return Buffer.from(JSON.stringify({ x402Version, scheme: 'exact', network: req.network, payload: await authorize(account, req) })).toString('base64')
}

async function authorize(account: PrivateKeyAccount, req: Pick<Requirements, 'payTo' | 'maxAmountRequired' | 'maxTimeoutSeconds' | 'asset' | 'extra'>) {
  const now = Math.floor(Date.now() / 1000)
  const auth = { from: account.address, to: getAddress(req.payTo), value: req.maxAmountRequired, validAfter: String(now - 600), validBefore: String(now + req.maxTimeoutSeconds), nonce: toHex(crypto.getRandomValues(new Uint8Array(32))) }
  const extra = (req.extra ?? {}) as { name?: string; version?: string }
  const signature = await account.signTypedData({
    domain: { name: extra.name ?? 'USDC', version: extra.version ?? '2', chainId: 84532, verifyingContract: getAddress(req.asset) },
    types: TYPES, primaryType: 'TransferWithAuthorization',
    message: { ...auth, value: BigInt(auth.value), validAfter: BigInt(auth.validAfter), validBefore: BigInt(auth.validBefore), nonce: auth.nonce },
  })
  return { signature, authorization: auth }
}
