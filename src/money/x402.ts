// The x402 payment gate (docs/payments.md). Operators without credits pay per request:
//  - `PAYMENT-SIGNATURE`: x402 v2, scheme "exact" on eip155:84532, and `X-PAYMENT`: x402 v1, the
//    same scheme on "base-sepolia": an EIP-3009 transferWithAuthorization signed by the payer,
//    verified here and settled on the mock USDC ledger. Both versions share every check below;
//    @x402/core decodes and validates the v2 envelope and encodes the v2 headers;
//  - `X-402-Payment` (legacy): base64 { txHash, payer, amount, chainId } naming a prior transfer
//    to the gate by the operator's bound wallet.
// Every 402 carries both versions' requirements: the v1 body and the v2 `PAYMENT-REQUIRED` header.
// A payment converts to credits (pricePerCredit base units each), recorded in the ledger with the
// tx hash. Defence: a per-wallet hourly limit of paid requests and a block list for wallets that
// keep sending invalid or replayed payments (only signatures valid for the payer count against it).
import { decodePaymentSignatureHeader, encodePaymentRequiredHeader, encodePaymentResponseHeader } from '@x402/core/http'
import { parsePaymentPayload } from '@x402/core/schemas'
import type { PaymentRequired, SettleResponse } from '@x402/core/types'
import { getAddress, isAddress, isHex, verifyTypedData, type Hex } from 'viem'
import type { Clock } from '../clock'
import type { Config } from '../config'
import type { Ledger } from '../credits/ledger'
import type { Transactor } from '../db/transactor'
import type { Principal } from '../http/auth'
import { ProblemError, tooManyRequests } from '../http/errors'
import type { ProblemCode } from '../http/problem-codes'
import { rateLimitHeaders, type SlidingWindowLimiter } from '../http/ratelimit'
import { newId } from '../lib/ids'
import type { MoneyRepository, PaymentScheme } from './repository'
import { FAUCET_GATE_MEMO, USDC_ADDRESS, USDC_EIP712, usdcString, type MockUsdc } from './usdc'

/** The network as x402 v1 names it, and as v2 does (CAIP-2). */
export const NETWORK = 'base-sepolia'
export const CHAIN_ID = 84532
export const NETWORK_V2 = `eip155:${CHAIN_ID}`
const MAX_TIMEOUT_S = 300
const HOUR = 3_600_000
const DAY = 24 * HOUR

const AUTH_TYPES = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' }, { name: 'to', type: 'address' }, { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' }, { name: 'validBefore', type: 'uint256' }, { name: 'nonce', type: 'bytes32' },
  ],
} as const

/** A settled payment; `responseHeaders`: the header that confirms it, in the payer's version (PAYMENT-RESPONSE or X-PAYMENT-RESPONSE). */
export interface Settlement { txHash: string; payer: string; credits: number; responseHeaders: Record<string, string> }

type Version = 1 | 2

/** What the payment gate can answer on a paid operation (submit, compute): its `errors` declaration. */
export const PAYMENT_ERRORS = {
  402: ['INSUFFICIENT_CREDITS', 'PAYMENT_INVALID', 'PAYMENT_SIGNATURE_INVALID', 'PAYMENT_WRONG_RECIPIENT', 'PAYMENT_EXPIRED', 'PAYMENT_UNDERPAID', 'PAYMENT_REPLAYED', 'PAYMENT_NOT_FOUND', 'PAYER_NOT_BOUND', 'PAYMENT_INSUFFICIENT_FUNDS'],
  403: ['PAYER_BLOCKED'],
  429: ['X402_RATE_LIMITED', 'TOO_MANY_INVALID_PAYMENTS', 'FAUCET_OPERATOR_LIMIT'],
} as const

/** The request headers that pay (x402 v2, v1, legacy) and the response headers that confirm a payment: what paid routes declare. */
export const PAYMENT_REQUEST_HEADERS = ['PAYMENT-SIGNATURE', 'X-PAYMENT', 'X-402-Payment'] as const
export const PAYMENT_RESPONSE_HEADERS = { 'PAYMENT-RESPONSE': 'PAYMENT-RESPONSE', 'X-PAYMENT-RESPONSE': 'X-PAYMENT-RESPONSE' } as const

