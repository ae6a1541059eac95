// The `uploads` table (taskgate.db): what each operator stored through the context uploads, for
// the rolling daily quota. (ipfs.db's own SQL is in src/ipfs/stores.ts.)
import { and, count, eq, gt, min, sql } from 'drizzle-orm'
import type { Db } from '../db'
import { uploads } from '../db/schema'
import { preparedOnUse } from '../db/sql'

const p = sql.placeholder

export class UploadRepository {
  private q

  constructor(db: Db) {
    this.q = preparedOnUse({
      usage: () => db.select({ n: count(), bytes: sql<number>`coalesce(sum(${uploads.size}), 0)`, oldest: min(uploads.createdAt) })
        .from(uploads).where(and(eq(uploads.operatorId, p('operatorId')), gt(uploads.createdAt, p('since')))).prepare(),
      insert: () => db.insert(uploads).values({ operatorId: p('operatorId'), cid: p('cid'), size: p('size'), createdAt: p('createdAt') }).prepare(),
    })
  }

  /** The operator's uploads created after `since`: how many, their bytes, and the oldest one's time. */
  usage(operatorId: string, since: number): { n: number; bytes: number; oldest: number | null } { return this.q.usage.get({ operatorId, since })! }
  insert(operatorId: string, cid: string, size: number, createdAt: number): void { this.q.insert.run({ operatorId, cid, size, createdAt }) }
}
