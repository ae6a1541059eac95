// Testnet money's tables (docs/architecture.md, "Data layer"): mock USDC balances and transfers,
// faucet claims, and the x402 gate's payments, strikes and blocks.
import { and, count, eq, gt, gte, max, min, ne, sql } from 'drizzle-orm'
import type { Db } from '../db'
import { faucetClaims, usdcBalances, usdcTransfers, x402Blocks, x402Payments, x402Strikes } from '../db/schema'
import { preparedOnUse } from '../db/sql'

export interface Transfer { txHash: string; kind: 'mint' | 'transfer'; from: string | null; to: string; amount: number; authNonce: string | null; memo: string | null; createdAt: number }
export type PaymentScheme = (typeof x402Payments.$inferSelect)['scheme']

const p = sql.placeholder

export class MoneyRepository {
  private q

  constructor(db: Db) {
    const b = usdcBalances
    const t = usdcTransfers
    const f = faucetClaims
    const x = x402Payments
    this.q = preparedOnUse({
      // mock USDC
      balance: () => db.select({ balance: b.balance }).from(b).where(eq(b.address, p('address'))).prepare(),
      add: () => db.insert(b).values({ address: p('address'), balance: p('amount') })
        .onConflictDoUpdate({ target: b.address, set: { balance: sql`${b.balance} + excluded.balance` } }).prepare(),
      sub: () => db.update(b).set({ balance: sql`${b.balance} - ${p('amount')}` }).where(and(eq(b.address, p('address')), gte(b.balance, p('amount'))))
        .returning({ balance: b.balance }).prepare(),
      transfer: () => db.insert(t).values({
        txHash: p('txHash'), kind: p('kind'), fromAddress: p('from'), toAddress: p('to'), amount: p('amount'), authNonce: p('authNonce'), memo: p('memo'), createdAt: p('createdAt'),
      }).prepare(),
      byHash: () => db.select({ txHash: t.txHash, kind: t.kind, from: t.fromAddress, to: t.toAddress, amount: t.amount, authNonce: t.authNonce, memo: t.memo, createdAt: t.createdAt })
        .from(t).where(eq(t.txHash, p('txHash'))).prepare(),
      nonceUsed: () => db.select({ one: sql`1` }).from(t).where(and(eq(t.fromAddress, p('from')), eq(t.authNonce, p('nonce')))).prepare(),
      // faucet
      cooldownStart: () => db.select({ at: max(f.createdAt) }).from(f).where(and(eq(f.wallet, p('wallet')), eq(f.startsCooldown, true))).prepare(),
      byClient: () => db.select({ n: count(), oldest: min(f.createdAt) }).from(f).where(and(eq(f.clientAddress, p('clientAddress')), gt(f.createdAt, p('since')))).prepare(),
      claim: () => db.insert(f).values({
        wallet: p('wallet'), operatorId: p('operatorId'), amount: p('amount'), clientAddress: p('clientAddress'), startsCooldown: p('startsCooldown'), createdAt: p('createdAt'),
      }).prepare(),
      // x402
      paid: () => db.insert(x).values({
        id: p('id'), operatorId: p('operatorId'), payer: p('payer'), txHash: p('txHash'), scheme: p('scheme'), amount: p('amount'), credits: p('credits'), resource: p('resource'), createdAt: p('createdAt'),
      }).prepare(),
      txUsed: () => db.select({ one: sql`1` }).from(x).where(eq(x.txHash, p('txHash'))).prepare(),
      // Paid requests only: faucet credits are not payments for a request.
      hourly: () => db.select({ n: count(), first: min(x.createdAt) }).from(x).where(and(eq(x.payer, p('payer')), gt(x.createdAt, p('since')), ne(x.scheme, 'faucet'))).prepare(),
      lastFaucetCredit: () => db.select({ at: max(x.createdAt) }).from(x).where(and(eq(x.operatorId, p('operatorId')), eq(x.scheme, 'faucet'), gt(x.credits, 0))).prepare(),
      strike: () => db.insert(x402Strikes).values({ payer: p('payer'), reason: p('reason'), createdAt: p('createdAt') }).prepare(),
      strikes: () => db.select({ n: count() }).from(x402Strikes).where(and(eq(x402Strikes.payer, p('payer')), gt(x402Strikes.createdAt, p('since')))).prepare(),
      block: () => db.insert(x402Blocks).values({ wallet: p('wallet'), reason: p('reason'), blockedAt: p('blockedAt'), blockedUntil: p('blockedUntil') })
        .onConflictDoUpdate({ target: x402Blocks.wallet, set: { reason: sql`excluded.reason`, blockedAt: sql`excluded.blocked_at`, blockedUntil: sql`excluded.blocked_until` } }).prepare(),
      blocked: () => db.select({ reason: x402Blocks.reason, until: x402Blocks.blockedUntil }).from(x402Blocks).where(eq(x402Blocks.wallet, p('wallet'))).prepare(),
    })
  }

  // ---- mock USDC (addresses lower-case) ----

  usdcBalance(address: string): number { return this.q.balance.get({ address })?.balance ?? 0 }

  /** Adds to the address's balance (opening it). */
  addUsdc(address: string, amount: number): void { this.q.add.run({ address, amount }) }

  /** Takes from the address's balance when it covers `amount`; whether it did. */
  takeUsdc(address: string, amount: number): boolean { return this.q.sub.get({ address, amount }) !== undefined }

  recordTransfer(tr: Transfer): void { this.q.transfer.run({ ...tr }) }

  transferByHash(txHash: string): Transfer | null { return this.q.byHash.get({ txHash }) ?? null }

  /** Whether the sender used this EIP-3009 nonce. */
  authNonceUsed(from: string, nonce: string): boolean { return this.q.nonceUsed.get({ from, nonce }) !== undefined }

  // ---- faucet ----

  /** When the wallet's last claim that started a cooldown was made, or null. */
  cooldownStart(wallet: string): number | null { return this.q.cooldownStart.get({ wallet })?.at ?? null }

  /** The client address's claims since `since`: how many, and the oldest's time. */
  claimsByClient(clientAddress: string, since: number): { n: number; oldest: number | null } { return this.q.byClient.get({ clientAddress, since })! }

  addClaim(c: { wallet: string; operatorId: string | null; amount: number; clientAddress: string; startsCooldown: boolean; createdAt: number }): void { this.q.claim.run(c) }

  // ---- x402 ----

  addPayment(pay: { id: string; operatorId: string; payer: string; txHash: string; scheme: PaymentScheme; amount: number; credits: number; resource: string; createdAt: number }): void {
    this.q.paid.run(pay)
  }

  paymentTxUsed(txHash: string): boolean { return this.q.txUsed.get({ txHash }) !== undefined }

  /** The payer's paid requests since `since`: how many, and the first one's time. */
  paidSince(payer: string, since: number): { n: number; first: number | null } { return this.q.hourly.get({ payer, since })! }

  /** When the operator last received faucet credits, or null. */
  lastFaucetCredit(operatorId: string): number | null { return this.q.lastFaucetCredit.get({ operatorId })?.at ?? null }

  addStrike(payer: string, reason: string, createdAt: number): void { this.q.strike.run({ payer, reason, createdAt }) }

  strikesSince(payer: string, since: number): number { return this.q.strikes.get({ payer, since })!.n }

  block(b: { wallet: string; reason: string; blockedAt: number; blockedUntil: number }): void { this.q.block.run(b) }

  blockOf(wallet: string): { reason: string; until: number } | null { return this.q.blocked.get({ wallet }) ?? null }
}
