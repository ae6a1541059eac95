// Terms of Service tables (docs/architecture.md, "Data layer"): the versions (the newest is
// current) and the operators' acceptances.
import { and, asc, desc, eq, sql } from 'drizzle-orm'
import type { Db } from '../db'
import { tosAcceptances, tosVersions } from '../db/schema'
import { preparedOnUse } from '../db/sql'

export interface TosVersionRow { version: string; text: string; createdAt: number }
export interface TosAcceptance { operatorId: string; version: string; ipfsCid: string; taskId: string; acceptedAt: number }

const p = sql.placeholder

export class TosRepository {
  private q

  constructor(db: Db) {
    const v = tosVersions
    const a = tosAcceptances
    const version = { version: v.version, text: v.text, createdAt: v.createdAt }
    const acceptance = { operatorId: a.operatorId, version: a.version, ipfsCid: a.ipfsCid, taskId: a.taskId, acceptedAt: a.acceptedAt }
    this.q = preparedOnUse({
      current: () => db.select(version).from(v).orderBy(desc(v.seq)).limit(1).prepare(),
      versions: () => db.select(version).from(v).orderBy(desc(v.seq)).prepare(),
      publish: () => db.insert(v).values({ version: p('version'), text: p('text'), createdAt: p('createdAt') }).onConflictDoNothing({ target: v.version })
        .returning({ seq: v.seq }).prepare(),
      acceptance: () => db.select(acceptance).from(a).where(and(eq(a.operatorId, p('operatorId')), eq(a.version, p('version')))).prepare(),
      latest: () => db.select(acceptance).from(a).where(eq(a.operatorId, p('operatorId'))).orderBy(desc(a.id)).limit(1).prepare(),
      all: () => db.select(acceptance).from(a).where(eq(a.operatorId, p('operatorId'))).orderBy(asc(a.id)).prepare(),
      record: () => db.insert(a).values({ operatorId: p('operatorId'), version: p('version'), ipfsCid: p('ipfsCid'), taskId: p('taskId'), acceptedAt: p('acceptedAt') }).prepare(),
    })
  }

  /** The newest version (a fresh install has "1", from its migration). */
  current(): TosVersionRow { return this.q.current.get()! }

  /** Every version, newest first. */
  versions(): TosVersionRow[] { return this.q.versions.all() }

  /** Adds a version unless it exists; whether it was added. */
  publish(version: string, text: string, createdAt: number): boolean { return this.q.publish.get({ version, text, createdAt }) !== undefined }

  acceptance(operatorId: string, version: string): TosAcceptance | undefined { return this.q.acceptance.get({ operatorId, version }) }

  /** The operator's last acceptance, of any version. */
  latest(operatorId: string): TosAcceptance | undefined { return this.q.latest.get({ operatorId }) }

  /** The operator's acceptances, oldest first. */
  acceptances(operatorId: string): TosAcceptance[] { return this.q.all.all({ operatorId }) }

  record(a: TosAcceptance): void { this.q.record.run({ ...a }) }
}
