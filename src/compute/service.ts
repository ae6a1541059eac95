// Compute: the provider registry, the key pool (per-key RPM and concurrency, cooldown on 429/5xx,
// retry on another key, timeouts) and the overflow queue for work that finds the pool full.
import type { Clock } from '../clock'
import { conflict, notFound, ProblemError } from '../http/errors'
import { MemoryWindows, SlidingWindowLimiter, type WindowStore } from '../http/ratelimit'
import { newId } from '../lib/ids'
import type { Logger } from '../log'
import { seal, unseal } from '../secrets'
import { builtinComplete } from './providers/builtin'
import { remoteComplete } from './providers/remote'
import { ProviderError, type CompletionRequest, type CompletionResult } from './types'
import type { Transactor } from '../db/transactor'
import type { ComputeRepository } from './repository'

export const MAX_ATTEMPTS = 3
const COOLDOWN_MS = 30_000

interface PoolKey { id: string; secret: string; first4: string; last4: string; rpm: number; concurrency: number; inflight: number; cooldownUntil: number }
export interface Provider { id: string; name: string; kind: 'openai' | 'anthropic' | 'builtin'; baseUrl: string | null; models: string[]; keys: PoolKey[]; createdAt: number }

/** Short secrets are not shown at all; long ones as first 4 … last 4. */
const maskSecret = (k: { secret: string; first4: string; last4: string }) => (k.secret.length >= 16 ? `${k.first4}...${k.last4}` : '****')

export class ComputeFailed extends Error {
  constructor(message: string, public attempts: number) { super(message) }
}

/**
 * A provider call started before its task's admission commits (PipelineRunner.admit), so the
 * request travels while the admission's COMMIT is written; the task's stage 3 takes its answer as
 * its first attempt (tryRun), and only once the admission has committed. The call holds its key's
 * slot until it settles, whoever awaits it. `abort()` ends a call whose admission did not commit.
 */
export interface StartedCall { key: PoolKey; call: Promise<CompletionResult>; startedAt: number; abort(): void }

export interface NewProvider { name: string; kind: Provider['kind']; baseUrl?: string; models: string[]; keys?: { key: string; rpm?: number; concurrency?: number }[] }

export class ComputeService {
  private providers = new Map<string, Provider>()
  private byModel = new Map<string, Provider>()
  private limiter: SlidingWindowLimiter
  private capacityListeners = new Set<() => void>()

  /** `windows`: where the keys' rpm counts live (PostgreSQL mode: the database, shared by the replicas). */
  constructor(private repo: ComputeRepository, private tx: Transactor, private clock: Clock, private log: Logger, private timeoutMs: number, private dataKey: Buffer, windows: WindowStore = new MemoryWindows()) {
    this.limiter = new SlidingWindowLimiter(clock, 60_000, windows)
    this.load()
  }

  /** Loads providers from the database; a fresh install gets the builtin provider. */
  load(): void {
    if (!this.repo.hasBuiltinProvider()) {
      this.repo.insertProvider({ id: 'prov_builtin', name: 'builtin', kind: 'builtin', baseUrl: null, models: ['builtin'], createdAt: this.clock.now() })
    }
    const old = this.providers
    this.providers = new Map()
    this.byModel = new Map()
    for (const p of this.repo.providers()) {
      // Existing key objects are updated in place: calls in flight hold them and release into them.
      const keys = this.repo.keysOf(p.id)
        .map((k) => {
          const prev = old.get(p.id)?.keys.find((x) => x.id === k.id)
          const live = { ...k, secret: unseal(this.dataKey, k.secret) } // stored sealed (AES-GCM), held in memory in clear
          return prev ? Object.assign(prev, live) : { ...live, inflight: 0, cooldownUntil: 0 }
        })
      const provider: Provider = { ...p, models: JSON.parse(p.models), keys }
      this.providers.set(p.id, provider)
      for (const m of provider.models) this.byModel.set(m, provider)
    }
  }

