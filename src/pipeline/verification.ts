// Deterministic output checks per task type. Each check gives a score in [0, 1] and a weight;
// the verification score is their weighted mean.
import type { Hex } from 'viem'
import { keccak256 } from '../lib/keccak'

/** keccak256 of a string's UTF-8 bytes (the same value as viem's keccak256(toHex(s))). */
export const textHash = (s: string): Hex => keccak256(s)

export interface Check { name: string; score: number; weight: number; note?: string }

const tokens = (s: string) => new Set(s.toLowerCase().match(/[a-z0-9]+/g) ?? [])

/** Jaccard similarity of word sets: 1 = the output just repeats the prompt. */
export function echoSimilarity(prompt: string, output: string): number {
  const a = tokens(prompt), b = tokens(output)
  if (a.size === 0 || b.size === 0) return 0
  let inter = 0
  for (const w of b) if (a.has(w)) inter++
  return inter / (a.size + b.size - inter)
}

/**
 * The JSON object an output carries: from its first `{` to its last `}`. Two index scans and one
 * JSON.parse, so linear in the output (a regular expression like /\{[\s\S]*\}/ is quadratic on
 * a run of `{`: 100,000 of them blocked the event loop for 6 s).
 */
export function parseJson(s: string): any {
  const start = s.indexOf('{')
  if (start < 0) return undefined
  const end = s.lastIndexOf('}')
  if (end <= start) return undefined
  try { return JSON.parse(s.slice(start, end + 1)) } catch { return undefined }
}

function structured(taskType: string, output: string): Check | null {
  if (taskType === 'sentiment_analysis') {
    const j = parseJson(output)
    const label = j?.label ?? j?.sentiment ?? output.toLowerCase().match(/\b(positive|negative|neutral|mixed)\b/)?.[1]
    const okLabel = typeof label === 'string' && ['positive', 'negative', 'neutral', 'mixed'].includes(label.toLowerCase())
    const okScore = j === undefined || j.score === undefined || (typeof j.score === 'number' && j.score >= -1 && j.score <= 1)
    return { name: 'well_formed_sentiment', score: okLabel ? (okScore ? 1 : 0.5) : 0, weight: 3, note: okLabel ? `label ${label}` : 'no sentiment label' }
  }
  if (taskType === 'trade_signal') {
    const j = parseJson(output)
    const action = (j?.signal ?? j?.action ?? output.match(/\b(BUY|SELL|HOLD)\b/i)?.[1])
    const ok = typeof action === 'string' && ['BUY', 'SELL', 'HOLD'].includes(action.toUpperCase())
    return { name: 'well_formed_trade_signal', score: ok ? 1 : 0, weight: 3, note: ok ? `signal ${action}` : 'no BUY/SELL/HOLD signal' }
  }
  return null
}

export function verifyOutput(taskType: string, prompt: string, output: string, threshold: number) {
  const checks: Check[] = []
  const trimmed = output.trim()
  checks.push({ name: 'non_empty', score: trimmed.length > 0 ? 1 : 0, weight: 3 })
  const echo = echoSimilarity(prompt, trimmed)
  const isStructured = taskType === 'sentiment_analysis' || taskType === 'trade_signal'
  // An extractive summary legitimately reuses the prompt's words; only a near-verbatim copy counts as an echo.
  checks.push({ name: 'not_an_echo', score: trimmed === prompt.trim() ? 0 : echo > 0.95 && !isStructured ? 0.3 : 1, weight: 2, note: `similarity ${echo.toFixed(3)}` })
  const ratio = trimmed.length / Math.max(1, prompt.length)
  checks.push({ name: 'length_sane', score: trimmed.length === 0 ? 0 : trimmed.length > 100_000 || ratio > 200 ? 0.3 : 1, weight: 1, note: `${trimmed.length} chars` })
  const s = structured(taskType, trimmed)
  if (s) checks.push(s)
  const total = checks.reduce((a, c) => a + c.weight, 0)
  const score = Math.round((checks.reduce((a, c) => a + c.score * c.weight, 0) / total) * 10000) / 10000
  const status = score >= threshold ? 'VERIFIED' : 'FAILED'
  const record = { version: 1, taskType, threshold, score, status, checks, outputHash: textHash(output), promptHash: textHash(prompt) }
  return { score, status, record, proof: textHash(JSON.stringify(record)) }
}

/** The prompt and output hashes, computed once in stage 4 and kept in the verification record. */
export function taskHashes(task: { prompt: string; output: string | null; verification: Record<string, unknown> | null }): { promptHash: Hex; outputHash: Hex } {
  const v = task.verification as { promptHash?: Hex; outputHash?: Hex } | null
  return {
    promptHash: v?.promptHash ?? textHash(task.prompt),
    outputHash: v?.outputHash ?? textHash(task.output ?? ''),
  }
}
