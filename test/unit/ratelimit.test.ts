// src/http/ratelimit.ts: weighted two-window sliding limiter on the service Clock.
// Windows are aligned to absolute time (start = now - now % windowMs), so the wall clock is pinned
// to a window boundary with setSystemTime and every move in time goes through clock.advance().
import { afterEach, beforeEach, describe, expect, setSystemTime, test } from 'bun:test'
import { Clock } from '../../src/clock'
import { rateLimitHeaders, MemoryWindows, SlidingWindowLimiter, type RateDecision } from '../../src/http/ratelimit'

const W = 60_000
const T0 = 1_800_000_000_000 // a multiple of W: the start of a window
expect(T0 % W).toBe(0)

let clock: Clock
let rl: SlidingWindowLimiter
/** The limiter's windows (this process's memory, as on SQLite). */
let store: MemoryWindows
beforeEach(() => {
  setSystemTime(new Date(T0))
  clock = new Clock()
  store = new MemoryWindows()
  rl = new SlidingWindowLimiter(clock, W, store)
})
afterEach(() => { setSystemTime() })

/** Moves the clock to T0 + ms (forward only). */
const at = async (ms: number) => { await clock.advance(T0 + ms - clock.now()) }
/** Hits until the first refusal (bounded); returns the allowed decisions and the refusal. */
function hitUntilRefused(key: string, limit: number, max = 1000): { allowed: RateDecision[]; refused: RateDecision } {
  const allowed: RateDecision[] = []
  for (let i = 0; i < max; i++) {
    const d = rl.hit(key, limit)
    if (!d.allowed) return { allowed, refused: d }
    allowed.push(d)
  }
  throw new Error(`no refusal after ${max} hits`)
}
/** The number of further hits the documented formula allows: while prev*(1-elapsed)+curr+1 <= limit. */
function expectedAllowed(prev: number, elapsed: number, limit: number): number {
  let curr = 0
  while (prev * (1 - elapsed) + curr + 1 <= limit) curr++
  return curr
}

describe('fresh window', () => {
  test('allows exactly `limit` hits, remaining counts down to 0, then refuses', () => {
    const { allowed, refused } = hitUntilRefused('k', 5)
    expect(allowed.map((d) => d.remaining)).toEqual([4, 3, 2, 1, 0])
    for (const d of allowed) {
      expect(d.allowed).toBe(true)
      expect(d.limit).toBe(5)
      expect(d.retryAfter).toBe(0)
    }
    expect(refused).toMatchObject({ allowed: false, limit: 5, remaining: 0 })
    expect(refused.retryAfter).toBeGreaterThanOrEqual(1)
  })

  test('a limit of 1 allows one hit', () => {
    expect(rl.hit('k', 1)).toMatchObject({ allowed: true, remaining: 0 })
    expect(rl.hit('k', 1).allowed).toBe(false)
  })

  test('reset is the whole seconds until the fixed window ends, at least 1', async () => {
    expect(rl.hit('k', 5).reset).toBe(60)
    await at(15_000)
    expect(rl.hit('k', 5).reset).toBe(45)
    await at(15_001)
    expect(rl.hit('k', 5).reset).toBe(45) // 44.999 s rounds up
    await at(59_999)
    expect(rl.hit('k', 5).reset).toBe(1)
  })

  test('a refused hit in a full window waits until that window, weighted as the previous one, decays', async () => {
    await at(15_000)
    hitUntilRefused('k', 3)
    const d = rl.hit('k', 3)
    expect(d.allowed).toBe(false)
    expect(d.retryAfter).toBe(65) // 60 s * (2 - (3 - 1) / 3) = 80 s into the window, 65 s from now
    expect(d.reset).toBe(45)
  })

  test('refused hits do not consume: the next window only sees the allowed ones', async () => {
    hitUntilRefused('k', 5)
    for (let i = 0; i < 100; i++) expect(rl.hit('k', 5).allowed).toBe(false)
    // 80 % into window 2: estimate = 5 * 0.2 + curr, so 4 more are allowed if only 5 hits were counted
    // (with 105 counted, the estimate would be 21 and nothing would be allowed).
    await at(W + 48_000)
    const { allowed } = hitUntilRefused('k', 5)
    expect(allowed.length).toBe(expectedAllowed(5, 0.8, 5))
    expect(allowed.length).toBe(4)
  })
})

