// Sliding-window rate limiter (weighted two-window counter, as Cloudflare and most gateways use):
// the count in the previous fixed window is weighted by how much of it still overlaps the sliding
// window. Memory is O(1) per key; the error bound versus an exact log is documented in
// docs/rate-limits.md. All timing reads the service clock.
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
    const elapsed = (now - w.start) / this.windowMs
    const estimate = w.prev * (1 - elapsed) + w.curr
    const resetS = Math.ceil((w.start + this.windowMs - now) / 1000)
    if (estimate + 1 > limit) {
      // Time until the weighted previous window has decayed enough for one more request.
      let wait = w.start + this.windowMs - now
      if (w.prev > 0 && w.curr + 1 <= limit) {
        const needElapsed = 1 - (limit - 1 - w.curr) / w.prev
        wait = Math.max(0, w.start + needElapsed * this.windowMs - now)
      }
      return { allowed: false, limit, remaining: 0, retryAfter: Math.max(1, Math.ceil(wait / 1000)), reset: Math.max(1, resetS) }
    }
    w.curr++
    return { allowed: true, limit, remaining: Math.max(0, Math.floor(limit - estimate - 1)), retryAfter: 0, reset: Math.max(1, resetS) }
  }

  /** Reads the current state for `key` without counting a request (used with add() for failed logins). */
  peek(key: string, limit: number): RateDecision {
    const now = this.clock.now()
    const w = this.roll(key, now)
    const estimate = w.prev * (1 - (now - w.start) / this.windowMs) + w.curr
    const retry = Math.max(1, Math.ceil((w.start + this.windowMs - now) / 1000))
    return { allowed: estimate < limit, limit, remaining: Math.max(0, Math.floor(limit - estimate)), retryAfter: estimate < limit ? 0 : retry, reset: retry }
  }

  add(key: string): void { this.roll(key, this.clock.now()).curr++ }
  reset(key: string): void { this.windows.delete(key) }

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
  const h: Record<string, string> = {
    'ratelimit-limit': String(d.limit),
    'ratelimit-remaining': String(d.remaining),
    'ratelimit-reset': String(d.reset),
    'ratelimit-policy': `${d.limit};w=${windowS}`,
  }
  if (!d.allowed) h['retry-after'] = String(d.retryAfter)
  return h
}
