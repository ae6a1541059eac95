// X-PAYMENT headers for the payments bench: x402 v1 "exact" (an EIP-3009 TransferWithAuthorization
// signed with viem), the same payload x402/client's createPaymentHeader produced (the x402 package
// left the install, issue 12; test/interop pays with Coinbase's @x402 client).
import { getAddress, toHex } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'

/** One entry of a 402 answer's `accepts`. */
export type Requirements = {
  scheme: 'exact'; network: string; maxAmountRequired: string; resource: string; description: string; mimeType: string
  payTo: string; maxTimeoutSeconds: number; asset: string; extra?: { name: string; version: string } | Record<string, unknown>
}

const TYPES = { TransferWithAuthorization: [{ name: 'from', type: 'address' }, { name: 'to', type: 'address' }, { name: 'value', type: 'uint256' }, { name: 'validAfter', type: 'uint256' }, { name: 'validBefore', type: 'uint256' }, { name: 'nonce', type: 'bytes32' }] } as const

export async function createPaymentHeader(account: PrivateKeyAccount, x402Version: 1, req: Requirements): Promise<string> {
  const now = Math.floor(Date.now() / 1000)
  const auth = { from: account.address, to: getAddress(req.payTo), value: req.maxAmountRequired, validAfter: String(now - 600), validBefore: String(now + req.maxTimeoutSeconds), nonce: toHex(crypto.getRandomValues(new Uint8Array(32))) }
  const extra = (req.extra ?? {}) as { name?: string; version?: string }
  const signature = await account.signTypedData({
    domain: { name: extra.name ?? 'USDC', version: extra.version ?? '2', chainId: 84532, verifyingContract: getAddress(req.asset) },
    types: TYPES, primaryType: 'TransferWithAuthorization',
    message: { ...auth, value: BigInt(auth.value), validAfter: BigInt(auth.validAfter), validBefore: BigInt(auth.validBefore), nonce: auth.nonce },
  })
  return Buffer.from(JSON.stringify({ x402Version, scheme: 'exact', network: req.network, payload: { signature, authorization: auth } })).toString('base64')
}