describe('sliding window', () => {
  test('the weighted previous window still limits 30 % into the next window', async () => {
    await at(59_000) // end of window 1
    expect(hitUntilRefused('k', 10).allowed.length).toBe(10)
    await at(W + 18_000) // 30 % into window 2: estimate = 10 * 0.7 + curr
    const { allowed, refused } = hitUntilRefused('k', 10)
    expect(allowed.length).toBe(expectedAllowed(10, 0.3, 10))
    expect(allowed.length).toBe(3)
    expect(allowed.map((d) => d.remaining)).toEqual([2, 1, 0])
    // One more needs 10 * (1 - e) + 3 + 1 <= 10, i.e. e >= 0.4: 6 s from now.
    expect(refused.retryAfter).toBe(6)
    expect(refused.reset).toBe(42)
  })

  test('the refusal lifts exactly when the previous window has decayed enough', async () => {
    await at(59_000)
    hitUntilRefused('k', 10)
    await at(W + 18_000)
    hitUntilRefused('k', 10)
    await at(W + 23_999) // e = 0.39998: 6.0002 + 3 + 1 > 10
    expect(rl.hit('k', 10).allowed).toBe(false)
    await at(W + 24_000) // e = 0.4: 6 + 3 + 1 = 10
    expect(rl.hit('k', 10)).toMatchObject({ allowed: true, remaining: 0 })
    expect(rl.hit('k', 10).allowed).toBe(false)
  })

  test('at the very start of the next window the previous window counts in full', async () => {
    hitUntilRefused('k', 10)
    await at(W)
    expect(rl.hit('k', 10).allowed).toBe(false)
  })

  test('the number allowed matches the formula at several points of the next window', async () => {
    for (const [i, pct] of [0.1, 0.25, 0.5, 0.75, 0.9].entries()) {
      const key = `k${i}`
      const limit = 20
      const base = 2 * i * W // each key gets its own pair of windows
      await at(base + 1_000)
      for (let n = 0; n < 13; n++) expect(rl.hit(key, limit).allowed).toBe(true)
      await at(base + W + pct * W)
      expect(hitUntilRefused(key, limit).allowed.length).toBe(expectedAllowed(13, pct, limit))
    }
  })

  test('after two windows everything resets', async () => {
    hitUntilRefused('k', 10)
    await at(2 * W)
    const { allowed } = hitUntilRefused('k', 10)
    expect(allowed.length).toBe(10)
    expect(allowed[0]!.remaining).toBe(9)
  })

  test('a skipped window drops the history even if the key was idle in between', async () => {
    hitUntilRefused('k', 10)
    await at(2 * W + 1) // window 3: window 2 (the previous one) had no hits
    expect(hitUntilRefused('k', 10).allowed.length).toBe(10)
  })

  test('a skipped window drops the history (without relying on the sweep)', async () => {
    hitUntilRefused('k', 10)
    await at(W + 59_000)
    rl.hit('other', 10) // sweeps now, so the next sweep is not before 2W + 59 s
    await at(2 * W + 1)
    expect(rl.hit('k', 10)).toMatchObject({ allowed: true, remaining: 9 })
    await at(4 * W)
    rl.add('p')
    await at(6 * W + 30_000) // peek never sweeps
    expect(rl.peek('p', 1)).toMatchObject({ allowed: true, remaining: 1 })
  })

  test('waiting retryAfter seconds is enough when the previous window is decaying', async () => {
    await at(30_000)
    hitUntilRefused('k', 7)
    await at(W + 5_000)
    const { refused } = hitUntilRefused('k', 7)
    await clock.advance(refused.retryAfter * 1000)
    expect(rl.hit('k', 7).allowed).toBe(true)
  })

  // Regression: retryAfter used to point at the window end, where the full window still weighs 1.
  test('waiting retryAfter seconds is enough when the current window is full', async () => {
    await at(10_000)
    const { refused } = hitUntilRefused('k', 3)
    expect(refused.retryAfter).toBeGreaterThanOrEqual(1)
    await clock.advance(refused.retryAfter * 1000)
    expect(rl.hit('k', 3).allowed).toBe(true)
  })

  test('a custom window length is honoured', async () => {
    const short = new SlidingWindowLimiter(clock, 1000)
    expect(short.hit('k', 2).allowed).toBe(true)
    expect(short.hit('k', 2).allowed).toBe(true)
    expect(short.hit('k', 2).allowed).toBe(false)
    await clock.advance(2000)
    expect(short.hit('k', 2)).toMatchObject({ allowed: true, remaining: 1, reset: 1 })
  })
})

