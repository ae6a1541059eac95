// Sliding-window rate limiter (weighted two-window counter, as Cloudflare and most gateways use):
// the count in the previous fixed window is weighted by how much of it still overlaps the sliding
// window. O(1) state per key (see docs/foundation.md), in memory or, in PostgreSQL mode, in the
// database (WindowStore). All timing reads the service clock.
import type { Clock } from '../clock'

export interface RateDecision {
  allowed: boolean
  limit: number
  remaining: number
  /** seconds until one more request would be allowed (0 when allowed) */
  retryAfter: number
  /** seconds until the window fully resets */
  reset: number
}

export interface Window { start: number; prev: number; curr: number }

/**
 * Where a limiter's windows live: this process's memory (MemoryWindows), or, in PostgreSQL mode,
 * the database, so that replicas count together (src/http/rate-windows.ts).
 */
export interface WindowStore {
  /** Changes the key's window (undefined: none yet) as `fn` says, atomically per key, and answers what `fn` answers. `window: null` removes it. */
  update<T>(key: string, fn: (w: Window | undefined) => { window: Window | null; answer: T }): T
  /** The key's window as stored. */
  get(key: string): Window | undefined
  /** Forgets the windows that started at or before `before`. */
  sweep(before: number): void
}

export class MemoryWindows implements WindowStore {
  private windows = new Map<string, Window>()
  update<T>(key: string, fn: (w: Window | undefined) => { window: Window | null; answer: T }): T {
    const { window, answer } = fn(this.windows.get(key))
    if (window) this.windows.set(key, window)
    else this.windows.delete(key)
    return answer
  }
  get(key: string): Window | undefined { return this.windows.get(key) }
  sweep(before: number): void { for (const [k, w] of this.windows) if (w.start <= before) this.windows.delete(k) }
  has(key: string): boolean { return this.windows.has(key) }
  /** Keys held (the memory a limiter uses). */
  get size(): number { return this.windows.size }
}

export class SlidingWindowLimiter {
  private sweepAt = 0

  constructor(private clock: Clock, private windowMs = 60_000, private store: WindowStore = new MemoryWindows()) {}

  /** Counts one request for `key` against `limit` per window, if allowed. */
  hit(key: string, limit: number): RateDecision {
    const now = this.clock.now()
    this.sweep(now)
    return this.store.update(key, (stored) => {
      const w = this.roll(stored, now)
      const d = this.decide(w, limit, now)
      if (d.allowed) w.curr++
      return { window: w, answer: d }
    })
  }

  /** The decision hit() would make, without counting (with add(): check several keys, then count them all). */
  peek(key: string, limit: number): RateDecision {
    const now = this.clock.now()
    // A key never counted is not stored: refused callers cannot fill the store by peeking.
    const d = this.decide(this.roll(this.store.get(key), now), limit, now)
    return d.allowed ? { ...d, remaining: d.remaining + 1 } : d // nothing counted: one more remains
  }

  private decide(w: Window, limit: number, now: number): RateDecision {
    const elapsed = (now - w.start) / this.windowMs
    const estimate = w.prev * (1 - elapsed) + w.curr
    const reset = Math.max(1, Math.ceil((w.start + this.windowMs - now) / 1000))
    if (estimate + 1 <= limit) return { allowed: true, limit, remaining: Math.max(0, Math.floor(limit - estimate - 1)), retryAfter: 0, reset }
    // Earliest time at which estimate + 1 <= limit again.
    let at: number
    if (w.curr + 1 <= limit) at = w.start + (1 - (limit - 1 - w.curr) / w.prev) * this.windowMs // prev decays within this window
    else at = w.start + this.windowMs * (2 - (limit - 1) / w.curr) // this window becomes the previous one and must decay
    return { allowed: false, limit, remaining: 0, retryAfter: Math.max(1, Math.ceil((at - now) / 1000)), reset }
  }

  /** Counts one for `key` unconditionally (use peek() first to honour a limit). */
  add(key: string): void {
    const now = this.clock.now()
    this.sweep(now)
    this.store.update(key, (stored) => { const w = this.roll(stored, now); w.curr++; return { window: w, answer: undefined } })
  }
  reset(key: string): void { this.store.update(key, () => ({ window: null, answer: undefined })) }

  /**
   * Takes back one count made by hit() or add() at clock time `countedAt` (default: now), e.g. a
   * reserved failure slot whose attempt turned out to succeed. If the window has rolled since, the
   * count is taken from the previous window; once that is gone too there is nothing to take back.
   * Never goes below zero.
   */
  release(key: string, countedAt = this.clock.now()): void {
    this.store.update(key, (stored) => {
      if (!stored) return { window: null, answer: undefined }
      const w = this.roll(stored, this.clock.now())
      const countedStart = countedAt - (countedAt % this.windowMs)
      if (countedStart === w.start) w.curr = Math.max(0, w.curr - 1)
      else if (countedStart === w.start - this.windowMs) w.prev = Math.max(0, w.prev - 1)
      return { window: w, answer: undefined }
    })
  }

  /** The window length in seconds (for the `RateLimit-Policy` header). */
  get windowSeconds(): number { return Math.round(this.windowMs / 1000) }

  /** The key's window as of `now` (a new object: the store keeps what update() returns). */
  private roll(stored: Window | undefined, now: number): Window {
    const start = now - (now % this.windowMs)
    if (!stored) return { start, prev: 0, curr: 0 }
    if (stored.start === start) return { ...stored }
    return { start, prev: start - stored.start === this.windowMs ? stored.curr : 0, curr: 0 }
  }

  private sweep(now: number): void {
    if (now < this.sweepAt) return
    this.sweepAt = now + this.windowMs
    this.store.sweep(now - 2 * this.windowMs)
  }
}

export function rateLimitHeaders(d: RateDecision, windowS = 60): Record<string, string> {
  const h: Record<string, string> = {}
  setRateLimitHeaders(h, d, windowS)
  return h
}

/** The same headers written into a response's own header object (no copy per request). */
export function setRateLimitHeaders(into: Record<string, string | number>, d: RateDecision, windowS = 60): void {
  into['ratelimit-limit'] = String(d.limit)
  into['ratelimit-remaining'] = String(d.remaining)
  into['ratelimit-reset'] = String(d.reset)
  into['ratelimit-policy'] = `${d.limit};w=${windowS}`
  if (!d.allowed) into['retry-after'] = String(d.retryAfter)
}