  resolveModel(model: string): Provider | null { return this.byModel.get(model) ?? null }
  modelExists = (model: string): boolean => this.byModel.has(model)

  list(): Provider[] { return [...this.providers.values()] }

  view(p: Provider) {
    const now = this.clock.now()
    return {
      id: p.id, name: p.name, kind: p.kind, baseUrl: p.baseUrl, models: p.models,
      keys: p.keys.map((k) => ({ id: k.id, keyPrefix: maskSecret(k), rpm: k.rpm, concurrency: k.concurrency, inflight: k.inflight, state: k.cooldownUntil > now ? 'cooldown' : k.inflight >= k.concurrency ? 'busy' : 'ready' })),
    }
  }

  create(input: NewProvider): Provider {
    const keys = input.keys ?? []
    if (input.kind !== 'builtin' && keys.length === 0) throw new ProblemError(400, 'PROVIDER_KEYS_REQUIRED', `a ${input.kind} provider needs at least one key`)
    if (input.kind === 'builtin') throw new ProblemError(400, 'BUILTIN_PROVIDER_EXISTS', 'the builtin provider is always present')
    if (input.baseUrl && !/^https?:\/\//.test(input.baseUrl)) throw new ProblemError(400, 'INVALID_BASE_URL', 'baseUrl must be an http(s) URL')
    const id = newId('prov')
    const now = this.clock.now()
    this.tx.write(() => {
      if (this.repo.providerNamed(input.name)) throw conflict('PROVIDER_NAME_TAKEN', `a provider named ${input.name} exists`)
      for (const m of input.models) if (this.byModel.has(m)) throw conflict('MODEL_TAKEN', `model ${m} is already served by provider ${this.byModel.get(m)!.name}`)
      this.repo.insertProvider({ id, name: input.name, kind: input.kind, baseUrl: input.baseUrl ?? null, models: input.models, createdAt: now })
      for (const [position, k] of keys.entries()) {
        this.repo.insertKey({ id: newId('pkey'), providerId: id, secret: seal(this.dataKey, k.key), first4: k.key.slice(0, 4), last4: k.key.slice(-4), rpm: k.rpm ?? 60, concurrency: k.concurrency ?? 4, createdAt: now, position })
      }
    })
    this.load()
    this.notifyCapacity()
    return this.providers.get(id)!
  }

  remove(id: string): void {
    const p = this.providers.get(id)
    if (!p) throw notFound('provider')
    if (p.kind === 'builtin') throw conflict('BUILTIN_PROVIDER', 'the builtin provider cannot be removed')
    this.repo.deleteProvider(id)
    this.load()
    this.notifyCapacity() // lets the overflow queue fail (and refund) jobs nobody can serve now
  }

  /** Whether some key of the model's pool could take a call right now. */
  hasCapacity(model: string): boolean {
    const p = this.resolveModel(model)
    if (!p) return false
    if (p.kind === 'builtin') return true
    const now = this.clock.now()
    return p.keys.some((k) => k.cooldownUntil <= now && k.inflight < k.concurrency && this.limiter.peek(`pkey:${k.id}`, k.rpm).allowed)
  }

  onCapacity(fn: () => void): () => void {
    this.capacityListeners.add(fn)
    return () => this.capacityListeners.delete(fn)
  }

  private notifyCapacity(): void { for (const fn of this.capacityListeners) fn() }

  /**
   * Starts a remote completion on a free key of the model's pool without waiting for it (see
   * StartedCall); null for the builtin provider, an unknown model, or a pool with no free key
   * (then tryRun decides, as for any task).
   */
  start(req: CompletionRequest): StartedCall | null {
    const p = this.resolveModel(req.model)
    if (!p || p.kind === 'builtin') return null
    const key = this.acquire(p, new Set())
    if (!key) return null
    const abort = new AbortController()
    const startedAt = this.clock.now()
    return { key, call: this.callOn(p, key, req, abort.signal), startedAt, abort: () => abort.abort() }
  }

  /** The builtin provider's completion, computed here and now; null when the model is served by a remote provider (tryRun). */
  runNow(req: CompletionRequest): CompletionResult | null {
    return this.servedBy(req.model).kind === 'builtin' ? builtinComplete(req) : null
  }

  /** The provider of a model, or 400 UNKNOWN_MODEL. */
  private servedBy(model: string): Provider {
    const p = this.resolveModel(model)
    if (!p) throw new ProblemError(400, 'UNKNOWN_MODEL', `no provider serves model ${model}`)
    return p
  }

  /**
   * Runs a completion now, or returns 'busy' when no key of the pool has capacity. Retryable
   * failures (429, 5xx, timeouts) cool the key down and retry on another key, at most
   * MAX_ATTEMPTS attempts; then ComputeFailed. `started`: the first attempt, already under way.
   */
  async tryRun(req: CompletionRequest, started?: StartedCall): Promise<CompletionResult | 'busy'> {
    const p = this.servedBy(req.model)
    if (p.kind === 'builtin') return builtinComplete(req)
    const tried = new Set<string>()
    let lastError = 'no key available'
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const first = attempt === 1 && started && p.keys.includes(started.key) ? started : null
      // A retry waits (up to the provider timeout) for another key that is only busy, not cooling down.
      const key = first ? first.key : attempt === 1 ? this.acquire(p, tried) : await this.waitForKey(p, tried, Date.now() + this.timeoutMs)
      if (!key) {
        if (attempt === 1) return 'busy'
        break
      }
      tried.add(key.id)
      try {
        return await (first ? first.call : this.callOn(p, key, req))
      } catch (e) {
        const err = e instanceof ProviderError ? e : new ProviderError(String(e), false)
        lastError = err.message
        if (err.retryable) {
          key.cooldownUntil = this.clock.now() + (err.retryAfterMs ?? COOLDOWN_MS)
          this.log.warn({ provider: p.name, keyId: key.id, status: err.status, attempt }, 'provider key cooling down')
        } else break
      }
    }
    throw new ComputeFailed(lastError, tried.size)
  }

