// Mock USDC: a token ledger inside the appliance, keyed by EVM address (stored lower-case), in
// base units (6 decimals), with a tx hash for every movement. Nothing touches a chain; the token
// "lives" at the real Base Sepolia USDC address so standard x402 clients recognise it.
import type { Database } from 'bun:sqlite'
import { getAddress, isAddress, toHex } from 'viem'
import type { Clock } from '../clock'
import { ProblemError } from '../http/errors'

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

export interface Transfer { txHash: string; kind: 'mint' | 'transfer'; from: string | null; to: string; amount: number; authNonce: string | null; memo: string | null; createdAt: number }

export class MockUsdc {
  private q
  constructor(db: Database, private clock: Clock) {
    this.q = {
      bal: db.prepare('SELECT balance FROM usdc_balances WHERE address = ?1'),
      add: db.prepare('INSERT INTO usdc_balances (address, balance) VALUES (?1, ?2) ON CONFLICT(address) DO UPDATE SET balance = balance + excluded.balance'),
      sub: db.prepare('UPDATE usdc_balances SET balance = balance - ?2 WHERE address = ?1 AND balance >= ?2'),
      tx: db.prepare('INSERT INTO usdc_transfers (tx_hash, kind, from_address, to_address, amount, auth_nonce, memo, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)'),
      get: db.prepare('SELECT tx_hash AS txHash, kind, from_address AS "from", to_address AS "to", amount, auth_nonce AS authNonce, memo, created_at AS createdAt FROM usdc_transfers WHERE tx_hash = ?1'),
      nonceUsed: db.prepare('SELECT 1 FROM usdc_transfers WHERE from_address = ?1 AND auth_nonce = ?2'),
    }
  }

  balanceOf(address: string): number {
    return (this.q.bal.get(address.toLowerCase()) as { balance: number } | null)?.balance ?? 0
  }

  private hash(): string { return toHex(crypto.getRandomValues(new Uint8Array(32))) }

  /** New tokens to `to`. Call inside a transaction when it must commit with other writes. */
  mint(to: string, amount: number, memo: string | null = null, from: string | null = null): string {
    const txHash = this.hash()
    this.q.add.run(to.toLowerCase(), amount)
    this.q.tx.run(txHash, from ? 'transfer' : 'mint', from?.toLowerCase() ?? null, to.toLowerCase(), amount, null, memo, this.clock.now())
    return txHash
  }

  /** Moves tokens; fails with 402 when the sender cannot cover it. `authNonce` is EIP-3009's, unique per sender. */
  transfer(from: string, to: string, amount: number, authNonce: string | null = null, memo: string | null = null): string {
    if (this.q.sub.run(from.toLowerCase(), amount).changes === 0) throw new ProblemError(402, 'PAYMENT_INSUFFICIENT_FUNDS', `the payer's USDC balance is below ${usdcString(amount)}`)
    const txHash = this.hash()
    this.q.add.run(to.toLowerCase(), amount)
    this.q.tx.run(txHash, 'transfer', from.toLowerCase(), to.toLowerCase(), amount, authNonce?.toLowerCase() ?? null, memo, this.clock.now())
    return txHash
  }

  authNonceUsed(from: string, nonce: string): boolean { return this.q.nonceUsed.get(from.toLowerCase(), nonce.toLowerCase()) != null }

  transferByHash(txHash: string): Transfer | null { return (this.q.get.get(txHash.toLowerCase()) as Transfer | null) ?? null }
}
