// Operator guardrails (docs/governance.md, "Guardrails"): the active config of each operator with
// the documented defaults, the pending config written by PATCH that activates 30 s later on the
// durable scheduler (job `guardrails.activate`, one per operator), and the stage-1 checks.
//
// Table operator_guardrails: `current` and `pending` hold the config JSON (the webhook secret
// only sealed with the data key, as `approvalWebhookSecretSealed`), `activates_at` when `pending`
// takes over, `updated_at` the last write (one per 10 s). A pending config whose time has come is
// active at once even before its job ran (after a restart the job runs at start).
import { charLength } from '../lib/chars'
import type { Clock } from '../clock'
import { tooManyRequests } from '../http/errors'
import type { JobRunner } from '../jobs/runner'
import { seal } from '../secrets'
import { PatternMatcher } from './matcher'
import type { Transactor } from '../db/transactor'
import type { GuardrailRepository, GuardrailRow as Row } from './repository'

export interface GuardrailConfig {
  maxCreditsPerDay: number | null
  maxTasksPerHour: number | null
  allowedTaskTypes: string[]
  blockedPatterns: string[]
  maxPromptLength: number | null
  approvalThreshold: number | null
  approvalTtlHours: number
  approvalWebhookUrl: string | null
  approvalAutoRules: Record<string, unknown>[]
  /** Whether public task documents on IPFS carry the output itself (default: only its hash). */
  publishOutputs: boolean
}

/** What is stored: the config plus the sealed webhook secret. */
export interface StoredConfig extends GuardrailConfig { approvalWebhookSecretSealed?: string | null }

export type GuardrailPatch = Partial<GuardrailConfig> & { approvalWebhookSecret?: string | null }

export const DEFAULT_GUARDRAILS: GuardrailConfig = {
  maxCreditsPerDay: null, maxTasksPerHour: null, allowedTaskTypes: [], blockedPatterns: [], maxPromptLength: null,
  approvalThreshold: null, approvalTtlHours: 24, approvalWebhookUrl: null, approvalAutoRules: [], publishOutputs: false,
}

export const ACTIVATION_DELAY_MS = 30_000
export const WRITE_INTERVAL_MS = 10_000
const HOUR_MS = 3_600_000
const DAY_MS = 86_400_000

/** A config as answered: never the secret, only whether one is set. */
export function configView(c: StoredConfig) {
  const { approvalWebhookSecretSealed, ...rest } = c
  return { ...DEFAULT_GUARDRAILS, ...rest, approvalWebhookSecretSet: !!approvalWebhookSecretSealed }
}

/** The task fields stage 1 checks. */
export interface GuardedTask { id: string; operatorId: string; taskType: string; prompt: string; diagnostic: boolean }

export class GuardrailStore {
  private matchers = new Map<string, PatternMatcher>()

  /** `costOf` prices a task type (stage 1 counts this task's cost toward maxCreditsPerDay). */
  constructor(private repo: GuardrailRepository, private tx: Transactor, private clock: Clock, private jobs: JobRunner, private dataKey: Buffer, private costOf: (taskType: string) => number) {}

  /**
   * The operators' stored rows as read: every task reads its operator's twice (stages 1 and 5).
   * This store is their only writer, and drops an operator's row from here whenever it writes it
   * (before its transaction ends, so nothing uncommitted is kept).
   */
  private rows = new Map<string, Row | null>()

  private row(operatorId: string): Row | null {
    let r = this.rows.get(operatorId)
    if (r === undefined) {
      r = this.repo.row(operatorId)
      if (this.rows.size >= 10_000) this.rows.clear()
      this.rows.set(operatorId, r)
    }
    return r
  }

  /** Parsed configs by their stored text: every task reads its operator's (stages 1 and 5). Frozen, as they are shared. */
  private parsed = new Map<string, StoredConfig>()

  private parse(json: string): StoredConfig {
    let config = this.parsed.get(json)
    if (!config) {
      if (this.parsed.size >= 1000) this.parsed.clear()
      config = deepFreeze({ ...DEFAULT_GUARDRAILS, ...(JSON.parse(json) as Partial<StoredConfig>) })
      this.parsed.set(json, config)
    }
    return config
  }

  /** current and pending as they stand now: a pending config whose time has come is the current one. */
  state(operatorId: string): { current: StoredConfig; pending: { config: StoredConfig; activatesAt: number } | null; updatedAt: number | null } {
    const r = this.row(operatorId)
    if (!r) return { current: { ...DEFAULT_GUARDRAILS }, pending: null, updatedAt: null }
    const current = this.parse(r.current)
    if (r.pending === null || r.activatesAt === null) return { current, pending: null, updatedAt: r.updatedAt }
    const pending = this.parse(r.pending)
    if (r.activatesAt <= this.clock.now()) return { current: pending, pending: null, updatedAt: r.updatedAt }
    return { current, pending: { config: pending, activatesAt: r.activatesAt }, updatedAt: r.updatedAt }
  }

  /** The operator's active guardrails (defaults for anything not set). */
  current(operatorId: string): GuardrailConfig { return this.state(operatorId).current }

