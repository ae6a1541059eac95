// The operator's kill-switch (docs/governance.md, "Kill-switch"): effective at once. While active,
// submissions and compute requests get 403 KILL_SWITCH_ACTIVE (before any payment or credit), and
// turning it on fails the operator's held (PENDING_APPROVAL) and QUEUED tasks and its still-queued
// compute jobs, refunded, in the same transaction. Reads keep working. The state lives in the
// operator's `flags` (killSwitch, killSwitchReason, killSwitchAt), so every authenticated request
// has it.
import type { Clock } from '../clock'
import { isoOrNull } from '../clock'
import { forbidden } from '../http/errors'
import type { Transactor } from '../db/transactor'
import type { GuardrailRepository } from './repository'

export const KILL_SWITCH_CODE = 'KILL_SWITCH_ACTIVE'

export interface KillSwitchState { active: boolean; reason: string | null; updatedAt: string | null }

type Flags = Record<string, unknown>

/** The kill-switch as answered, from an operator's flags. */
export function killSwitchOf(flags: Flags | null | undefined): KillSwitchState {
  const f = flags ?? {}
  return {
    active: f.killSwitch === true,
    reason: typeof f.killSwitchReason === 'string' ? f.killSwitchReason : null,
    updatedAt: typeof f.killSwitchAt === 'number' ? isoOrNull(f.killSwitchAt) : null,
  }
}

/** Why the operator's work is refused when its kill-switch is on, else null. */
export function killSwitchRefusal(op: { flags: Flags | null | undefined }): string | null {
  if (op.flags?.killSwitch !== true) return null
  const reason = typeof op.flags.killSwitchReason === 'string' ? `: ${op.flags.killSwitchReason}` : ''
  return `the operator's kill-switch is active${reason}; submissions and compute requests are refused until it is turned off`
}

/** 403 KILL_SWITCH_ACTIVE when the operator's kill-switch is on. */
export function assertNotKilled(op: { flags: Flags | null | undefined }): void {
  const refusal = killSwitchRefusal(op)
  if (refusal !== null) throw forbidden(KILL_SWITCH_CODE, refusal)
}

export class KillSwitch {
  /**
   * `stopParked` fails the operator's held and queued work (refunded) inside the caller's
   * transaction and returns how many tasks and jobs it stopped.
   */
  constructor(private repo: GuardrailRepository, private tx: Transactor, private clock: Clock, private stopParked: (operatorId: string, reason: string) => { tasks: number; jobs: number }) {}

  set(operatorId: string, active: boolean, reason: string | null): KillSwitchState & { stopped: { tasks: number; jobs: number } } {
    return this.tx.write(() => {
      const flags = this.repo.setKillSwitch(operatorId, active, reason, this.clock.now())
      const stopped = active ? this.stopParked(operatorId, reason ?? 'the operator activated the kill-switch') : { tasks: 0, jobs: 0 }
      return { ...killSwitchOf(flags), stopped }
    })
  }
}