export class X402Gate {
  /** `limiter`: the request limiter, where forged signatures count per client address. */
  constructor(
    private repo: MoneyRepository, private tx: Transactor, private clock: Clock, private config: Config['x402'],
    private signer: { readonly address: `0x${string}` }, private ledger: Pick<Ledger, 'balance' | 'credit'>,
    private usdc: Pick<MockUsdc, 'authNonceUsed' | 'transfer' | 'transferByHash'>, private limiter: Pick<SlidingWindowLimiter, 'hit'>,
  ) {}

  get payTo(): `0x${string}` { return this.config.payTo as `0x${string}` || this.signer.address }

  /** x402 v1 payment requirements for a request needing `credits` credits. */
  requirements(resource: string, credits: number) {
    return {
      x402Version: 1,
      accepts: [{
        scheme: 'exact', network: NETWORK, maxAmountRequired: String(credits * this.config.pricePerCredit),
        resource, description: `${credits} TaskGate credit(s)`, mimeType: 'application/json',
        payTo: this.payTo, maxTimeoutSeconds: MAX_TIMEOUT_S, asset: USDC_ADDRESS, extra: { ...USDC_EIP712 },
      }],
    }
  }

  /** x402 v2 payment requirements for the same payment: what the `PAYMENT-REQUIRED` header carries. */
  private requirementsV2(resource: string, credits: number, error?: string): PaymentRequired {
    return {
      x402Version: 2, ...(error ? { error } : {}),
      resource: { url: resource, description: `${credits} TaskGate credit(s)`, mimeType: 'application/json' },
      accepts: [{
        scheme: 'exact', network: NETWORK_V2, amount: String(credits * this.config.pricePerCredit),
        asset: USDC_ADDRESS, payTo: this.payTo, maxTimeoutSeconds: MAX_TIMEOUT_S, extra: { ...USDC_EIP712 },
      }],
    }
  }

  /** A 402 with both versions' requirements: v1 in the body, v2 in `PAYMENT-REQUIRED`. */
  private required(code: ProblemCode, detail: string, resource: string, cost: number, extra: Record<string, unknown>, error: string): ProblemError {
    return new ProblemError(402, code, detail, { ...extra, ...this.requirements(resource, cost), error }, { 'payment-required': encodePaymentRequiredHeader(this.requirementsV2(resource, cost, error)) })
  }

  /** Whether the request carries a payment (PAYMENT-SIGNATURE, X-PAYMENT or the legacy X-402-Payment). */
  paying(request: Request): boolean { return PAYMENT_REQUEST_HEADERS.some((h) => request.headers.has(h)) }

  /**
   * Runs before a paid operation. A payment header that is present is always verified and
   * settled (credits added); without one, an operator short of `cost` credits gets 402 with the
   * requirements. Returns the settlement (its response header) or null.
   */
  async gate(request: Request, p: Principal, cost: number, ip: () => string): Promise<Settlement | null> {
    const resource = new URL(request.url).toString()
    const [v2, v1, legacy] = PAYMENT_REQUEST_HEADERS.map((h) => request.headers.get(h))
    if ([v2, v1, legacy].filter((h) => h !== null).length > 1) {
      throw this.refuse('send one payment header: PAYMENT-SIGNATURE (x402 v2), X-PAYMENT (x402 v1) or X-402-Payment', resource, cost)
    }
    if (v2 !== null) return this.settleV2(v2, p, cost, resource, ip)
    if (v1 !== null) return this.settleV1(v1, p, cost, resource, ip)
    if (legacy !== null) return this.settleLegacy(legacy, p, cost, resource)
    const b = this.ledger.balance(p.operator.id)
    const balance = b ? b.allocationBalance + b.purchasedBalance : 0
    if (balance < cost) throw this.paymentRequired(request, cost, balance)
    return null
  }

  /** 402 INSUFFICIENT_CREDITS carrying the x402 payment requirements. */
  paymentRequired(request: Request, cost: number, balance: number): ProblemError {
    return this.required('INSUFFICIENT_CREDITS', `this needs ${cost} credit(s); the balance is ${balance}. Pay with x402 (PAYMENT-SIGNATURE, or X-PAYMENT for v1) or top up.`,
      new URL(request.url).toString(), cost, { needed: cost, balance }, 'a payment is required: PAYMENT-SIGNATURE (x402 v2) or X-PAYMENT (x402 v1)')
  }

