// Wallet binding's data (docs/architecture.md, "Data layer"): the single-use nonces, and the
// operator's bound wallet (operators.wallet_address, unique).
import { and, eq, isNotNull, isNull, lt, sql } from 'drizzle-orm'
import type { Db } from '../db'
import { operators, walletNonces } from '../db/schema'
import { preparedOnUse, setTo } from '../db/sql'

export type NonceRow = typeof walletNonces.$inferSelect

const p = sql.placeholder

export class WalletRepository {
  private q

  constructor(db: Db) {
    const n = walletNonces
    this.q = preparedOnUse({
      insert: () => db.insert(n).values({ nonce: p('nonce'), operatorId: p('operatorId'), createdAt: p('createdAt'), expiresAt: p('expiresAt') }).prepare(),
      prune: () => db.delete(n).where(and(isNull(n.usedAt), lt(n.expiresAt, p('before')))).prepare(),
      get: () => db.select().from(n).where(eq(n.nonce, p('nonce'))).prepare(),
      markUsed: () => db.update(n).set({ usedAt: setTo('now') }).where(and(eq(n.nonce, p('nonce')), isNull(n.usedAt))).prepare(),
      boundBefore: () => db.select({ one: sql`1` }).from(n).where(and(eq(n.operatorId, p('operatorId')), isNotNull(n.usedAt))).limit(1).prepare(),
      current: () => db.select({ walletAddress: operators.walletAddress }).from(operators).where(eq(operators.id, p('operatorId'))).prepare(),
      // The checksummed form (how binds store it) and the lower-case one, should anything else write one. Both use the unique index.
      owner: () => db.select({ id: operators.id }).from(operators).where(sql`${operators.walletAddress} IN (${p('wallet')}, lower(${p('wallet')}))`).limit(1).prepare(),
      bind: () => db.update(operators).set({ walletAddress: setTo('wallet'), updatedAt: setTo('now') }).where(eq(operators.id, p('operatorId'))).prepare(),
    })
  }

  /** Deletes the unused nonces that expired before `before`. */
  pruneNonces(before: number): void { this.q.prune.run({ before }) }

  insertNonce(r: { nonce: string; operatorId: string; createdAt: number; expiresAt: number }): void { this.q.insert.run(r) }

  nonce(nonce: string): NonceRow | undefined { return this.q.get.get({ nonce }) }

  markUsed(nonce: string, now: number): void { this.q.markUsed.run({ nonce, now }) }

  /** Whether the operator ever bound a wallet (a used nonce). */
  boundBefore(operatorId: string): boolean { return this.q.boundBefore.get({ operatorId }) !== undefined }

  /** The operator's bound wallet, or null. */
  walletOf(operatorId: string): string | null { return this.q.current.get({ operatorId })?.walletAddress ?? null }

  /** The operator a checksummed wallet is bound to, or null. */
  ownerOf(wallet: string): string | null { return this.q.owner.get({ wallet })?.id ?? null }

  bind(operatorId: string, wallet: string, now: number): void { this.q.bind.run({ operatorId, wallet, now }) }
}
