// src/operators/login-guard.ts: the three sign-in scopes and the sign-up scope (docs/foundation.md,
// "Logins"), driven directly. The per-login limit across addresses needs many client addresses,
// which a black-box test from one loopback address cannot produce: it is covered here (the
// per-address scopes are also covered over HTTP in test/http/login-abuse.test.ts).
// Also the argon2id semaphore of src/operators/service.ts.
import { afterEach, beforeEach, describe, expect, setSystemTime, test } from 'bun:test'
import { availableParallelism } from 'node:os'
import { Clock } from '../../src/clock'
import { ProblemError } from '../../src/http/errors'
import { LOGIN_WINDOW_MS, LoginGuard, SIGNUP_WINDOW_MS, type LoginLimits, type Reservation } from '../../src/operators/login-guard'
import { ARGON2_CONCURRENCY, argon2Slots, Semaphore } from '../../src/operators/service'

const T0 = 1_800_000_000_000 // a multiple of both windows
expect(T0 % SIGNUP_WINDOW_MS).toBe(0)
const DEFAULTS: LoginLimits = { failuresPerLoginAddress: 10, failuresPerLogin: 100, failuresPerAddress: 30, signupsPerAddressPerHour: 10 }

let clock: Clock
let guard: LoginGuard
beforeEach(() => {
  setSystemTime(new Date(T0))
  clock = new Clock()
  guard = new LoginGuard(clock, DEFAULTS)
})
afterEach(() => { setSystemTime() })

/** The 429 a call throws, or null when it reserved. */
function refusal(fn: () => Reservation): ProblemError | null {
  try { fn(); return null } catch (e) {
    if (!(e instanceof ProblemError)) throw e
    return e
  }
}
/** Reserves (and keeps) failures until the first refusal; returns how many were reserved and the refusal. */
function failUntilRefused(login: string, ip: string, max = 1000): { reserved: number; refused: ProblemError } {
  for (let i = 0; i < max; i++) {
    const e = refusal(() => guard.reserveLogin(login, ip))
    if (e) return { reserved: i, refused: e }
  }
  throw new Error(`no refusal after ${max}`)
}
const addr = (i: number) => `10.0.${i >> 8}.${i & 255}`

