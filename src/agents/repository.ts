// The agents table (docs/architecture.md, "Data layer"). An agent's identity, which every submit
// checks, is read through a read cache that only writes to its own columns clear.
import { and, asc, count, eq, gt, or, sql } from 'drizzle-orm'
import type { Db } from '../db'
import { forUpdate } from '../db/dialect'
import { readCacheOn, type RowCache } from '../db/read-cache'
import { agents } from '../db/schema'
import type { Metrics } from './fingerprint'
import { preparedOnUse, setTo } from '../db/sql'

export interface AgentRow {
  id: string; operatorId: string; displayName: string; description: string; model: string; agentVersion: string
  capabilities: string[]; status: 'ACTIVE' | 'ARCHIVED'; keyId: string | null; stateRoot: string; metrics: Metrics
  totalTasks: number; verifiedTasks: number; failedTasks: number; lastActiveAt: number | null; createdAt: number; updatedAt: number
}

/**
 * What only the agent's own edits change (register, update, archive): what admission checks
 * (owner, status, capabilities) and the task takes (model). Its state root, metrics and counters,
 * which every task moves, are not part of it: they are read where they are written (stage 6).
 */
export type AgentIdentity = Pick<AgentRow, 'id' | 'operatorId' | 'displayName' | 'description' | 'model' | 'agentVersion' | 'capabilities' | 'status' | 'keyId' | 'createdAt'>

export type AgentInsert = Pick<AgentRow, 'id' | 'operatorId' | 'displayName' | 'description' | 'model' | 'agentVersion' | 'capabilities' | 'keyId' | 'stateRoot' | 'createdAt'>
export type AgentEdit = Pick<AgentRow, 'displayName' | 'description' | 'capabilities' | 'model'>

/** The columns behind AgentIdentity: what its SELECT reads, and the writes that drop the cached identities. */
const IDENTITY = {
  id: agents.id, operatorId: agents.operatorId, displayName: agents.displayName, description: agents.description, model: agents.model,
  agentVersion: agents.agentVersion, capabilities: agents.capabilities, status: agents.status, keyId: agents.keyId, createdAt: agents.createdAt,
}

const p = sql.placeholder

export class AgentRepository {
  private identities: RowCache<AgentIdentity | null>
  private q

  constructor(db: Db) {
    // Every task updates its agent's row (stage 6), but not these columns: the identity survives it.
    this.identities = readCacheOn(db, [{ table: 'agents', columns: Object.values(IDENTITY).map((c) => c.name), as: 'agents_identity' }])
    this.q = preparedOnUse({
      byId: () => db.select().from(agents).where(eq(agents.id, p('id'))).prepare(),
      // PostgreSQL: the row locked until the transaction ends, so replicas extending one agent's chain
      // take turns (SQLite's write transaction holds the whole database already).
      byIdLocked: () => forUpdate(db, db.select().from(agents).where(eq(agents.id, p('id')))).prepare(),
      identity: () => db.select(IDENTITY).from(agents).where(eq(agents.id, p('id'))).prepare(),
      withTasks: () => db.select().from(agents).where(or(gt(agents.totalTasks, 0), gt(agents.failedTasks, 0))).prepare(),
      activeCount: () => db.select({ n: count() }).from(agents).where(and(eq(agents.operatorId, p('operatorId')), eq(agents.status, 'ACTIVE'))).prepare(),
      list: () => db.select().from(agents).where(eq(agents.operatorId, p('operatorId'))).orderBy(asc(agents.createdAt)).prepare(),
      insert: () => db.insert(agents).values({
        id: p('id'), operatorId: p('operatorId'), displayName: p('displayName'), description: p('description'), model: p('model'),
        agentVersion: p('agentVersion'), capabilities: p('capabilities'), status: 'ACTIVE', keyId: p('keyId'), stateRoot: p('stateRoot'),
        metrics: {}, createdAt: p('createdAt'), updatedAt: p('createdAt'),
      }).prepare(),
      edit: () => db.update(agents).set({
        displayName: setTo('displayName'), description: setTo('description'), capabilities: setTo('capabilities'), model: setTo('model'), updatedAt: setTo('now'),
      }).where(eq(agents.id, p('id'))).prepare(),
      archive: () => db.update(agents).set({ status: 'ARCHIVED', updatedAt: setTo('now') }).where(eq(agents.id, p('id'))).prepare(),
    })
  }

  byId(id: string): AgentRow | null { return (this.q.byId.get({ id }) as AgentRow | undefined) ?? null }
  /** The row, locked for the rest of the write transaction on PostgreSQL. */
  byIdLocked(id: string): AgentRow | null { return (this.q.byIdLocked.get({ id }) as AgentRow | undefined) ?? null }

  /** The agent's identity, frozen, read through the cache (src/db/read-cache.ts). */
  identity(id: string): AgentIdentity | null {
    return this.identities.get(id, () => {
      const r = this.q.identity.get({ id })
      return r ? Object.freeze({ ...r, capabilities: Object.freeze(r.capabilities) }) as AgentIdentity : null
    })
  }

  /** Every agent that has finished or failed at least one task. */
  withTasks(): AgentRow[] { return this.q.withTasks.all() as AgentRow[] }

  activeCount(operatorId: string): number { return this.q.activeCount.get({ operatorId })!.n }

  /** The operator's agents, oldest first. */
  list(operatorId: string): AgentRow[] { return this.q.list.all({ operatorId }) as AgentRow[] }

  /** A new ACTIVE agent with no tasks and empty metrics. */
  insert(a: AgentInsert): void { this.q.insert.run(a) }

  edit(id: string, e: AgentEdit, now: number): void { this.q.edit.run({ id, ...e, capabilities: JSON.stringify(e.capabilities), now }) }

  archive(id: string, now: number): void { this.q.archive.run({ id, now }) }
}
