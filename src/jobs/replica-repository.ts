// The `replicas` table: one row per process serving a PostgreSQL database, with its heartbeat
// (src/jobs/replicas.ts). Unused on SQLite, where one process serves a data dir.
import { eq, sql } from 'drizzle-orm'
import type { Db } from '../db'
import { replicas } from '../db/schema'
import { preparedOnUse } from '../db/sql'

const p = sql.placeholder

export class ReplicaRepository {
  private q

  constructor(db: Db) {
    this.q = preparedOnUse({
      beat: () => db.insert(replicas).values({ id: p('id'), startedAt: p('at'), heartbeatAt: p('at') })
        .onConflictDoUpdate({ target: replicas.id, set: { heartbeatAt: sql`excluded.heartbeat_at` } }).prepare(),
      leave: () => db.delete(replicas).where(eq(replicas.id, p('id'))).prepare(),
      prune: () => db.delete(replicas).where(sql`${replicas.heartbeatAt} < ${p('before')}`).prepare(),
    })
  }

  beat(id: string, at: number): void { this.q.beat.run({ id, at }) }
  leave(id: string): void { this.q.leave.run({ id }) }
  /** Forgets replicas gone for long (their jobs were claimed again long ago). */
  prune(before: number): void { this.q.prune.run({ before }) }
}