  private refuse(detail: string, resource: string, cost: number, code: ProblemCode = 'PAYMENT_INVALID'): ProblemError {
    return this.required(code, detail, resource, cost, {}, detail)
  }

  /** x402 v1: `X-PAYMENT`, base64 JSON `{ x402Version: 1, scheme, network, payload }`. */
  private settleV1(header: string, p: Principal, cost: number, resource: string, ip: () => string): Promise<Settlement> {
    let payload: any
    try { payload = JSON.parse(Buffer.from(header, 'base64').toString('utf8')) } catch { throw this.refuse('X-PAYMENT is not base64 JSON', resource, cost) }
    if (payload?.x402Version !== 1 || payload?.scheme !== 'exact' || payload?.network !== NETWORK) throw this.refuse(`X-PAYMENT takes x402Version 1, scheme exact on ${NETWORK} (x402 v2 goes in PAYMENT-SIGNATURE)`, resource, cost)
    return this.settleAuthorization(payload.payload, 1, p, cost, resource, ip)
  }

  /** x402 v2: `PAYMENT-SIGNATURE`, base64 JSON `{ x402Version: 2, accepted, payload, resource? }`, validated with @x402/core's schema. */
  private settleV2(header: string, p: Principal, cost: number, resource: string, ip: () => string): Promise<Settlement> {
    let decoded: unknown
    try { decoded = decodePaymentSignatureHeader(header) } catch { throw this.refuse('PAYMENT-SIGNATURE is not base64 JSON', resource, cost) }
    const parsed = parsePaymentPayload(decoded)
    if (!parsed.success) {
      const first = parsed.error.issues[0]
      throw this.refuse(`PAYMENT-SIGNATURE is not an x402 payment payload${first ? ` (${first.path.join('.') || 'payload'}: ${first.message})` : ''}`, resource, cost)
    }
    const payment = parsed.data
    if (payment.x402Version !== 2) throw this.refuse('PAYMENT-SIGNATURE takes x402Version 2 (x402 v1 goes in X-PAYMENT)', resource, cost)
    const a = (payment as { accepted: { scheme: string; network: string; asset: string } }).accepted
    if (a.scheme !== 'exact' || a.network !== NETWORK_V2 || a.asset.toLowerCase() !== USDC_ADDRESS.toLowerCase()) {
      throw this.refuse(`only scheme exact on ${NETWORK_V2} in USDC (${USDC_ADDRESS}) is accepted`, resource, cost)
    }
    return this.settleAuthorization(payment.payload, 2, p, cost, resource, ip)
  }

