// The blocked-pattern matcher (src/guardrails/matcher.ts) agrees with a naive case-insensitive
// substring search, and stays linear on inputs that make naive matching quadratic.
import { expect, test } from 'bun:test'
import { PatternMatcher } from '../../src/guardrails/matcher'

const naive = (patterns: string[], text: string) => patterns.some((p) => p.length > 0 && text.toLowerCase().includes(p.toLowerCase()))

test('agrees with naive substring search on random inputs over a small alphabet', () => {
  let seed = 12345
  const rnd = (n: number) => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed % n }
  const word = (len: number) => Array.from({ length: len }, () => 'abAB'[rnd(4)]).join('')
  for (let i = 0; i < 2000; i++) {
    const patterns = Array.from({ length: 1 + rnd(5) }, () => word(1 + rnd(5)))
    const text = word(rnd(30))
    const m = new PatternMatcher(patterns)
    const hit = m.find(text)
    expect(hit !== null).toBe(naive(patterns, text))
    if (hit !== null) expect(text.toLowerCase()).toContain(hit.toLowerCase())
  }
})

test('100 patterns × 200 characters against 100,000 characters stays fast (no quadratic blow-up)', () => {
  const patterns = Array.from({ length: 100 }, (_, i) => 'a'.repeat(196) + String(i).padStart(4, 'b'))
  const t0 = performance.now()
  const m = new PatternMatcher(patterns)
  expect(m.find('a'.repeat(100_000))).toBeNull()
  expect(m.find('A'.repeat(50_000) + patterns[99]!.toUpperCase())).toBe(patterns[99]!)
  expect(performance.now() - t0).toBeLessThan(200)
})
