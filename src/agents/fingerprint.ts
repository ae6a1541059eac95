// Agent fingerprint: a hash chain of completed tasks (stateRoot) and running behaviour statistics
// (Welford means/variances) from which trust metrics are derived.
import { concat, hexToBytes, type Hex } from 'viem'
import { keccak256 } from '../lib/keccak'

export const ZERO_ROOT: Hex = `0x${'0'.repeat(64)}`
export const METRICS = ['latencyMs', 'outputSize', 'verificationScore', 'cost', 'failure'] as const
export type Metric = (typeof METRICS)[number]
export interface Stat { n: number; mean: number; m2: number }
export type Metrics = Partial<Record<Metric, Stat>> & { last?: Partial<Record<Metric, number>> }

/** stateRoot' = keccak256(stateRoot ‖ leaf), leaf = keccak256 of the task's canonical summary. */
export function nextStateRoot(prev: Hex, leaf: Hex): Hex { return keccak256(hexToBytes(concat([prev, leaf]))) }

export function leafHash(summary: { taskId: string; ipfsCid: string; outputHash: Hex; verificationScore: number; latencyMs: number }): Hex {
  return keccak256(JSON.stringify([summary.taskId, summary.ipfsCid, summary.outputHash, summary.verificationScore, summary.latencyMs])) // its UTF-8 bytes
}

export function observe(m: Metrics, sample: Record<Metric, number>): Metrics {
  const out: Metrics = { ...m, last: sample }
  for (const k of METRICS) {
    const s = m[k] ?? { n: 0, mean: 0, m2: 0 }
    const n = s.n + 1
    const d = sample[k] - s.mean
    const mean = s.mean + d / n
    out[k] = { n, mean, m2: s.m2 + d * (sample[k] - mean) }
  }
  return out
}

/**
 * Failures that count against an agent's record (ari): the agent's own run failed or was refused.
 * Operator-side causes (no credits, kill-switch, an approval nobody answered) do not.
 */
export const AGENT_FAULTS = new Set(['COMPUTE_FAILED', 'OUTPUT_BLOCKED', 'GUARDRAIL_BLOCKED', 'APPROVAL_DENIED'])

/** Records a failed attempt: only the failure statistic moves (a failure has no latency or output to learn from). */
export function observeFailure(m: Metrics): Metrics {
  const s = m.failure ?? { n: 0, mean: 0, m2: 0 }
  const n = s.n + 1
  const d = 1 - s.mean
  const mean = s.mean + d / n
  return { ...m, failure: { n, mean, m2: s.m2 + d * (1 - mean) }, last: { ...m.last, failure: 1 } }
}

export const variance = (s?: Stat) => (s && s.n > 1 ? s.m2 / (s.n - 1) : 0)

/** Trust metrics for the passport (docs/pipeline.md, "Trust levels"); all in [0, 1] except driftScore (≥ 0). */
export function trustMetrics(m: Metrics, totalTasks: number, verifiedTasks: number) {
  const failure = m.failure
  const successRate = failure ? 1 - failure.mean : 0
  const ari = (successRate * (failure?.n ?? 0) + 1) / ((failure?.n ?? 0) + 2) // Laplace-smoothed success
  const vci = m.verificationScore ? (verifiedTasks / Math.max(1, totalTasks)) * m.verificationScore.mean : 0
  const cv = (s?: Stat) => (s && s.mean > 0 ? Math.sqrt(variance(s)) / s.mean : 0)
  const cq = 1 / (1 + (cv(m.latencyMs) + cv(m.outputSize)) / 2)
  let drift = 0
  let dims = 0
  for (const k of ['latencyMs', 'outputSize', 'verificationScore'] as const) {
    const s = m[k], last = m.last?.[k]
    if (!s || s.n < 3 || last === undefined) continue
    const v = variance(s)
    if (v > 0) { drift += (last - s.mean) ** 2 / v; dims++ }
  }
  const driftScore = dims ? Math.sqrt(drift / dims) : 0
  return { ari: round(ari), vci: round(vci), cq: round(cq), driftScore: round(driftScore) }
}

export const TRUST_LEVELS = ['QUARANTINE', 'PROBATIONARY', 'PROVISIONAL', 'STANDARD', 'TRUSTED'] as const

type Level = (typeof TRUST_LEVELS)[number]
type TrustMetric = 'totalTasks' | 'ari' | 'vci'
/** What each level above PROBATIONARY needs (documented in docs/pipeline.md); each implies the ones below. */
const PROMOTIONS: { level: Level; needs: [TrustMetric, number][] }[] = [
  { level: 'PROVISIONAL', needs: [['totalTasks', 5]] },
  { level: 'STANDARD', needs: [['totalTasks', 25], ['vci', 0.5]] },
  { level: 'TRUSTED', needs: [['totalTasks', 100], ['ari', 0.95], ['vci', 0.8]] },
]
const QUARANTINE_MIN_ATTEMPTS = 5
const QUARANTINE_MIN_ARI = 0.5
const QUARANTINE_MAX_DRIFT = 4

/**
 * Volume first, then quality. `completed` counts completed tasks; `attempts` also the agent's own
 * failures (AGENT_FAULTS), so an agent that keeps failing reaches QUARANTINE, while failures never
 * lift it out of PROBATIONARY.
 */
export function trustLevel(completed: number, attempts: number, t: { ari: number; vci: number; driftScore: number }): Level {
  if (attempts >= QUARANTINE_MIN_ATTEMPTS && (t.ari < QUARANTINE_MIN_ARI || t.driftScore > QUARANTINE_MAX_DRIFT)) return 'QUARANTINE'
  const values = { totalTasks: completed, ari: t.ari, vci: t.vci }
  let level: Level = 'PROBATIONARY'
  for (const p of PROMOTIONS) {
    if (!p.needs.every(([m, min]) => values[m] >= min)) break
    level = p.level
  }
  return level
}

export interface Requirement { metric: TrustMetric | 'driftScore'; minimum?: number; maximum?: number; current: number; met: boolean }

/** The next trust level and what it takes to reach it; null at TRUSTED. */
export function nextTrustLevel(level: Level, completed: number, t: { ari: number; vci: number; driftScore: number }): { trustLevel: Level; requirements: Requirement[] } | null {
  const values = { totalTasks: completed, ari: t.ari, vci: t.vci }
  if (level === 'QUARANTINE') {
    return { trustLevel: 'PROBATIONARY', requirements: [
      { metric: 'ari', minimum: QUARANTINE_MIN_ARI, current: t.ari, met: t.ari >= QUARANTINE_MIN_ARI },
      { metric: 'driftScore', maximum: QUARANTINE_MAX_DRIFT, current: t.driftScore, met: t.driftScore <= QUARANTINE_MAX_DRIFT },
    ] }
  }
  const next = PROMOTIONS[PROMOTIONS.findIndex((p) => p.level === level) + 1]
  if (!next) return null
  return { trustLevel: next.level, requirements: next.needs.map(([metric, minimum]) => ({ metric, minimum, current: values[metric], met: values[metric] >= minimum })) }
}

const round = (x: number) => Math.round(x * 10000) / 10000
