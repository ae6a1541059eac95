// The testnet faucet: mints mock USDC to a wallet and the same amount to the payment gate on its
// behalf (the transfer a legacy X-402-Payment header then names). When the wallet belongs to an
// operator (bound wallet, or the calling operator), that gate transfer becomes credits at once.
import { privateKeyToAccount } from 'viem/accounts'
import type { Principal } from '../http/auth'
import { ProblemError } from '../http/errors'
import type { Services } from '../services'
import { normalizeAddress, units, usdcString } from './usdc'
import { CHAIN_ID } from './x402'

const HOUR = 3_600_000

export class Faucet {
  readonly devWallet: `0x${string}` | null
  private q

  constructor(private s: Services) {
    this.devWallet = s.secrets.devWalletKey ? privateKeyToAccount(s.secrets.devWalletKey).address : null
    this.q = {
      last: s.db.$client.prepare('SELECT max(created_at) AS at FROM faucet_claims WHERE wallet = ?1'),
      claim: s.db.$client.prepare('INSERT INTO faucet_claims (wallet, operator_id, amount, created_at) VALUES (?1, ?2, ?3, ?4)'),
    }
  }

  drip(input: { wallet?: string; amount?: number }, caller: Principal | null) {
    if (this.s.config.phase !== 'testnet') throw new ProblemError(404, 'ROUTE_NOT_FOUND', 'the faucet exists only in the testnet phase')
    const wallet = normalizeAddress(input.wallet ?? caller?.operator.walletAddress ?? this.devWallet ?? '')
    const usdc = input.amount ?? this.s.config.faucet.defaultUsdc
    if (!(usdc > 0) || usdc > this.s.config.faucet.maxUsdc) throw new ProblemError(400, 'INVALID_AMOUNT', `amount must be more than 0 and at most ${this.s.config.faucet.maxUsdc} USDC`)
    const amount = units(usdc)
    const now = this.s.clock.now()
    const cooldownMs = this.s.config.faucet.cooldownHours * HOUR
    const gate = this.s.x402.payTo
    // Credits go to the operator whose bound wallet this is, else to the calling operator.
    const owner = this.s.wallet.operatorOf(wallet) ?? caller?.operator.id ?? null
    const credits = owner ? Math.floor(amount / this.s.config.x402.pricePerCredit) : 0
    return this.s.db.$client.transaction(() => {
      const last = (this.q.last.get(wallet.toLowerCase()) as { at: number | null }).at
      if (last !== null && now - last < cooldownMs) {
        const until = last + cooldownMs
        throw new ProblemError(429, 'FAUCET_COOLDOWN', `this wallet used the faucet recently; try again after ${new Date(until).toISOString()}`,
          { message: 'faucet cooldown', cooldownUntil: new Date(until).toISOString(), retryAfterSeconds: Math.ceil((until - now) / 1000) },
          { 'retry-after': String(Math.ceil((until - now) / 1000)) })
      }
      this.q.claim.run(wallet.toLowerCase(), owner, amount, now)
      const devWalletTxHash = this.s.usdc.mint(wallet, amount, 'faucet')
      const paymentAddressTxHash = this.s.usdc.mint(gate, amount, `faucet, on behalf of ${wallet}`, wallet)
      if (owner && credits > 0) this.s.x402.record(owner, wallet, paymentAddressTxHash, 'legacy', amount, credits, 'faucet')
      const header = Buffer.from(JSON.stringify({ txHash: paymentAddressTxHash, payer: wallet, amount: String(amount), chainId: CHAIN_ID })).toString('base64')
      return {
        wallet, devWalletTxHash, paymentAddressTxHash, usdcMinted: usdcString(amount), creditsAdded: credits,
        cooldownUntil: new Date(now + cooldownMs).toISOString(), paymentAddress: gate, walletBalance: usdcString(this.s.usdc.balanceOf(wallet)),
        instructions: owner
          ? `${credits} credits were added to ${owner}. The wallet keeps ${usdcString(amount)} mock USDC to pay with X-PAYMENT (x402).`
          : `Bind ${wallet} to an operator, then send "X-402-Payment: ${header}" once to turn the gate transfer into credits, or pay per request with X-PAYMENT.`,
        x402PaymentHeader: owner ? null : header,
      }
    })()
  }
}
