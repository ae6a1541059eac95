// The latency histogram of the daily rollups (task_latency_daily, filled by the triggers of
// migrations/0006_lists.sql): bucket b = floor(4·log2(latencyMs)) holds the latencies in
// [2^(b/4), 2^((b+1)/4)) ms, four buckets per doubling (latencies below 1 ms count as 1 ms). A
// percentile is estimated as the geometric middle of the bucket that holds its rank, so the
// estimate is within a factor 2^(1/8) ≈ 1.0905 of the true value: at most 9.05 % off.
export const BUCKETS_PER_DOUBLING = 4
export const MAX_RELATIVE_ERROR = 2 ** (1 / (2 * BUCKETS_PER_DOUBLING)) - 1

export const bucketOf = (latencyMs: number): number => Math.floor(BUCKETS_PER_DOUBLING * Math.log2(Math.max(latencyMs, 1)))

/** The geometric middle of bucket b, in ms (rounded to 0.01). */
export const bucketMiddle = (b: number): number => Math.round(2 ** ((b + 0.5) / BUCKETS_PER_DOUBLING) * 100) / 100

/**
 * Percentiles (each 0 < p ≤ 1, ascending) of the latencies counted in rows[from..to) — [key,
 * bucket, count] rows with buckets ascending — by the nearest-rank method: the middle of the
 * bucket holding the ceil(p·n)-th smallest value. Nulls when the rows count nothing.
 */
export function percentiles(rows: readonly (readonly [unknown, number, number])[], from: number, to: number, ps: readonly number[]): (number | null)[] {
  let n = 0
  for (let i = from; i < to; i++) n += rows[i]![2]
  const out: (number | null)[] = ps.map(() => null)
  if (n <= 0) return out
  let seen = 0
  let k = 0
  for (let i = from; i < to && k < ps.length; i++) {
    seen += rows[i]![2]
    while (k < ps.length && seen >= Math.max(1, Math.ceil(ps[k]! * n))) out[k++] = bucketMiddle(rows[i]![1])
  }
  return out
}
