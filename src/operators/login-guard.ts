// Brute-force guard for sign-in and sign-up (docs/foundation.md, "Logins").
//
// Sign-in: every attempt reserves one failure slot in three scopes before the password is checked,
// and gives it back when the password turns out right. Checking all scopes and counting in all of
// them happens in one synchronous call, so (JavaScript being single-threaded) parallel guesses
// cannot all see the same budget: of 300 parallel guesses for one login from one address, 10 reach
// the password check and 290 get 429. Scopes, per sliding 15 minutes:
//   - one login from one client address   (failuresPerLoginAddress, default 10)
//   - one login from all addresses         (failuresPerLogin, default 100)
//   - one client address, any login        (failuresPerAddress, default 30)
// Past a limit every attempt in that scope gets 429, the right password included; `taskgate token`
// is the way back in. A success only gives back its own slot: it never wipes what others counted.
//
// Sign-up: each attempt reserves one slot per client address per sliding hour
// (signupsPerAddressPerHour, default 10) and gives it back unless the account was created, so only
// accepted sign-ups count.
//
// Refused attempts (429) count nothing; requests refused by validation (400) never get here or give
// their slot back.
import type { Clock } from '../clock'
import { ProblemError } from '../http/errors'
import type { ProblemCode } from '../http/problem-codes'
import { MemoryWindows, rateLimitHeaders, SlidingWindowLimiter, type RateDecision, type WindowStore } from '../http/ratelimit'

export interface LoginLimits {
  failuresPerLoginAddress: number
  failuresPerLogin: number
  failuresPerAddress: number
  signupsPerAddressPerHour: number
}

export const LOGIN_WINDOW_MS = 15 * 60_000
export const SIGNUP_WINDOW_MS = 60 * 60_000

/** A counted attempt. release() takes it back; calling it again does nothing. */
export interface Reservation { release(): void }

type Scope = readonly [key: string, limit: number]

export class LoginGuard {
  private failures: SlidingWindowLimiter
  private signups: SlidingWindowLimiter

  /** `windows`: where the counts live, by limiter name (PostgreSQL mode: the database, shared by the replicas). */
  constructor(private clock: Clock, private limits: LoginLimits, windows: (name: string) => WindowStore = () => new MemoryWindows()) {
    this.failures = new SlidingWindowLimiter(clock, LOGIN_WINDOW_MS, windows('login-failures'))
    this.signups = new SlidingWindowLimiter(clock, SIGNUP_WINDOW_MS, windows('signups'))
  }

  /**
   * Reserves one failed sign-in for `login` (already normalized) from `ip` in all three scopes, or
   * throws 429 TOO_MANY_LOGIN_ATTEMPTS without counting anything. Release it on success.
   */
  reserveLogin(login: string, ip: string): Reservation {
    const l = this.limits
    return this.reserve(this.failures, [
      [`login-addr:${login}\n${ip}`, l.failuresPerLoginAddress],
      [`login:${login}`, l.failuresPerLogin],
      [`addr:${ip}`, l.failuresPerAddress],
    ], 'TOO_MANY_LOGIN_ATTEMPTS', 'too many failed sign-in attempts; try again later (an administrator can mint a token with `taskgate token --login <login>`)')
  }

  /** Reserves one sign-up from `ip`, or throws 429 SIGNUP_RATE_LIMITED. Release it unless the account was created. */
  reserveSignup(ip: string): Reservation {
    return this.reserve(this.signups, [[`signup:${ip}`, this.limits.signupsPerAddressPerHour]],
      'SIGNUP_RATE_LIMITED', 'too many sign-ups from this address; try again later')
  }

  /** Checks every scope, then counts in every scope: one synchronous step, so nothing interleaves. */
  private reserve(limiter: SlidingWindowLimiter, scopes: Scope[], code: ProblemCode, detail: string): Reservation {
    let refused: RateDecision | null = null
    for (const [key, limit] of scopes) {
      const d = limiter.peek(key, Math.max(1, limit))
      // Allowed again only when every exhausted scope has room: report the longest wait.
      if (!d.allowed && (!refused || d.retryAfter > refused.retryAfter)) refused = d
    }
    if (refused) {
      throw new ProblemError(429, code, detail, { retryAfterSeconds: refused.retryAfter }, rateLimitHeaders(refused, limiter.windowSeconds))
    }
    const countedAt = this.clock.now()
    for (const [key] of scopes) limiter.add(key)
    let released = false
    return {
      release: () => {
        if (released) return
        released = true
        for (const [key] of scopes) limiter.release(key, countedAt)
      },
    }
  }
}
