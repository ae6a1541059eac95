// Pioneer points: append-only events per operator, summed into `pioneerPoints`. Each event has a
// ref, so an award can never be counted twice (a resumed task, a re-bound wallet).
import type { Database } from 'bun:sqlite'
import type { Clock } from '../clock'

export type PioneerKind = 'task_completed' | 'wallet_bind' | 'trusted_level'

export class PioneerService {
  private q
  constructor(db: Database, private clock: Clock) {
    this.q = {
      award: db.prepare('INSERT INTO pioneer_events (operator_id, kind, points, ref, created_at) VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT(ref) DO NOTHING'),
      total: db.prepare('SELECT points AS n FROM pioneer_totals WHERE operator_id = ?1'), // kept by triggers (migration 0009)
      list: db.prepare('SELECT id, kind, points, ref, created_at AS createdAt FROM pioneer_events WHERE operator_id = ?1 ORDER BY id DESC LIMIT ?2'),
    }
  }

  /** Records an award once per ref; returns the points actually awarded (0 if it already existed). */
  award(operatorId: string, kind: PioneerKind, points: number, ref: string): number {
    if (points <= 0) return 0
    return this.q.award.run(operatorId, kind, points, ref, this.clock.now()).changes > 0 ? points : 0
  }

  total(operatorId: string): number { return (this.q.total.get(operatorId) as { n: number } | null)?.n ?? 0 }

  events(operatorId: string, limit = 50) {
    return (this.q.list.all(operatorId, limit) as { id: number; kind: string; points: number; ref: string; createdAt: number }[])
      .map((e) => ({ ...e, createdAt: new Date(e.createdAt).toISOString() }))
  }
}