describe('sign-in scopes', () => {
  test('one login from one address: 10 failures, then 429 TOO_MANY_LOGIN_ATTEMPTS with Retry-After', () => {
    const { reserved, refused } = failUntilRefused('alice', '1.1.1.1')
    expect(reserved).toBe(10)
    expect(refused.status).toBe(429)
    expect(refused.code).toBe('TOO_MANY_LOGIN_ATTEMPTS')
    expect(refused.extra.retryAfterSeconds).toBeGreaterThanOrEqual(1)
    expect(refused.headers['retry-after']).toBe(String(refused.extra.retryAfterSeconds))
    expect(refused.headers).toMatchObject({ 'ratelimit-limit': '10', 'ratelimit-remaining': '0', 'ratelimit-policy': '10;w=900' })
    // The same login from another address, and another login from this address, still have room.
    expect(refusal(() => guard.reserveLogin('alice', '2.2.2.2'))).toBeNull()
    expect(refusal(() => guard.reserveLogin('bob', '1.1.1.1'))).toBeNull()
  })

  test('one login from all addresses: 100 failures, then every address is refused for it', () => {
    // 9 failures from each address: no address reaches its per-login-and-address 10, nor its own 30.
    let reserved = 0
    for (let i = 0; reserved < 100; i++) {
      for (let n = 0; n < 9 && reserved < 100; n++, reserved++) expect(refusal(() => guard.reserveLogin('alice', addr(i)))).toBeNull()
    }
    const e = refusal(() => guard.reserveLogin('alice', '203.0.113.7'))!
    expect(e.code).toBe('TOO_MANY_LOGIN_ATTEMPTS')
    expect(e.headers['ratelimit-limit']).toBe('100')
    expect(refusal(() => guard.reserveLogin('alice', addr(0)))).not.toBeNull()
    // Other logins, even from the same addresses, are untouched.
    expect(refusal(() => guard.reserveLogin('bob', addr(0)))).toBeNull()
    expect(refusal(() => guard.reserveLogin('bob', '203.0.113.7'))).toBeNull()
  })

  test('one address, any login: 30 failures, then every login from that address is refused', () => {
    for (let i = 0; i < 30; i++) expect(refusal(() => guard.reserveLogin(`user-${i % 5}`, '1.1.1.1'))).toBeNull()
    const e = refusal(() => guard.reserveLogin('never-tried', '1.1.1.1'))!
    expect(e.code).toBe('TOO_MANY_LOGIN_ATTEMPTS')
    expect(e.headers['ratelimit-limit']).toBe('30')
    expect(refusal(() => guard.reserveLogin('never-tried', '1.1.1.2'))).toBeNull()
  })

  test('reserving is atomic: 300 back-to-back reservations (no release) let exactly 10 through', () => {
    const outcomes = Array.from({ length: 300 }, () => refusal(() => guard.reserveLogin('alice', '1.1.1.1')))
    expect(outcomes.filter((e) => e === null).length).toBe(10)
  })

  test('a refused attempt counts in no scope', () => {
    failUntilRefused('alice', '1.1.1.1')
    for (let i = 0; i < 500; i++) expect(refusal(() => guard.reserveLogin('alice', '1.1.1.1'))).not.toBeNull()
    // Only the 10 reserved ones count toward the address: 20 more for other logins fit.
    for (let i = 0; i < 20; i++) expect(refusal(() => guard.reserveLogin(`other-${i}`, '1.1.1.1'))).toBeNull()
    expect(refusal(() => guard.reserveLogin('other-x', '1.1.1.1'))).not.toBeNull()
    // ...and toward the login across addresses: 90 more from other addresses fit (9 each).
    let n = 0
    for (let i = 0; n < 90; i++) for (let k = 0; k < 9 && n < 90; k++, n++) expect(refusal(() => guard.reserveLogin('alice', addr(i)))).toBeNull()
    expect(refusal(() => guard.reserveLogin('alice', addr(99)))).not.toBeNull()
  })

  test('a refusal in one scope counts nothing in the others', () => {
    failUntilRefused('alice', '1.1.1.1') // 10 in every scope
    for (let i = 0; i < 100; i++) refusal(() => guard.reserveLogin('alice', '1.1.1.1'))
    // The address has 20 left, not fewer.
    for (let i = 0; i < 20; i++) expect(refusal(() => guard.reserveLogin(`u${i}`, '1.1.1.1'))).toBeNull()
  })

  test('release gives the slot back in all three scopes; a second release does nothing', () => {
    for (let i = 0; i < 100; i++) guard.reserveLogin('alice', addr(i)).release() // 100 successes from 100 addresses
    for (let i = 0; i < 50; i++) guard.reserveLogin(`u${i % 3}`, '1.1.1.1').release() // 50 successes from one address
    const r = guard.reserveLogin('alice', '1.1.1.1')
    r.release()
    r.release()
    r.release()
    expect(failUntilRefused('alice', '1.1.1.1').reserved).toBe(10)
  })

  test('a success wipes nothing that other attempts counted', () => {
    for (let i = 0; i < 9; i++) guard.reserveLogin('alice', addr(i)) // 9 failures from 9 addresses
    for (let i = 0; i < 9; i++) guard.reserveLogin('alice', '1.1.1.1') // 9 from this one
    guard.reserveLogin('alice', '1.1.1.1').release() // the right password once
    expect(failUntilRefused('alice', '1.1.1.1').reserved).toBe(1) // still 9 counted here
  })

  test('the window is 15 minutes and slides: full again after two windows, partly after Retry-After', async () => {
    const { refused } = failUntilRefused('alice', '1.1.1.1')
    await clock.advance(Number(refused.extra.retryAfterSeconds) * 1000 - 1000)
    expect(refusal(() => guard.reserveLogin('alice', '1.1.1.1'))).not.toBeNull()
    await clock.advance(1000)
    expect(refusal(() => guard.reserveLogin('alice', '1.1.1.1'))).toBeNull()
    await clock.advance(2 * LOGIN_WINDOW_MS)
    expect(failUntilRefused('alice', '1.1.1.1').reserved).toBe(10)
  })

  test('Retry-After is the longest wait among the exhausted scopes', async () => {
    for (let i = 0; i < 10; i++) guard.reserveLogin('alice', '1.1.1.1') // t = 0: this login from this address is full
    await clock.advance(10 * 60_000)
    for (let i = 0; i < 20; i++) guard.reserveLogin(`u${i}`, '1.1.1.1') // t = 10 min: the address is full too
    // login+address: free again at 15 min × (2 - 9/10) = 16.5 min; address: at 15 min × (2 - 29/30) = 15.5 min.
    const both = refusal(() => guard.reserveLogin('alice', '1.1.1.1'))!
    expect(both.extra.retryAfterSeconds).toBe(390)
    expect(both.headers['ratelimit-limit']).toBe('10')
    const addressOnly = refusal(() => guard.reserveLogin('bob', '1.1.1.1'))!
    expect(addressOnly.extra.retryAfterSeconds).toBe(330)
    await clock.advance(330_000)
    expect(refusal(() => guard.reserveLogin('bob', '1.1.1.1'))).toBeNull()
    expect(refusal(() => guard.reserveLogin('alice', '1.1.1.1'))).not.toBeNull()
    await clock.advance(60_000)
    expect(refusal(() => guard.reserveLogin('alice', '1.1.1.1'))).toBeNull()
  })

  test('a release after the window rolled still gives the slot back', async () => {
    await clock.advance(LOGIN_WINDOW_MS - 1)
    const r = guard.reserveLogin('alice', '1.1.1.1')
    await clock.advance(2) // the next window; the reservation is now in the weighted previous one
    r.release()
    expect(failUntilRefused('alice', '1.1.1.1').reserved).toBe(10)
  })

  test('the limits come from the constructor', () => {
    const g = new LoginGuard(clock, { failuresPerLoginAddress: 2, failuresPerLogin: 3, failuresPerAddress: 4, signupsPerAddressPerHour: 1 })
    const ok = (l: string, ip: string) => refusal(() => g.reserveLogin(l, ip)) === null
    expect([ok('a', 'x'), ok('a', 'x'), ok('a', 'x')]).toEqual([true, true, false])
    expect([ok('a', 'y'), ok('a', 'z')]).toEqual([true, false]) // 3 per login across addresses
    expect([ok('b', 'x'), ok('c', 'x'), ok('d', 'x')]).toEqual([true, true, false]) // 4 per address
    expect([refusal(() => g.reserveSignup('x')), refusal(() => g.reserveSignup('x'))?.code]).toEqual([null, 'SIGNUP_RATE_LIMITED'])
  })
})

