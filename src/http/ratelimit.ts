// Sliding-window rate limiter (weighted two-window counter, as Cloudflare and most gateways use):
// the count in the previous fixed window is weighted by how much of it still overlaps the sliding
// window. Memory is O(1) per key (see docs/foundation.md). All timing reads the service clock.
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

interface Window { start: number; prev: number; curr: number }

export class SlidingWindowLimiter {
  private windows = new Map<string, Window>()
  private sweepAt = 0

  constructor(private clock: Clock, private windowMs = 60_000) {}

  /** Counts one request for `key` against `limit` per window, if allowed. */
  hit(key: string, limit: number): RateDecision {
    const now = this.clock.now()
    this.sweep(now)
    const w = this.roll(key, now)
    const d = this.decide(w, limit, now)
    if (d.allowed) w.curr++
    return d
  }

  /** The decision hit() would make, without counting (with add(): check several keys, then count them all). */
  peek(key: string, limit: number): RateDecision {
    const now = this.clock.now()
    // A key never counted is not stored: refused callers cannot fill the map by peeking.
    const w = this.windows.has(key) ? this.roll(key, now) : { start: now - (now % this.windowMs), prev: 0, curr: 0 }
    const d = this.decide(w, limit, now)
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
    this.roll(key, now).curr++
  }
  reset(key: string): void { this.windows.delete(key) }

  /**
   * Takes back one count made by hit() or add() at clock time `countedAt` (default: now), e.g. a
   * reserved failure slot whose attempt turned out to succeed. If the window has rolled since, the
   * count is taken from the previous window; once that is gone too there is nothing to take back.
   * Never goes below zero.
   */
  release(key: string, countedAt = this.clock.now()): void {
    if (!this.windows.has(key)) return
    const w = this.roll(key, this.clock.now())
    const countedStart = countedAt - (countedAt % this.windowMs)
    if (countedStart === w.start) w.curr = Math.max(0, w.curr - 1)
    else if (countedStart === w.start - this.windowMs) w.prev = Math.max(0, w.prev - 1)
  }

  /** The window length in seconds (for the `RateLimit-Policy` header). */
  get windowSeconds(): number { return Math.round(this.windowMs / 1000) }

  private roll(key: string, now: number): Window {
    const start = now - (now % this.windowMs)
    let w = this.windows.get(key)
    if (!w) { w = { start, prev: 0, curr: 0 }; this.windows.set(key, w); return w }
    if (w.start !== start) {
      w.prev = start - w.start === this.windowMs ? w.curr : 0
      w.curr = 0
      w.start = start
    }
    return w
  }

  private sweep(now: number): void {
    if (now < this.sweepAt) return
    this.sweepAt = now + this.windowMs
    for (const [k, w] of this.windows) if (now - w.start >= 2 * this.windowMs) this.windows.delete(k)
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
