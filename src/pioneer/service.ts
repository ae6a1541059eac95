// Pioneer points: append-only events per operator, summed into `pioneerPoints`. Each event has a
// ref, so an award can never be counted twice (a resumed task, a re-bound wallet).
import type { Clock } from '../clock'
import type { PioneerRepository } from './repository'

export type PioneerKind = 'task_completed' | 'wallet_bind' | 'trusted_level'

export class PioneerService {
  constructor(private repo: PioneerRepository, private clock: Clock) {}

  /** Records an award once per ref; returns the points actually awarded (0 if it already existed). */
  award(operatorId: string, kind: PioneerKind, points: number, ref: string): number {
    if (points <= 0) return 0
    return this.repo.award({ operatorId, kind, points, ref, createdAt: this.clock.now() }) ? points : 0
  }

  total(operatorId: string): number { return this.repo.total(operatorId) }

  events(operatorId: string, limit = 50) {
    return this.repo.events(operatorId, limit).map((e) => ({ ...e, createdAt: new Date(e.createdAt).toISOString() }))
  }
}