describe('keys, peek, add, reset', () => {
  test('keys are independent', () => {
    hitUntilRefused('a', 3)
    expect(rl.hit('a', 3).allowed).toBe(false)
    expect(rl.hit('b', 3)).toMatchObject({ allowed: true, remaining: 2 })
    expect(rl.hit('a', 3).allowed).toBe(false)
  })

  test('the limit is per call: the same key checked against a larger limit still has room', () => {
    hitUntilRefused('k', 3)
    expect(rl.hit('k', 5)).toMatchObject({ allowed: true, remaining: 1 })
  })

  test('peek does not count', () => {
    for (let i = 0; i < 50; i++) expect(rl.peek('k', 3)).toMatchObject({ allowed: true, remaining: 3, retryAfter: 0 })
    expect(rl.hit('k', 3).remaining).toBe(2)
    expect(rl.peek('k', 3).remaining).toBe(2)
  })

  test('add counts without a limit and peek reports it; at the limit peek refuses until the full window has decayed', async () => {
    await at(20_000)
    rl.add('k')
    rl.add('k')
    expect(rl.peek('k', 3)).toMatchObject({ allowed: true, remaining: 1, retryAfter: 0 })
    rl.add('k')
    const p = rl.peek('k', 3)
    expect(p).toMatchObject({ allowed: false, remaining: 0, retryAfter: 60, reset: 40 }) // allowed again at 60 s * (2 - 2/3) = 80 s, 60 s from now
    expect(rl.hit('k', 3).allowed).toBe(false)
    rl.add('k') // add is unconditional
    expect(rl.peek('k', 3).remaining).toBe(0)
  })

  test('peek sees the weighted previous window', async () => {
    for (let i = 0; i < 10; i++) rl.add('k')
    await at(W + 30_000) // estimate = 10 * 0.5
    expect(rl.peek('k', 10)).toMatchObject({ allowed: true, remaining: 5 })
  })

  test('reset forgets the key', () => {
    hitUntilRefused('k', 3)
    rl.add('k')
    rl.reset('k')
    expect(rl.peek('k', 3)).toMatchObject({ allowed: true, remaining: 3 })
    expect(rl.hit('k', 3)).toMatchObject({ allowed: true, remaining: 2 })
    rl.reset('never-seen') // no throw
  })

  test('reset only affects its key', () => {
    hitUntilRefused('a', 2)
    hitUntilRefused('b', 2)
    rl.reset('a')
    expect(rl.hit('a', 2).allowed).toBe(true)
    expect(rl.hit('b', 2).allowed).toBe(false)
  })

  test('release takes back one count in the current window', () => {
    rl.add('k')
    rl.add('k')
    rl.release('k')
    expect(rl.peek('k', 3)).toMatchObject({ allowed: true, remaining: 2 })
    hitUntilRefused('k', 3)
    rl.release('k')
    expect(rl.hit('k', 3)).toMatchObject({ allowed: true, remaining: 0 })
  })

  test('release never goes below zero and ignores unknown keys', () => {
    rl.release('never-seen')
    rl.add('k')
    rl.release('k')
    rl.release('k')
    rl.release('k')
    expect(hitUntilRefused('k', 3).allowed.length).toBe(3)
    expect(store.has('never-seen')).toBe(false)
  })

  test('a count released after its window rolled is taken from the previous window', async () => {
    await at(59_000)
    const countedAt = clock.now()
    for (let i = 0; i < 10; i++) rl.add('k')
    await at(W + 30_000) // estimate = prev * 0.5: 10 → 5
    rl.release('k', countedAt) // prev 10 → 9: estimate 4.5
    expect(rl.peek('k', 10)).toMatchObject({ allowed: true, remaining: 5 })
    rl.add('k') // counted in window 2, released by a caller who remembers when
    rl.release('k', clock.now())
    expect(rl.peek('k', 10).remaining).toBe(5)
  })

  test('a count released two windows later is already gone: nothing else is taken', async () => {
    const countedAt = clock.now()
    rl.add('k')
    await at(W + 1_000)
    for (let i = 0; i < 3; i++) rl.add('k')
    await at(2 * W + 1_000) // window 3: prev = 3 (window 2), window 1 forgotten
    rl.release('k', countedAt)
    expect(rl.peek('k', 10).remaining).toBe(10 - Math.ceil(3 * (59 / 60)))
  })

  test('peek does not store keys it has never counted', () => {
    for (let i = 0; i < 100; i++) expect(rl.peek(`probe-${i}`, 1).allowed).toBe(true)
    expect(store.size).toBe(0)
  })

  test('add sweeps idle keys too', async () => {
    rl.add('old')
    await at(2 * W)
    rl.add('new')
    const windows = store
    expect(windows.has('old')).toBe(false)
    expect(windows.has('new')).toBe(true)
  })

  test('windowSeconds reports the window length', () => {
    expect(rl.windowSeconds).toBe(60)
    expect(new SlidingWindowLimiter(clock, 15 * 60_000).windowSeconds).toBe(900)
  })

  test('keys idle for two windows are swept from memory', async () => {
    rl.hit('old', 5)
    await at(2 * W)
    rl.hit('new', 5)
    const windows = store
    expect(windows.has('old')).toBe(false)
    expect(windows.has('new')).toBe(true)
  })
})

describe('rateLimitHeaders', () => {
  test('an allowed decision gives the four ratelimit headers and no retry-after', () => {
    const h = rateLimitHeaders(rl.hit('k', 10))
    expect(h).toEqual({ 'ratelimit-limit': '10', 'ratelimit-remaining': '9', 'ratelimit-reset': '60', 'ratelimit-policy': '10;w=60' })
  })

  test('a refused decision adds retry-after', async () => {
    await at(30_000)
    hitUntilRefused('k', 2)
    const d = rl.hit('k', 2)
    const h = rateLimitHeaders(d, 120)
    expect(h).toEqual({
      'ratelimit-limit': '2', 'ratelimit-remaining': '0', 'ratelimit-reset': '30', 'ratelimit-policy': '2;w=120', 'retry-after': String(d.retryAfter),
    })
    expect(Number(h['retry-after'])).toBeGreaterThanOrEqual(1)
  })
})
