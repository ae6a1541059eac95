// Auto-approval rules (docs/governance.md, "Approvals"): a held action is released without a human
// only when every rule passes (AND); an empty list never auto-approves. Pure functions of the
// action, the agent's trust level and the time, so each rule says why it passed or failed.
import { TRUST_LEVELS } from '../agents/fingerprint'

export type AutoRule =
  | { type: 'amount_cap'; maxValue: number }
  | { type: 'allowlisted_target'; targets: string[] }
  | { type: 'time_window'; days: string[]; startHour: number; endHour: number; tz: string }
  | { type: 'trusted_agent'; minTrustLevel: string }

export interface Evaluation { name: string; result: 'pass' | 'fail' | 'conditional'; reason: string }

export interface RuleInput { requestedValue: number; target: string | null; trustLevel: string; now: number }

const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat']

/** Weekday (mon…sun) and hour (0–23) of `now` in the IANA time zone `tz`; throws RangeError for an unknown zone. */
export function localDayHour(now: number, tz: string): { day: string; hour: number } {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: tz, weekday: 'short', hour: 'numeric', hourCycle: 'h23' }).formatToParts(new Date(now))
  const day = (parts.find((p) => p.type === 'weekday')?.value ?? '').slice(0, 3).toLowerCase()
  const hour = Number(parts.find((p) => p.type === 'hour')?.value ?? NaN) % 24
  return { day, hour }
}

export function evaluateRule(rule: AutoRule, x: RuleInput): Evaluation {
  const pass = (reason: string): Evaluation => ({ name: rule.type, result: 'pass', reason })
  const fail = (reason: string): Evaluation => ({ name: rule.type, result: 'fail', reason })
  switch (rule.type) {
    case 'amount_cap':
      return x.requestedValue <= rule.maxValue ? pass(`${x.requestedValue} ≤ maxValue ${rule.maxValue}`) : fail(`${x.requestedValue} > maxValue ${rule.maxValue}`)
    case 'allowlisted_target':
      return x.target !== null && rule.targets.includes(x.target) ? pass(`target ${x.target} is allowlisted`) : fail(`target ${x.target ?? '(none)'} is not allowlisted`)
    case 'time_window': {
      let local: { day: string; hour: number }
      try { local = localDayHour(x.now, rule.tz) } catch { return fail(`unknown time zone ${rule.tz}`) }
      const dayOk = rule.days.includes(local.day)
      // startHour < endHour: [start, end); otherwise the window wraps past midnight
      const hourOk = rule.startHour < rule.endHour ? local.hour >= rule.startHour && local.hour < rule.endHour : local.hour >= rule.startHour || local.hour < rule.endHour
      const where = `${local.day} ${String(local.hour).padStart(2, '0')}:xx in ${rule.tz}`
      return dayOk && hourOk ? pass(`${where} is inside ${rule.days.join(',')} ${rule.startHour}–${rule.endHour}`) : fail(`${where} is outside ${rule.days.join(',')} ${rule.startHour}–${rule.endHour}`)
    }
    case 'trusted_agent': {
      const have = TRUST_LEVELS.indexOf(x.trustLevel as never), need = TRUST_LEVELS.indexOf(rule.minTrustLevel as never)
      return have >= 0 && have >= need ? pass(`trust level ${x.trustLevel} ≥ ${rule.minTrustLevel}`) : fail(`trust level ${x.trustLevel} < ${rule.minTrustLevel}`)
    }
    default:
      return { name: String((rule as { type?: unknown }).type), result: 'fail', reason: 'unknown rule' }
  }
}

/** Every rule's evaluation and whether they all passed (false for an empty list). */
export function evaluateRules(rules: AutoRule[], x: RuleInput): { evaluations: Evaluation[]; autoApprove: boolean } {
  const evaluations = rules.map((r) => evaluateRule(r, x))
  return { evaluations, autoApprove: evaluations.length > 0 && evaluations.every((e) => e.result === 'pass') }
}

export { DAY_NAMES }
