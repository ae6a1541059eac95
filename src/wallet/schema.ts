// Wallet binding shapes (docs/money.md, "Wallet binding").
import { t } from 'elysia'
import { DateTime } from '../http/schemas'

export const Eip712Domain = t.Object({
  name: t.Literal('TaskGate'),
  version: t.Literal('1'),
  chainId: t.Integer({ description: '84532 (Base Sepolia) in testnet, 8453 (Base) in live' }),
}, { description: 'The EIP-712 domain the wallet signs (no verifyingContract, no salt).' })

const TypedField = t.Object({ name: t.String(), type: t.String() })

export const WalletBindingTypedData = t.Object({
  domain: Eip712Domain,
  types: t.Object({ WalletBinding: t.Array(TypedField) }),
  primaryType: t.Literal('WalletBinding'),
  message: t.Object({
    operatorId: t.String(),
    nonce: t.String(),
  }, { description: 'Add `wallet` (the address that signs) before signing.' }),
}, { description: 'Ready-to-sign EIP-712 typed data (eth_signTypedData_v4 also wants `EIP712Domain` in `types`; viem and ethers do not).' })

export const WalletNonce = t.Object({
  nonce: t.String({ description: 'single use; expires 10 minutes after issue' }),
  operatorId: t.String(),
  domain: Eip712Domain,
  chainId: t.Integer(),
  expiresAt: DateTime,
  typedData: WalletBindingTypedData,
})

export const BindWalletBody = t.Object({
  walletAddress: t.String({ minLength: 42, maxLength: 42, pattern: '^0x[0-9a-fA-F]{40}$', description: 'any letter case; stored EIP-55 checksummed' }),
  signature: t.String({ minLength: 130, maxLength: 132, pattern: '^0x(?:[0-9a-fA-F]{128}|[0-9a-fA-F]{130})$', description: '65-byte (or 64-byte EIP-2098 compact) secp256k1 signature, hex' }),
  nonce: t.String({ minLength: 1, maxLength: 128 }),
})

export const BoundWallet = t.Object({
  walletAddress: t.String({ description: 'EIP-55 checksummed' }),
  firstBind: t.Boolean({ description: 'true only the first time this operator binds any wallet' }),
  pointsAwarded: t.Integer({ description: 'pioneer points awarded by this bind (only on the first bind)' }),
})
