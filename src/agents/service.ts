// Agents: registration (with an agent-bound API key, atomically), updates, archive, detail.
import type { Database } from 'bun:sqlite'
import type { Clock } from '../clock'
import { TIER_LIMITS, type Tier } from '../config'
import { badRequest, forbidden, notFound } from '../http/errors'
import type { KeyService } from '../keys/service'
import { randomToken } from '../lib/ids'
import { type Metrics, trustLevel, trustMetrics, ZERO_ROOT } from './fingerprint'
import { TASK_TYPES } from './schema'
import { ReadCache } from '../db/read-cache'

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

/** The column behind each field of AgentIdentity: what its SELECT reads, and the writes that drop the cached identities. */
const IDENTITY_COLUMNS: Record<keyof AgentIdentity, string> = {
  id: 'id', operatorId: 'operator_id', displayName: 'display_name', description: 'description', model: 'model',
  agentVersion: 'agent_version', capabilities: 'capabilities', status: 'status', keyId: 'key_id', createdAt: 'created_at',
}

const COLS = `id, operator_id AS operatorId, display_name AS displayName, description, model, agent_version AS agentVersion,
  capabilities, status, key_id AS keyId, state_root AS stateRoot, metrics, total_tasks AS totalTasks, verified_tasks AS verifiedTasks,
  failed_tasks AS failedTasks, last_active_at AS lastActiveAt, created_at AS createdAt, updated_at AS updatedAt`

const parse = (r: Record<string, any> | null): AgentRow | null => (r ? { ...r, capabilities: JSON.parse(r.capabilities), metrics: JSON.parse(r.metrics) } as AgentRow : null)

export function assertCapabilities(caps: string[]): void {
  const bad = caps.filter((c) => !(TASK_TYPES as readonly string[]).includes(c))
  if (bad.length) throw badRequest('INVALID_CAPABILITY', `unknown capabilities: ${bad.join(', ')} (allowed: ${TASK_TYPES.join(', ')})`, { allowed: TASK_TYPES })
}

export class AgentService {
  private byIdStmt
  private identities: ReadCache<AgentIdentity | null>
  private identityStmt
  constructor(private db: Database, private clock: Clock, private keys: KeyService, private modelExists: (m: string) => boolean) {
    this.byIdStmt = db.prepare(`SELECT ${COLS} FROM agents WHERE id = ?1`)
    this.identityStmt = db.prepare(`SELECT ${Object.entries(IDENTITY_COLUMNS).map(([k, c]) => `${c} AS ${k}`).join(', ')} FROM agents WHERE id = ?1`)
    // Every task updates its agent's row (stage 6), but not these columns: the identity survives it.
    this.identities = new ReadCache(db, [{ table: 'agents', columns: Object.values(IDENTITY_COLUMNS), as: 'agents_identity' }])
  }

  byId(id: string): AgentRow | null { return parse(this.byIdStmt.get(id) as Record<string, any> | null) }

  /** Every agent that has finished or failed at least one task (the leaderboard's candidates). */
  withTasks(): AgentRow[] {
    return (this.db.query(`SELECT ${COLS} FROM agents WHERE total_tasks > 0 OR failed_tasks > 0`).all() as Record<string, any>[]).map((r) => parse(r)!)
  }

  /**
   * The identity of the operator's agent, or 404 (as owned()), for the checks of every submit:
   * cached until a write to one of its columns (src/db/read-cache.ts), so a submit needs no read.
   */
  identity(operatorId: string, id: string): AgentIdentity {
    const a = this.identities.get(id, () => {
      const r = this.identityStmt.get(id) as Record<string, any> | null
      return r ? Object.freeze({ ...r, capabilities: Object.freeze(JSON.parse(r.capabilities)) }) as AgentIdentity : null
    })
    if (!a || a.operatorId !== operatorId) throw notFound('agent')
    return a
  }

  /** The operator's agent, or 404 (another operator's agent is indistinguishable from none). */
  owned(operatorId: string, id: string): AgentRow {
    const a = this.byId(id)
    if (!a || a.operatorId !== operatorId) throw notFound('agent')
    return a
  }