describe('sign-up scope', () => {
  test('10 per address per hour, then 429 SIGNUP_RATE_LIMITED; other addresses are unaffected', () => {
    for (let i = 0; i < 10; i++) expect(refusal(() => guard.reserveSignup('1.1.1.1'))).toBeNull()
    const e = refusal(() => guard.reserveSignup('1.1.1.1'))!
    expect(e.status).toBe(429)
    expect(e.code).toBe('SIGNUP_RATE_LIMITED')
    expect(e.headers).toMatchObject({ 'ratelimit-limit': '10', 'ratelimit-policy': '10;w=3600' })
    expect(Number(e.headers['retry-after'])).toBe(e.extra.retryAfterSeconds as number)
    expect(refusal(() => guard.reserveSignup('1.1.1.2'))).toBeNull()
  })

  test('released sign-ups (refused ones) do not count, and sign-ups are separate from sign-in failures', () => {
    for (let i = 0; i < 50; i++) guard.reserveSignup('1.1.1.1').release()
    for (let i = 0; i < 30; i++) guard.reserveLogin(`u${i}`, '1.1.1.1')
    for (let i = 0; i < 10; i++) expect(refusal(() => guard.reserveSignup('1.1.1.1'))).toBeNull()
    expect(refusal(() => guard.reserveSignup('1.1.1.1'))).not.toBeNull()
  })

  test('the hour slides', async () => {
    for (let i = 0; i < 10; i++) guard.reserveSignup('1.1.1.1')
    await clock.advance(LOGIN_WINDOW_MS * 2) // 30 min: a sign-in window would have passed, the sign-up hour has not
    expect(refusal(() => guard.reserveSignup('1.1.1.1'))).not.toBeNull()
    await clock.advance(2 * SIGNUP_WINDOW_MS)
    expect(refusal(() => guard.reserveSignup('1.1.1.1'))).toBeNull()
  })
})

describe('argon2id semaphore', () => {
  test('the process-wide bound is 2 x CPU count (at least 2)', () => {
    expect(argon2Slots.size).toBe(ARGON2_CONCURRENCY)
    expect(ARGON2_CONCURRENCY).toBe(Math.max(2, 2 * availableParallelism()))
  })

  test('never runs more than its size at once, and the rest start in FIFO order', async () => {
    const sem = new Semaphore(3)
    let running = 0
    let peak = 0
    const started: number[] = []
    const gates: (() => void)[] = []
    const jobs = Array.from({ length: 10 }, (_, i) => sem.run(async () => {
      started.push(i)
      running++
      peak = Math.max(peak, running)
      await new Promise<void>((r) => gates.push(r))
      running--
      return i
    }))
    await Bun.sleep(0)
    expect(started).toEqual([0, 1, 2])
    expect(sem.queued).toBe(7)
    while (gates.length) { gates.shift()!(); await Bun.sleep(1) }
    expect(await Promise.all(jobs)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    expect(peak).toBe(3)
    expect(sem.running).toBe(0)
    expect(sem.queued).toBe(0)
  })

  test('a job that throws frees its slot', async () => {
    const sem = new Semaphore(1)
    await expect(sem.run(async () => { throw new Error('boom') })).rejects.toThrow('boom')
    expect(await sem.run(async () => 'next')).toBe('next')
    expect(sem.running).toBe(0)
  })
})
