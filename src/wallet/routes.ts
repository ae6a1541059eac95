// HTTP for binding a wallet to the operator (bearer only; docs/money.md, "Wallet binding").
import { defineRoute } from '../http/route'
import type { Services } from '../services'
import { BindWalletBody, BoundWallet, WalletNonce } from './schema'

export function walletRoutes(s: Services) {
  const tags = ['Wallet']
  return [
    defineRoute({
      method: 'GET', path: '/api/v1/operator/wallet/nonce', auth: 'bearer', tags,
      summary: 'Get a single-use nonce to sign with the wallet (EIP-712)',
      description: 'The nonce is single use and expires 10 minutes after issue (service clock). `domain` is the EIP-712 domain object '
        + '`{ name: "TaskGate", version: "1", chainId }` (not just its name), chainId 84532 (Base Sepolia) in testnet and 8453 (Base) in live. '
        + '`typedData` is ready to sign with any EIP-712 library once `message.wallet` is set to the signing address: primary type '
        + '`WalletBinding { wallet: address, operatorId: string, nonce: string }`. Then POST /api/v1/operator/wallet.',
      writes: true, // stores the nonce
      responses: { 200: { description: 'nonce and typed data', schema: WalletNonce } },
      handler: ({ auth }) => s.wallet.issueNonce(auth.operator.id),
    }),
    defineRoute({
      method: 'POST', path: '/api/v1/operator/wallet', auth: 'bearer', tags, body: BindWalletBody,
      summary: 'Bind a wallet with its EIP-712 WalletBinding signature',
      description: 'Unknown nonce, or one issued to another operator → 400 INVALID_NONCE; expired → 400 NONCE_EXPIRED; already used → 409 NONCE_USED; '
        + 'signature not made by walletAddress over { wallet, operatorId, nonce } → 400 INVALID_SIGNATURE; wallet bound to another operator → 409 WALLET_BOUND_ELSEWHERE. '
        + 'Addresses are compared case-insensitively and returned EIP-55 checksummed. Binding another wallet replaces the current one. '
        + 'The first bind ever of the operator awards the pioneer wallet-bind points (firstBind true); later binds award nothing.',
      errors: { 400: ['INVALID_NONCE', 'NONCE_EXPIRED', 'INVALID_SIGNATURE'], 409: ['NONCE_USED', 'WALLET_BOUND_ELSEWHERE'] },
      responses: { 200: { description: 'bound', schema: BoundWallet } },
      handler: ({ auth, body }) => s.wallet.bind(auth.operator.id, body),
    }),
  ]
}
