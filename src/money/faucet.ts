// The testnet faucet: mints mock USDC to a wallet and the same amount to the payment gate on its
// behalf (the transfer a legacy X-402-Payment header then names). Abuse rules
// (docs/money.md, "Faucet"):
//  - credits go only to the operator whose *bound* wallet receives the mint, at most once per
//    rolling 24 h per operator whatever wallet it binds (later mints still mint USDC, 0 credits);
//  - one claim per wallet per cooldown, but a claim below the default amount by anyone other than
//    the wallet's own operator never starts that cooldown (a stranger cannot lock a wallet out);
//  - at most `perAddressPerDay` claims per client address per rolling 24 h.
// Faucet credits are not paid requests: they are recorded with scheme `faucet`, outside the
// wallet's hourly x402 limit.
import { privateKeyToAccount } from 'viem/accounts'
import type { Clock } from '../clock'
import type { Config } from '../config'
import type { Transactor } from '../db/transactor'
import type { Principal } from '../http/auth'
import { ProblemError, tooManyRequests } from '../http/errors'
import type { ProblemCode } from '../http/problem-codes'
import type { WalletService } from '../wallet/service'
import type { MoneyRepository } from './repository'
import { FAUCET_GATE_MEMO, normalizeAddress, units, usdcString, type MockUsdc } from './usdc'
import { CHAIN_ID, type X402Gate } from './x402'

const HOUR = 3_600_000
const DAY = 24 * HOUR

const limited = (code: ProblemCode, detail: string, until: number, now: number, extra: Record<string, unknown> = {}) =>
  tooManyRequests(code, detail, (until - now) / 1000, extra)

export class Faucet {
  private devWalletAddress: `0x${string}` | null | undefined

  constructor(
    private repo: MoneyRepository, private tx: Transactor, private clock: Clock,
    private config: Pick<Config, 'phase' | 'faucet'>,
    private usdc: Pick<MockUsdc, 'mint' | 'balanceOf'>, private x402: Pick<X402Gate, 'payTo' | 'faucetCreditAvailableAt' | 'creditsFor' | 'record'>,
    private wallets: Pick<WalletService, 'operatorOf'>, private devWalletKey: `0x${string}` | null,
  ) {}

  /** The dev wallet's address, derived at first use (like the signer's: start-up does not wait for the curve's tables). */
  get devWallet(): `0x${string}` | null {
    if (this.devWalletAddress === undefined) this.devWalletAddress = this.devWalletKey ? privateKeyToAccount(this.devWalletKey).address : null
    return this.devWalletAddress
  }

  drip(input: { wallet?: string; amount?: number }, caller: Principal | null, clientAddress: string) {
    if (this.config.phase !== 'testnet') throw new ProblemError(404, 'ROUTE_NOT_FOUND', 'the faucet exists only in the testnet phase')
    const wallet = normalizeAddress(input.wallet ?? caller?.operator.walletAddress ?? this.devWallet ?? '')
    const f = this.config.faucet
    const usdc = input.amount ?? f.defaultUsdc
    if (!(usdc > 0) || usdc > f.maxUsdc) throw new ProblemError(400, 'INVALID_AMOUNT', `amount must be more than 0 and at most ${f.maxUsdc} USDC`)
    const amount = units(usdc)
    if (amount < 1) throw new ProblemError(400, 'INVALID_AMOUNT', 'amount is below the smallest USDC unit (0.000001)')
    const now = this.clock.now()
    const cooldownMs = f.cooldownHours * HOUR
    const owner = this.wallets.operatorOf(wallet) // credits go to the bound wallet's operator, never to the caller as such
    const startsCooldown = amount >= units(f.defaultUsdc) || (caller !== null && caller.operator.id === owner)
    return this.tx.write(() => {
      this.tx.lock('faucet') // replicas: the address, wallet and operator rules counted one claim at a time
      const used = this.repo.claimsByClient(clientAddress, now - DAY)
      if (used.n >= f.perAddressPerDay) {
        throw limited('FAUCET_ADDRESS_LIMIT', `this client address made ${f.perAddressPerDay} faucet calls in the last 24 hours`, (used.oldest ?? now) + DAY, now, { limit: f.perAddressPerDay })
      }
      const last = this.repo.cooldownStart(wallet.toLowerCase())
      if (last !== null && now - last < cooldownMs) {
        const until = last + cooldownMs
        throw limited('FAUCET_COOLDOWN', `this wallet used the faucet recently; try again after ${new Date(until).toISOString()}`, until, now,
          { message: 'faucet cooldown', cooldownUntil: new Date(until).toISOString() })
      }
      this.repo.addClaim({ wallet: wallet.toLowerCase(), operatorId: owner, amount, clientAddress, startsCooldown, createdAt: now })
      const devWalletTxHash = this.usdc.mint(wallet, amount, 'faucet')
      const paymentAddressTxHash = this.usdc.mint(this.x402.payTo, amount, `${FAUCET_GATE_MEMO} for ${wallet}`, wallet)
      const creditsAllowed = owner !== null && this.x402.faucetCreditAvailableAt(owner) <= now
      const credits = creditsAllowed ? this.x402.creditsFor(amount) : 0
      if (creditsAllowed && credits > 0) this.x402.record(owner!, wallet, paymentAddressTxHash, 'faucet', amount, credits, 'faucet')
      const header = Buffer.from(JSON.stringify({ txHash: paymentAddressTxHash, payer: wallet, amount: String(amount), chainId: CHAIN_ID })).toString('base64')
      const credited = credits > 0
      return {
        wallet, devWalletTxHash, paymentAddressTxHash, usdcMinted: usdcString(amount), creditsAdded: credits,
        cooldownUntil: new Date(startsCooldown ? now + cooldownMs : now).toISOString(), paymentAddress: this.x402.payTo,
        walletBalance: usdcString(this.usdc.balanceOf(wallet)),
        instructions: credited
          ? `${credits} credits were added to ${owner}. The wallet keeps ${usdcString(amount)} mock USDC to pay with X-PAYMENT (x402).`
          : owner
            ? `${owner} already received faucet credits in the last 24 hours. The wallet keeps ${usdcString(amount)} mock USDC to pay with X-PAYMENT (x402); the gate transfer can be turned into credits later with "X-402-Payment: ${header}".`
            : `No operator has bound ${wallet}: no credits were added. Bind it, then send "X-402-Payment: ${header}" once to turn the gate transfer into credits (once per operator per 24 h), or pay per request with X-PAYMENT.`,
        x402PaymentHeader: credited ? null : header,
      }
    })
  }
}
