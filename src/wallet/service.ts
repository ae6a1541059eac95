// Wallet binding (docs/money.md, "Wallet binding"): the operator asks for a single-use nonce, signs
// the EIP-712 `WalletBinding { wallet, operatorId, nonce }` under the domain { name: "TaskGate",
// version: "1", chainId } with the wallet, and posts the signature. The signature is verified
// before the transaction (viem's verifyTypedData is async); the nonce is then consumed, the wallet
// bound and the first-bind pioneer points awarded in one synchronous SQLite transaction.
import type { Database } from 'bun:sqlite'
import { getAddress, verifyTypedData, type Hex } from 'viem'
import { CHAIN_IDS } from '../chain/signer'
import type { Clock } from '../clock'
import type { Config } from '../config'
import { badRequest, conflict, ProblemError } from '../http/errors'
import type { PioneerService } from '../pioneer/service'

export const NONCE_TTL_MS = 10 * 60 * 1000
/** Unused nonces are deleted this long after they expired (until then they answer NONCE_EXPIRED). Used ones are kept: they are the bind history. */
export const NONCE_RETENTION_MS = 24 * 60 * 60 * 1000

export const WALLET_BINDING_TYPES = {
  WalletBinding: [
    { name: 'wallet', type: 'address' },
    { name: 'operatorId', type: 'string' },
    { name: 'nonce', type: 'string' },
  ],
} as const

interface NonceRow { nonce: string; operatorId: string; createdAt: number; expiresAt: number; usedAt: number | null }

export class WalletService {
  readonly domain: { name: 'TaskGate'; version: '1'; chainId: number }
  private q

  constructor(private db: Database, private clock: Clock, private pioneer: PioneerService, private config: Pick<Config, 'phase' | 'pioneer'>) {
    this.domain = { name: 'TaskGate', version: '1', chainId: CHAIN_IDS[config.phase] }
    this.q = {
      insert: db.prepare('INSERT INTO wallet_nonces (nonce, operator_id, created_at, expires_at) VALUES (?1, ?2, ?3, ?4)'),
      prune: db.prepare('DELETE FROM wallet_nonces WHERE used_at IS NULL AND expires_at < ?1'),
      get: db.prepare('SELECT nonce, operator_id AS operatorId, created_at AS createdAt, expires_at AS expiresAt, used_at AS usedAt FROM wallet_nonces WHERE nonce = ?1'),
      markUsed: db.prepare('UPDATE wallet_nonces SET used_at = ?2 WHERE nonce = ?1 AND used_at IS NULL'),
      boundBefore: db.prepare('SELECT 1 FROM wallet_nonces WHERE operator_id = ?1 AND used_at IS NOT NULL LIMIT 1'),
      current: db.prepare('SELECT wallet_address AS walletAddress FROM operators WHERE id = ?1'),
      // ?1 is checksummed (how binds store it); the lower-case form too, should anything else write one. Both use the unique index.
      owner: db.prepare('SELECT id FROM operators WHERE wallet_address IN (?1, lower(?1)) LIMIT 1'),
      bind: db.prepare('UPDATE operators SET wallet_address = ?2, updated_at = ?3 WHERE id = ?1'),
    }
  }

  /** Issues a single-use nonce (10 minutes) and the typed data the wallet signs. */
  issueNonce(operatorId: string) {
    const now = this.clock.now()
    const nonce = crypto.randomUUID()
    const expiresAt = now + NONCE_TTL_MS
    this.db.transaction(() => {
      this.q.prune.run(now - NONCE_RETENTION_MS)
      this.q.insert.run(nonce, operatorId, now, expiresAt)
    }).immediate()
    const domain = { ...this.domain }
    return {
      nonce, operatorId, domain, chainId: domain.chainId, expiresAt: new Date(expiresAt).toISOString(),
      typedData: {
        domain,
        types: { WalletBinding: WALLET_BINDING_TYPES.WalletBinding.map((f) => ({ ...f })) },
        primaryType: 'WalletBinding' as const,
        message: { operatorId, nonce },
      },
    }
  }

  /** Checks a nonce for this operator; throws the pinned problem. */
  private checkNonce(operatorId: string, nonce: string, now: number): void {
    const row = this.q.get.get(nonce) as NonceRow | null
    // Another operator's nonce is indistinguishable from an unknown one (no probing).
    if (!row || row.operatorId !== operatorId) throw badRequest('INVALID_NONCE', 'unknown nonce: request one from GET /api/v1/operator/wallet/nonce')
    if (row.usedAt != null) throw conflict('NONCE_USED', 'this nonce was already used; request a new one')
    if (now >= row.expiresAt) throw badRequest('NONCE_EXPIRED', 'this nonce expired (10 minutes); request a new one')
  }

  /** Verifies the wallet's EIP-712 signature and binds the wallet to the operator. */
  async bind(operatorId: string, input: { walletAddress: string; signature: string; nonce: string }) {
    const wallet = getAddress(input.walletAddress.toLowerCase())
    this.checkNonce(operatorId, input.nonce, this.clock.now()) // cheap checks before the signature
    const valid = await verifyTypedData({
      address: wallet, domain: this.domain, types: WALLET_BINDING_TYPES, primaryType: 'WalletBinding',
      message: { wallet, operatorId, nonce: input.nonce }, signature: input.signature as Hex,
    }).catch(() => false)
    if (!valid) throw badRequest('INVALID_SIGNATURE', 'the signature is not a WalletBinding signature of this wallet for this operator and nonce')

    try {
      return this.db.transaction(() => {
        const now = this.clock.now()
        this.checkNonce(operatorId, input.nonce, now) // again: another request may have used it meanwhile
        const owner = this.q.owner.get(wallet) as { id: string } | null
        if (owner && owner.id !== operatorId) throw conflict('WALLET_BOUND_ELSEWHERE', 'this wallet is bound to another operator')
        const current = (this.q.current.get(operatorId) as { walletAddress: string | null } | null)?.walletAddress ?? null
        const firstBind = current == null && this.q.boundBefore.get(operatorId) == null
        this.q.markUsed.run(input.nonce, now)
        this.q.bind.run(operatorId, wallet, now)
        const pointsAwarded = firstBind ? this.pioneer.award(operatorId, 'wallet_bind', this.config.pioneer.walletBindPoints, `wallet_bind:${operatorId}`) : 0
        return { walletAddress: wallet, firstBind, pointsAwarded }
      }).immediate()
    } catch (e) {
      // The unique index is the last line of defence against a concurrent bind of the same wallet.
      if (!(e instanceof ProblemError) && String((e as { code?: string }).code ?? '').startsWith('SQLITE_CONSTRAINT')) {
        throw conflict('WALLET_BOUND_ELSEWHERE', 'this wallet is bound to another operator')
      }
      throw e
    }
  }

  /** The operator a wallet is bound to (any letter case), or null. For the faucet and payments. */
  operatorOf(address: string): string | null {
    let wallet: string
    try { wallet = getAddress(address.toLowerCase()) } catch { return null }
    return (this.q.owner.get(wallet) as { id: string } | null)?.id ?? null
  }
}