  /** The "exact" scheme's EIP-3009 authorization, either version: verified, checked against every defence, then settled. */
  private async settleAuthorization(inner: any, version: Version, p: Principal, cost: number, resource: string, ip: () => string): Promise<Settlement> {
    const auth = inner?.authorization
    const signature = inner?.signature
    if (!auth || !isAddress(auth.from ?? '', { strict: false }) || !isAddress(auth.to ?? '', { strict: false }) || !isHex(signature) || !/^0x[0-9a-fA-F]{64}$/.test(auth.nonce ?? '')
      || ![auth.value, auth.validAfter, auth.validBefore].every((v) => typeof v === 'string' && /^[0-9]{1,30}$/.test(v))) {
      throw this.refuse('malformed transferWithAuthorization payload', resource, cost)
    }
    const payer = getAddress(auth.from)
    const valid = await verifyTypedData({
      address: payer, domain: { ...USDC_EIP712, chainId: CHAIN_ID, verifyingContract: USDC_ADDRESS }, types: AUTH_TYPES, primaryType: 'TransferWithAuthorization',
      message: { from: payer, to: getAddress(auth.to), value: BigInt(auth.value), validAfter: BigInt(auth.validAfter), validBefore: BigInt(auth.validBefore), nonce: auth.nonce as Hex },
      signature: signature as Hex,
    }).catch(() => false)
    if (!valid) {
      // Forged: it names a payer who did not sign it, so it counts against the sender's address only.
      const d = this.limiter.hit(`x402-forged:${ip()}`, 10)
      if (!d.allowed) throw new ProblemError(429, 'TOO_MANY_INVALID_PAYMENTS', 'too many invalid payment signatures from this address', { retryAfterSeconds: d.retryAfter }, rateLimitHeaders(d))
      throw this.refuse('the payment signature is not valid for the payer', resource, cost, 'PAYMENT_SIGNATURE_INVALID')
    }
    this.assertNotBlocked(payer)
    const now = this.clock.now()
    const nowS = Math.floor(now / 1000)
    const value = Number(auth.value)
    const required = cost * this.config.pricePerCredit
    const strike = (reason: string, detail: string, code: ProblemCode): never => { this.addStrike(payer, reason); throw this.refuse(detail, resource, cost, code) }
    if (getAddress(auth.to) !== getAddress(this.payTo)) strike('wrong_recipient', `payments go to ${this.payTo}`, 'PAYMENT_WRONG_RECIPIENT')
    if (!(Number(auth.validAfter) <= nowS && nowS < Number(auth.validBefore))) strike('expired', 'the authorization is not valid at this time', 'PAYMENT_EXPIRED')
    if (!Number.isSafeInteger(value) || value < required) strike('underpaid', `this needs ${usdcString(required)} USDC; the authorization is for ${usdcString(Math.min(value, Number.MAX_SAFE_INTEGER))}`, 'PAYMENT_UNDERPAID')
    if (this.usdc.authNonceUsed(payer, auth.nonce)) strike('replay', 'this authorization was already used', 'PAYMENT_REPLAYED')
    this.assertHourly(payer)
    const credits = this.creditsFor(value)
    let txHash: string
    try {
      txHash = this.tx.write(() => {
        const tx = this.usdc.transfer(payer, this.payTo, value, auth.nonce, `x402 payment by ${p.operator.id}`)
        this.record(p.operator.id, payer, tx, 'exact', value, credits, resource)
        return tx
      })
    } catch (e) {
      // every 402 carries the payment requirements
      if (e instanceof ProblemError && e.code === 'PAYMENT_INSUFFICIENT_FUNDS') throw this.refuse(e.detail, resource, cost, e.code)
      throw e
    }
    return this.settled(txHash, payer, credits, version)
  }

  /** A settlement and the header that confirms it in the payer's version: PAYMENT-RESPONSE (v2), else X-PAYMENT-RESPONSE. */
  private settled(txHash: string, payer: string, credits: number, version: Version): Settlement {
    const response: SettleResponse = { success: true, transaction: txHash, network: (version === 2 ? NETWORK_V2 : NETWORK) as SettleResponse['network'], payer }
    return { txHash, payer, credits, responseHeaders: { [version === 2 ? 'payment-response' : 'x-payment-response']: encodePaymentResponseHeader(response) } }
  }

  private async settleLegacy(header: string, p: Principal, cost: number, resource: string): Promise<Settlement> {
    let h: any
    try { h = JSON.parse(Buffer.from(header, 'base64').toString('utf8')) } catch { throw this.refuse('X-402-Payment is not base64 JSON', resource, cost) }
    if (typeof h?.txHash !== 'string' || typeof h?.payer !== 'string' || !isAddress(h.payer, { strict: false }) || Number(h?.chainId) !== CHAIN_ID || !/^[0-9]{1,30}$/.test(String(h?.amount))) {
      throw this.refuse('X-402-Payment needs { txHash, payer, amount, chainId: 84532 }', resource, cost)
    }
    const payer = getAddress(h.payer)
    const bound = p.operator.walletAddress
    if (!bound || getAddress(bound) !== payer) throw this.refuse('the payer must be the wallet bound to this operator', resource, cost, 'PAYER_NOT_BOUND')
    this.assertNotBlocked(payer)
    const tx = this.usdc.transferByHash(h.txHash)
    const amount = Number(h.amount)
    if (!tx || tx.to !== this.payTo.toLowerCase() || tx.from !== payer.toLowerCase() || tx.amount !== amount) {
      this.addStrike(payer, 'unknown_transfer')
      throw this.refuse('no matching transfer from the payer to the payment gate', resource, cost, 'PAYMENT_NOT_FOUND')
    }
    if (this.repo.paymentTxUsed(tx.txHash)) { this.addStrike(payer, 'replay'); throw this.refuse('this transfer was already used', resource, cost, 'PAYMENT_REPLAYED') }
    if (amount < cost * this.config.pricePerCredit) { this.addStrike(payer, 'underpaid'); throw this.refuse('the transfer does not cover this request', resource, cost, 'PAYMENT_UNDERPAID') }
    // A faucet gate transfer is faucet credit, not a payment: once per operator per 24 h, outside the hourly limit.
    const faucet = tx.memo?.startsWith(FAUCET_GATE_MEMO) === true
    if (faucet) {
      const at = this.faucetCreditAvailableAt(p.operator.id)
      const now = this.clock.now()
      if (at > now) {
        throw tooManyRequests('FAUCET_OPERATOR_LIMIT', `this operator already received faucet credits in the last 24 hours; try again after ${new Date(at).toISOString()}`, (at - now) / 1000)
      }
    } else this.assertHourly(payer)
    const credits = this.creditsFor(amount)
    this.tx.write(() => this.record(p.operator.id, payer, tx.txHash, faucet ? 'faucet' : 'legacy', amount, credits, resource))
    return this.settled(tx.txHash, payer, credits, 1)
  }