  register(operatorId: string, tier: Tier, body: { displayName: string; capabilities: string[]; description?: string; model?: string; agentVersion?: string }) {
    assertCapabilities(body.capabilities)
    const model = body.model ?? 'builtin'
    if (!this.modelExists(model)) throw badRequest('UNKNOWN_MODEL', `no provider serves model ${model}`)
    const limit = TIER_LIMITS[tier].agents
    const slug = body.displayName.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 24) || 'agent'
    const id = `agent_${slug}_${randomToken(6).toLowerCase()}`
    const now = this.clock.now()
    return this.db.transaction(() => {
      if (limit !== null) {
        const n = (this.db.query("SELECT count(*) AS n FROM agents WHERE operator_id = ?1 AND status = 'ACTIVE'").get(operatorId) as { n: number }).n
        if (n >= limit) throw forbidden('AGENT_LIMIT_REACHED', `the ${tier} tier allows ${limit} active agents; archive one or upgrade`, { limit })
      }
      const { key, row } = this.keys.insert(operatorId, { label: `agent:${body.displayName}`, rateLimitRpm: TIER_LIMITS[tier].defaultRpm, agentId: id })
      this.db.query(`INSERT INTO agents (id, operator_id, display_name, description, model, agent_version, capabilities, status, key_id, state_root, metrics, created_at, updated_at)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'ACTIVE', ?8, ?9, '{}', ?10, ?10)`)
        .run(id, operatorId, body.displayName, body.description ?? '', model, body.agentVersion ?? '1.0.0', JSON.stringify(body.capabilities), row.id, ZERO_ROOT, now)
      return { agent: this.byId(id)!, apiKey: key, keyId: row.id }
    }).immediate()
  }

  list(operatorId: string): AgentRow[] {
    return (this.db.query(`SELECT ${COLS} FROM agents WHERE operator_id = ?1 ORDER BY created_at`).all(operatorId) as Record<string, any>[]).map((r) => parse(r)!)
  }

  update(operatorId: string, id: string, body: { displayName?: string; description?: string; capabilities?: string[]; model?: string }): AgentRow {
    const a = this.owned(operatorId, id)
    if (a.status === 'ARCHIVED') throw forbidden('AGENT_ARCHIVED', 'an archived agent cannot be changed')
    if (body.capabilities) assertCapabilities(body.capabilities)
    if (body.model && !this.modelExists(body.model)) throw badRequest('UNKNOWN_MODEL', `no provider serves model ${body.model}`)
    this.db.query(`UPDATE agents SET display_name = ?2, description = ?3, capabilities = ?4, model = ?5, updated_at = ?6 WHERE id = ?1`)
      .run(id, body.displayName ?? a.displayName, body.description ?? a.description, JSON.stringify(body.capabilities ?? a.capabilities), body.model ?? a.model, this.clock.now())
    return this.byId(id)!
  }

  /** Archives the agent and revokes its key, in one transaction. */
  archive(operatorId: string, id: string): void {
    const a = this.owned(operatorId, id)
    const now = this.clock.now()
    this.db.transaction(() => {
      this.db.query("UPDATE agents SET status = 'ARCHIVED', updated_at = ?2 WHERE id = ?1").run(id, now)
      if (a.keyId) this.db.query('UPDATE api_keys SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL').run(a.keyId, now)
    }).immediate()
  }

  trust(a: AgentRow) {
    const t = trustMetrics(a.metrics, a.totalTasks, a.verifiedTasks)
    return { ...t, trustLevel: trustLevel(a.totalTasks, Math.max(a.totalTasks, a.metrics.failure?.n ?? 0), t) }
  }
}

export function agentView(a: AgentRow) {
  return {
    agentId: a.id, operatorId: a.operatorId, displayName: a.displayName, capabilities: a.capabilities, description: a.description,
    model: a.model, agentVersion: a.agentVersion, status: a.status, createdAt: new Date(a.createdAt).toISOString(), updatedAt: new Date(a.updatedAt).toISOString(),
  }
}
