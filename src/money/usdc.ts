// Mock USDC: a token ledger inside the appliance, keyed by EVM address (stored lower-case), in
// base units (6 decimals), with a tx hash for every movement. Nothing touches a chain; the token
// "lives" at the real Base Sepolia USDC address so standard x402 clients recognise it.
import { getAddress, isAddress, toHex } from 'viem'
import type { Clock } from '../clock'
import { ProblemError } from '../http/errors'
import type { MoneyRepository, Transfer } from './repository'

export type { Transfer } from './repository'

export const USDC_DECIMALS = 6
export const USDC_ADDRESS = '0x036CbD53842c5426634e7929541eC2318f3dCF7e' as const // Base Sepolia USDC
export const USDC_EIP712 = { name: 'USDC', version: '2' } as const
/** Memo of the faucet's transfer to the payment gate on a wallet's behalf (credits from it follow the faucet's rules). */
export const FAUCET_GATE_MEMO = 'faucet gate transfer'
export const units = (usdc: number) => Math.round(usdc * 10 ** USDC_DECIMALS)
export const usdcString = (u: number) => (u / 10 ** USDC_DECIMALS).toFixed(USDC_DECIMALS).replace(/\.?0+$/, '')

export function normalizeAddress(a: string): `0x${string}` {
  if (!isAddress(a, { strict: false })) throw new ProblemError(400, 'INVALID_ADDRESS', 'not an EVM address')
  return getAddress(a)
}

export class MockUsdc {
  constructor(private repo: MoneyRepository, private clock: Clock) {}

  balanceOf(address: string): number { return this.repo.usdcBalance(address.toLowerCase()) }

  private hash(): string { return toHex(crypto.getRandomValues(new Uint8Array(32))) }

  /** New tokens to `to`. Call inside a transaction when it must commit with other writes. */
  mint(to: string, amount: number, memo: string | null = null, from: string | null = null): string {
    const txHash = this.hash()
    this.repo.addUsdc(to.toLowerCase(), amount)
    this.repo.recordTransfer({ txHash, kind: from ? 'transfer' : 'mint', from: from?.toLowerCase() ?? null, to: to.toLowerCase(), amount, authNonce: null, memo, createdAt: this.clock.now() })
    return txHash
  }

  /** Moves tokens; fails with 402 when the sender cannot cover it. `authNonce` is EIP-3009's, unique per sender. */
  transfer(from: string, to: string, amount: number, authNonce: string | null = null, memo: string | null = null): string {
    if (!this.repo.takeUsdc(from.toLowerCase(), amount)) throw new ProblemError(402, 'PAYMENT_INSUFFICIENT_FUNDS', `the payer's USDC balance is below ${usdcString(amount)}`)
    const txHash = this.hash()
    this.repo.addUsdc(to.toLowerCase(), amount)
    this.repo.recordTransfer({ txHash, kind: 'transfer', from: from.toLowerCase(), to: to.toLowerCase(), amount, authNonce: authNonce?.toLowerCase() ?? null, memo, createdAt: this.clock.now() })
    return txHash
  }

  authNonceUsed(from: string, nonce: string): boolean { return this.repo.authNonceUsed(from.toLowerCase(), nonce.toLowerCase()) }

  transferByHash(txHash: string): Transfer | null { return this.repo.transferByHash(txHash.toLowerCase()) }
}
