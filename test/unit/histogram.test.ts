// The latency histogram of the daily rollups: bucket boundaries, the SQL bucket (the triggers'
// floor(4·log2(ms))) equal to the JS one, and percentile estimates within the documented bound.
import { describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { bucketMiddle, bucketOf, MAX_RELATIVE_ERROR, percentiles } from '../../src/stats/histogram'

describe('latency histogram', () => {
  test('four buckets per doubling; below 1 ms counts as 1 ms', () => {
    expect([0, 1, 2, 4, 1024].map(bucketOf)).toEqual([0, 0, 4, 8, 40])
    expect(bucketOf(1.18)).toBe(0)
    expect(bucketOf(1.19)).toBe(1) // 2^(1/4) ≈ 1.1892
    expect(MAX_RELATIVE_ERROR).toBeCloseTo(0.0905, 4)
  })

  test('the triggers\' SQL bucket is the same as bucketOf for every latency up to 100 s', () => {
    const db = new Database(':memory:')
    const q = db.query('SELECT CAST(floor(4 * log2(max(?1, 1))) AS INTEGER) AS b')
    for (let ms = 0; ms <= 100_000; ms += ms < 2000 ? 1 : 97) expect((q.get(ms) as { b: number }).b).toBe(bucketOf(ms))
  })

  test('percentiles by nearest rank, within 9.05 % of the exact value', () => {
    expect(percentiles([], 0, 0, [0.5, 0.95])).toEqual([null, null])
    expect(percentiles([['d', 3, 0]], 0, 1, [0.5])).toEqual([null])
    let seed = 3
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
    for (let trial = 0; trial < 50; trial++) {
      const xs = Array.from({ length: 1 + Math.floor(rand() * 300) }, () => 1 + Math.floor(Math.exp(rand() * 10)))
      const h = new Map<number, number>()
      for (const x of xs) h.set(bucketOf(x), (h.get(bucketOf(x)) ?? 0) + 1)
      const sorted = [...xs].sort((a, b) => a - b)
      // [day, bucket, n] rows, buckets ascending, between rows of other days (as the daily query reads them)
      const rows: [number, number, number][] = [[1, 2, 5], ...[...h].sort((a, z) => a[0] - z[0]).map(([b, n]) => [2, b, n] as [number, number, number]), [3, 0, 7]]
      const ps = [0.01, 0.5, 0.95, 1]
      const ests = percentiles(rows, 1, rows.length - 1, ps)
      ps.forEach((p, i) => {
        const exact = sorted[Math.ceil(p * xs.length) - 1]!
        const est = ests[i]!
        expect(est).toBe(bucketMiddle(bucketOf(exact)))
        expect(Math.abs(est - exact) / exact).toBeLessThanOrEqual(MAX_RELATIVE_ERROR + 0.005) // + the 0.01 ms rounding
      })
    }
  })
})