  /**
   * Queues a partial update: omitted fields keep the newest value (pending, else current); it
   * replaces an older pending config and activates ACTIVATION_DELAY_MS later. One write per
   * WRITE_INTERVAL_MS (429 RATE_LIMITED with Retry-After).
   */
  update(operatorId: string, patch: GuardrailPatch): { pending: StoredConfig; activatesAt: number } {
    return this.tx.write(() => {
      const now = this.clock.now()
      const st = this.state(operatorId)
      if (st.updatedAt !== null && now - st.updatedAt < WRITE_INTERVAL_MS) {
        const wait = Math.max(1, Math.ceil((st.updatedAt + WRITE_INTERVAL_MS - now) / 1000))
        throw tooManyRequests('RATE_LIMITED', `guardrails can be written once per ${WRITE_INTERVAL_MS / 1000} s; retry in ${wait} s`, wait)
      }
      const base: StoredConfig = st.pending?.config ?? st.current
      const { approvalWebhookSecret, ...fields } = patch
      const next: StoredConfig = { ...base, ...fields }
      if (approvalWebhookSecret !== undefined) next.approvalWebhookSecretSealed = approvalWebhookSecret === null ? null : seal(this.dataKey, approvalWebhookSecret)
      const activatesAt = now + ACTIVATION_DELAY_MS
      // st.current is the active config (a pending one whose time had come included).
      this.repo.write(operatorId, JSON.stringify(st.current), JSON.stringify(next), activatesAt, now)
      this.rows.delete(operatorId)
      this.jobs.enqueue('guardrails.activate', { operatorId }, { runAt: activatesAt, dedupeKey: `guardrails:${operatorId}` })
      return { pending: next, activatesAt }
    })
  }

  /** The activation job: makes the pending config current once its time has come, else waits for it. */
  activate(operatorId: string): void {
    const r = this.row(operatorId)
    if (!r || r.pending === null || r.activatesAt === null) return
    if (r.activatesAt > this.clock.now()) { // a newer write moved it: run again then
      this.jobs.enqueue('guardrails.activate', { operatorId }, { runAt: r.activatesAt, dedupeKey: `guardrails:${operatorId}` })
      return
    }
    this.repo.activate(operatorId, this.clock.now())
    this.rows.delete(operatorId)
  }

  private matcher(patterns: string[]): PatternMatcher {
    const key = JSON.stringify(patterns)
    let m = this.matchers.get(key)
    if (!m) {
      if (this.matchers.size >= 1000) this.matchers.clear()
      m = new PatternMatcher(patterns)
      this.matchers.set(key, m)
    }
    return m
  }

  /** The operator's admitted tasks created after `since` (ms), other than `exceptId` (maxTasksPerHour). */
  admittedSince(operatorId: string, since: number, exceptId: string): number {
    return this.repo.admittedSince(operatorId, since, exceptId)
  }

  /**
   * Stage 1: why the active config refuses this task, or null. Linear in the prompt and the patterns.
   * A direct compute request is checked the same way with `countTasks: false`: maxTasksPerHour
   * counts tasks, while its credits count towards maxCreditsPerDay like a task's.
   */
  check(task: GuardedTask, opts: { countTasks?: boolean } = {}): string | null {
    if (task.taskType === 'system') return null
    const g = this.current(task.operatorId)
    if (g.allowedTaskTypes.length > 0 && !g.allowedTaskTypes.includes(task.taskType)) {
      return `task type ${task.taskType} is not in the operator's allowedTaskTypes (${g.allowedTaskTypes.join(', ')})`
    }
    if (g.maxPromptLength !== null) {
      const length = charLength(task.prompt)
      if (length > g.maxPromptLength) return `the prompt has ${length} characters; maxPromptLength is ${g.maxPromptLength}`
    }
    if (g.blockedPatterns.length > 0) {
      const hit = this.matcher(g.blockedPatterns).find(task.prompt)
      if (hit !== null) return `the prompt contains a blocked pattern (${JSON.stringify(hit)})`
    }
    const now = this.clock.now()
    // replicas: one count-then-admit at a time per operator (inside the submit's transaction)
    if (g.maxTasksPerHour !== null || g.maxCreditsPerDay !== null) this.tx.lock(`limits:${task.operatorId}`)
    if (g.maxTasksPerHour !== null && opts.countTasks !== false) {
      const n = this.admittedSince(task.operatorId, now - HOUR_MS, task.id)
      if (n >= g.maxTasksPerHour) return `maxTasksPerHour (${g.maxTasksPerHour}) reached: ${n} task(s) in the last 60 minutes`
    }
    if (g.maxCreditsPerDay !== null && !task.diagnostic) {
      const spent = this.repo.spentOnDay(task.operatorId, Math.floor(now / DAY_MS))
      const cost = this.costOf(task.taskType)
      if (spent + cost > g.maxCreditsPerDay) return `maxCreditsPerDay (${g.maxCreditsPerDay}) would be exceeded: ${spent} spent today (UTC) + ${cost} for this task`
    }
    return null
  }
}

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v)
    for (const x of Object.values(v)) deepFreeze(x)
  }
  return v
}
