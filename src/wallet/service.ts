// Wallet binding (docs/money.md, "Wallet binding"): the operator asks for a single-use nonce, signs
// the EIP-712 `WalletBinding { wallet, operatorId, nonce }` under the domain { name: "TaskGate",
// version: "1", chainId } with the wallet, and posts the signature. The signature is verified
// before the transaction (viem's verifyTypedData is async); the nonce is then consumed, the wallet
// bound and the first-bind pioneer points awarded in one write transaction.
import { getAddress, verifyTypedData, type Hex } from 'viem'
import { CHAIN_IDS } from '../chain/signer'
import type { Clock } from '../clock'
import type { Config } from '../config'
import type { Transactor } from '../db/transactor'
import { badRequest, conflict, ProblemError } from '../http/errors'
import type { PioneerService } from '../pioneer/service'
import type { WalletRepository } from './repository'

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

export class WalletService {
  readonly domain: { name: 'TaskGate'; version: '1'; chainId: number }

  constructor(
    private repo: WalletRepository, private tx: Transactor, private clock: Clock,
    private pioneer: Pick<PioneerService, 'award'>, private config: Pick<Config, 'phase' | 'pioneer'>,
  ) {
    this.domain = { name: 'TaskGate', version: '1', chainId: CHAIN_IDS[config.phase] }
  }

  /** Issues a single-use nonce (10 minutes) and the typed data the wallet signs. */
  issueNonce(operatorId: string) {
    const now = this.clock.now()
    const nonce = crypto.randomUUID()
    const expiresAt = now + NONCE_TTL_MS
    this.tx.write(() => {
      this.repo.pruneNonces(now - NONCE_RETENTION_MS)
      this.repo.insertNonce({ nonce, operatorId, createdAt: now, expiresAt })
    })
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
    const row = this.repo.nonce(nonce)
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
      return this.tx.write(() => {
        const now = this.clock.now()
        this.checkNonce(operatorId, input.nonce, now) // again: another request may have used it meanwhile
        const owner = this.repo.ownerOf(wallet)
        if (owner && owner !== operatorId) throw conflict('WALLET_BOUND_ELSEWHERE', 'this wallet is bound to another operator')
        const firstBind = this.repo.walletOf(operatorId) == null && !this.repo.boundBefore(operatorId)
        this.repo.markUsed(input.nonce, now)
        this.repo.bind(operatorId, wallet, now)
        const pointsAwarded = firstBind ? this.pioneer.award(operatorId, 'wallet_bind', this.config.pioneer.walletBindPoints, `wallet_bind:${operatorId}`) : 0
        return { walletAddress: wallet, firstBind, pointsAwarded }
      })
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
    return this.repo.ownerOf(wallet)
  }
}