  /** Credits bought by `amount` USDC base units. */
  creditsFor(amount: number): number { return Math.floor(amount / this.config.pricePerCredit) }

  /** When the operator may next receive faucet credits (at most once per rolling 24 h). */
  faucetCreditAvailableAt(operatorId: string): number {
    const last = this.repo.lastFaucetCredit(operatorId)
    return last === null ? 0 : last + DAY
  }

  /** Records a payment and converts it to credits (inside the caller's transaction). */
  record(operatorId: string, payer: string, txHash: string, scheme: PaymentScheme, amount: number, credits: number, resource: string): void {
    this.repo.addPayment({ id: newId('pay'), operatorId, payer: payer.toLowerCase(), txHash, scheme, amount, credits, resource, createdAt: this.clock.now() })
    if (credits > 0) this.ledger.credit(operatorId, credits, `x402_payment ${txHash}`, `x402:${txHash}`)
  }

  txUsed(txHash: string): boolean { return this.repo.paymentTxUsed(txHash.toLowerCase()) }

  private addStrike(payer: string, reason: string): void {
    const now = this.clock.now()
    this.repo.addStrike(payer.toLowerCase(), reason, now)
    const n = this.repo.strikesSince(payer.toLowerCase(), now - HOUR)
    if (n >= this.config.blockAfterStrikes) this.repo.block({ wallet: payer.toLowerCase(), reason: 'REPEATED_INVALID_PAYMENTS', blockedAt: now, blockedUntil: now + this.config.blockHours * HOUR })
  }

  private assertNotBlocked(payer: string): void {
    const st = this.blockOf(payer)
    if (st.blocked) throw new ProblemError(403, 'PAYER_BLOCKED', `wallet ${payer} is blocked from x402 payments (${st.reason})`, { reason: st.reason })
  }

  private assertHourly(payer: string): void {
    this.tx.lock(`x402:${payer.toLowerCase()}`) // replicas: one count-then-pay at a time per wallet
    const st = this.hourlyOf(payer)
    if (st.rateLimitRemaining === 0) {
      throw new ProblemError(429, 'X402_RATE_LIMITED', `wallet ${payer} reached ${st.rateLimitMax} paid requests this hour`, { retryAfterSeconds: Math.ceil(st.rateLimitResetMs / 1000) }, { 'retry-after': String(Math.max(1, Math.ceil(st.rateLimitResetMs / 1000))), 'x-ratelimit-reset': String(st.rateLimitResetUnix) })
    }
  }

  private blockOf(wallet: string): { blocked: boolean; reason: string | null } {
    const b = this.repo.blockOf(wallet.toLowerCase())
    const active = !!b && b.until > this.clock.now()
    return { blocked: active, reason: active ? b!.reason : null }
  }

  /** The defence state of a wallet: what the agent passport shows under `x402`. */
  private hourlyOf(wallet: string) {
    const now = this.clock.now()
    const h = this.repo.paidSince(wallet.toLowerCase(), now - HOUR)
    const max = this.config.maxPaidPerHour
    const resetMs = h.first ? Math.max(0, h.first + HOUR - now) : 0
    return { rateLimitMax: max, rateLimitRemaining: Math.max(0, max - h.n), rateLimitResetMs: resetMs, rateLimitResetUnix: Math.ceil((now + resetMs) / 1000) }
  }

  walletState(wallet: string) {
    return { ...this.blockOf(wallet), walletChecked: isAddress(wallet, { strict: false }) ? getAddress(wallet) : wallet, ...this.hourlyOf(wallet) }
  }
}
