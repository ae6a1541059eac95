// API keys (docs/foundation.md, "API keys"): shown once, stored as SHA-256 + first 4 / last 4
// characters. Lookups are cached until a write to the keys or operators table
// (src/keys/repository.ts), so a revocation is effective on the very next request.
import type { Clock } from '../clock'
import { isoOrNull } from '../clock'
import { TIER_LIMITS, type Tier } from '../config'
import { isStorageUnavailable, type StorageMonitor } from '../db/storage'
import type { Transactor } from '../db/transactor'
import { badRequest, forbidden, notFound } from '../http/errors'
import { newId, randomToken, sha256Hex } from '../lib/ids'
import type { OperatorRow } from '../operators/repository'
import type { ApiKeyRow, KeyRepository } from './repository'

export type { ApiKeyRow } from './repository'
export const KEY_SERVICE_PREFIX = 'tg_'
export const TEST_KEY_USES = 5

export const keyPrefixOf = (k: Pick<ApiKeyRow, 'first4' | 'last4'>) => `${k.first4}...${k.last4}`

export class KeyService {
  private pendingLastUsed = new Map<string, number>()
  private flushTimer: ReturnType<typeof setInterval> | undefined
  private storage: StorageMonitor | null = null

  constructor(private repo: KeyRepository, private tx: Transactor, private clock: Clock, private phase: 'testnet' | 'live') {}

  /** Starts the background flush of lastUsedAt (batched so the hot path never writes). */
  start(intervalMs = 1000, storage: StorageMonitor | null = null): void {
    this.storage = storage
    this.flushTimer = setInterval(() => this.flushLastUsed(), intervalMs)
    this.flushTimer.unref?.()
  }

  stop(): void {
    if (this.flushTimer) clearInterval(this.flushTimer)
    this.flushLastUsed()
  }

  /**
   * Writes the pending lastUsedAt values. On a full disk they stay pending for a later flush (the
   * timer's, or the next key listing's) and this returns false: it never fails a read.
   */
  flushLastUsed(): boolean {
    if (this.pendingLastUsed.size === 0 || this.storage?.full) return this.pendingLastUsed.size === 0
    const entries = [...this.pendingLastUsed]
    this.pendingLastUsed.clear()
    try {
      this.tx.write(() => { for (const [id, at] of entries) this.repo.touch(id, at) })
      return true
    } catch (e) {
      for (const [id, at] of entries) if (!this.pendingLastUsed.has(id)) this.pendingLastUsed.set(id, at) // newer uses win
      if (!isStorageUnavailable(e)) throw e
      this.storage?.markFull(e)
      return false
    }
  }

  generate(): string {
    return `${KEY_SERVICE_PREFIX}${this.phase === 'live' ? 'live' : 'test'}_${randomToken(24)}`
  }

  /** Whether this key exists and is not revoked. */
  isActive(keyId: string): boolean { return this.repo.isActive(keyId) }

  hasActiveKey(operatorId: string): boolean { return this.repo.hasActiveKey(operatorId) }

  /** Creates an operator key (counted against the tier's key limit) and returns the full key once. */
  createOperatorKey(operatorId: string, tier: Tier, input: { name: string; rateLimitRpm?: number }) {
    const limits = TIER_LIMITS[tier]
    const rpm = input.rateLimitRpm ?? limits.defaultRpm
    if (rpm > limits.maxRpm) throw badRequest('RATE_LIMIT_TOO_HIGH', `rateLimitRpm ${rpm} exceeds the ${tier} cap of ${limits.maxRpm}`, { maxRateLimitRpm: limits.maxRpm })
    return this.tx.write(() => {
      this.tx.lock(`limits:${operatorId}`) // replicas: one count-then-insert at a time per operator
      if (limits.keys !== null && this.repo.countOperatorKeys(operatorId) >= limits.keys) {
        throw forbidden('KEY_LIMIT_REACHED', `the ${tier} tier allows ${limits.keys} active keys; revoke one or upgrade`, { limit: limits.keys })
      }
      return this.insert(operatorId, { label: input.name, rateLimitRpm: rpm })
    })
  }

  /** Inserts a key row; callers own the transaction and the limit checks. */
  insert(operatorId: string, o: { label: string | null; rateLimitRpm: number; agentId?: string; isTestKey?: boolean }) {
    const key = this.generate()
    const row = this.repo.insert({
      id: newId('key'), operatorId, agentId: o.agentId ?? null, label: o.label,
      keyHash: sha256Hex(key), first4: key.slice(0, 4), last4: key.slice(-4),
      rateLimitRpm: o.rateLimitRpm, isTestKey: o.isTestKey ?? false,
      testUsesRemaining: o.isTestKey ? TEST_KEY_USES : null, createdAt: this.clock.now(),
    })
    return { key, row }
  }

  /**
   * Takes one use of the operator's diagnostic test key (created on first use, not counted in the
   * tier's key limit). Call inside the transaction that records the use.
   */
  consumeTestUse(operatorId: string, rateLimitRpm: number): ApiKeyRow {
    const key = this.repo.testKey(operatorId) ?? this.insert(operatorId, { label: 'diagnostic test key', rateLimitRpm, isTestKey: true }).row
    if ((key.testUsesRemaining ?? 0) <= 0) throw forbidden('TEST_KEY_EXHAUSTED', `the diagnostic test key has no uses left (${TEST_KEY_USES} per operator)`)
    this.repo.takeTestUse(key.id, this.clock.now())
    return { ...key, testUsesRemaining: key.testUsesRemaining! - 1 }
  }

  list(operatorId: string): ApiKeyRow[] {
    this.flushLastUsed()
    return this.repo.list(operatorId)
  }

  revoke(operatorId: string, keyId: string): void {
    if (!this.repo.revoke(operatorId, keyId, this.clock.now())) throw notFound('API key')
  }

  /** Revokes a key by id, if live (an archived agent's key; inside the caller's transaction). */
  revokeById(keyId: string, at: number): void { this.repo.revokeById(keyId, at) }

  /** Resolves a presented key to its live row and operator, or null. */
  resolve(presented: string): { key: ApiKeyRow; operator: OperatorRow } | null {
    if (presented.length < 12 || presented.length > 128 || !presented.startsWith(KEY_SERVICE_PREFIX)) return null
    return this.repo.resolve(sha256Hex(presented))
  }

  touch(keyId: string): void { this.pendingLastUsed.set(keyId, this.clock.now()) }
}

export function keyRecord(k: ApiKeyRow) {
  return {
    id: k.id,
    label: k.label,
    keyPrefix: keyPrefixOf(k),
    rateLimitRpm: k.rateLimitRpm,
    lastUsedAt: isoOrNull(k.lastUsedAt),
    createdAt: new Date(k.createdAt).toISOString(),
    isTestKey: k.isTestKey,
    testUsesRemaining: k.isTestKey ? k.testUsesRemaining : null,
    agentId: k.agentId,
  }
}

export function keyPreview(k: ApiKeyRow) {
  return { id: k.id, name: k.label, preview: keyPrefixOf(k), createdAt: new Date(k.createdAt).toISOString(), lastUsedAt: isoOrNull(k.lastUsedAt) }
}