  /** One call on an acquired key; the key's slot is released when it settles. */
  private callOn(p: Provider, key: PoolKey, req: CompletionRequest, abort?: AbortSignal): Promise<CompletionResult> {
    const call = remoteComplete(p.kind as 'openai' | 'anthropic', p.baseUrl, key.secret, req, this.timeoutMs, abort)
      .then((r) => ({ ...r, provider: p.name, keyId: key.id }))
      .finally(() => { key.inflight--; this.notifyCapacity() })
    call.catch(() => {}) // a started call nobody takes (its admission rolled back) must not be an unhandled rejection
    return call
  }

  private async waitForKey(p: Provider, tried: Set<string>, deadline: number): Promise<PoolKey | null> {
    for (;;) {
      const key = this.acquire(p, tried)
      if (key) return key
      const now = this.clock.now()
      if (!p.keys.some((k) => !tried.has(k.id) && k.cooldownUntil <= now)) return null // the rest are cooling down
      const left = deadline - Date.now()
      if (left <= 0) return null
      await new Promise<void>((resolve) => {
        const done = () => { off(); clearTimeout(timer); resolve() }
        const off = this.onCapacity(done)
        const timer = setTimeout(done, Math.min(250, left)) // rpm windows free up with time, not events
      })
    }
  }

  private acquire(p: Provider, exclude: Set<string>): PoolKey | null {
    const now = this.clock.now()
    for (const k of p.keys) {
      if (exclude.has(k.id) || k.cooldownUntil > now || k.inflight >= k.concurrency) continue
      if (!this.limiter.hit(`pkey:${k.id}`, k.rpm).allowed) continue
      k.inflight++
      return k
    }
    return null
  }
}
