// Auto-approve rules (docs/governance.md, "Approvals") at fixed instants: every rule must pass, an
// empty list never auto-approves, time windows read the weekday and hour in their IANA zone (and
// may wrap midnight).
import { describe, expect, test } from 'bun:test'
import { evaluateRule, evaluateRules, type AutoRule } from '../../src/approvals/rules'

// Monday 2026-11-23 14:30 UTC = 09:30 in New York (EST), 23:30 in Tokyo, 20:00 in Kolkata
const MON_1430Z = Date.parse('2026-11-23T14:30:00Z')
const x = (o: Partial<{ requestedValue: number; target: string | null; trustLevel: string; now: number }> = {}) =>
  ({ requestedValue: 500, target: '0xAcme', trustLevel: 'STANDARD', now: MON_1430Z, ...o })
const win = (tz: string, startHour: number, endHour: number, days = ['mon']): AutoRule => ({ type: 'time_window', days, startHour, endHour, tz })

describe('auto-approve rules', () => {
  test('amount_cap and allowlisted_target', () => {
    expect(evaluateRule({ type: 'amount_cap', maxValue: 500 }, x()).result).toBe('pass')
    expect(evaluateRule({ type: 'amount_cap', maxValue: 499.99 }, x()).result).toBe('fail')
    expect(evaluateRule({ type: 'allowlisted_target', targets: ['0xAcme'] }, x()).result).toBe('pass')
    expect(evaluateRule({ type: 'allowlisted_target', targets: ['0xacme'] }, x()).result).toBe('fail') // exact match
    expect(evaluateRule({ type: 'allowlisted_target', targets: ['0xAcme'] }, x({ target: null })).result).toBe('fail')
  })

  test('time_window in IANA zones', () => {
    expect(evaluateRule(win('America/New_York', 9, 17), x()).result).toBe('pass')
    expect(evaluateRule(win('America/New_York', 10, 17), x()).result).toBe('fail')
    expect(evaluateRule(win('Asia/Tokyo', 9, 17), x()).result).toBe('fail') // 23:30 there
    expect(evaluateRule(win('Asia/Tokyo', 22, 6), x()).result).toBe('pass') // wraps midnight
    expect(evaluateRule(win('Asia/Kolkata', 20, 21), x()).result).toBe('pass')
    expect(evaluateRule(win('Asia/Kolkata', 20, 21, ['tue']), x()).result).toBe('fail')
    expect(evaluateRule(win('Pacific/Kiritimati', 0, 24, ['tue']), x()).result).toBe('pass') // UTC+14: already Tuesday
    const bad = evaluateRule(win('Mars/Olympus_Mons', 0, 24), x())
    expect(bad).toMatchObject({ result: 'fail' })
    expect(bad.reason).toContain('unknown time zone')
  })

  test('trusted_agent follows the trust level order', () => {
    expect(evaluateRule({ type: 'trusted_agent', minTrustLevel: 'PROVISIONAL' }, x()).result).toBe('pass')
    expect(evaluateRule({ type: 'trusted_agent', minTrustLevel: 'STANDARD' }, x()).result).toBe('pass')
    expect(evaluateRule({ type: 'trusted_agent', minTrustLevel: 'TRUSTED' }, x()).result).toBe('fail')
  })

  test('all must pass; an empty list never auto-approves', () => {
    expect(evaluateRules([], x()).autoApprove).toBe(false)
    expect(evaluateRules([{ type: 'amount_cap', maxValue: 1000 }, win('America/New_York', 9, 17)], x()).autoApprove).toBe(true)
    const r = evaluateRules([{ type: 'amount_cap', maxValue: 1000 }, win('America/New_York', 12, 17)], x())
    expect(r.autoApprove).toBe(false)
    expect(r.evaluations.map((e) => e.result)).toEqual(['pass', 'fail'])
  })
})
