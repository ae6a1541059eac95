// Agents: registration (with an agent-bound API key, atomically), updates, archive, detail.
import type { Clock } from '../clock'
import { TIER_LIMITS, type Tier } from '../config'
import type { Transactor } from '../db/transactor'
import { badRequest, forbidden, notFound } from '../http/errors'
import type { KeyService } from '../keys/service'
import { randomToken } from '../lib/ids'
import { trustLevel, trustMetrics, ZERO_ROOT } from './fingerprint'
import type { AgentIdentity, AgentRepository, AgentRow } from './repository'
import { TASK_TYPES } from './schema'

export type { AgentIdentity, AgentRow } from './repository'

export function assertCapabilities(caps: string[]): void {
  const bad = caps.filter((c) => !(TASK_TYPES as readonly string[]).includes(c))
  if (bad.length) throw badRequest('INVALID_CAPABILITY', `unknown capabilities: ${bad.join(', ')} (allowed: ${TASK_TYPES.join(', ')})`, { allowed: TASK_TYPES })
}

export class AgentService {
  constructor(
    private repo: AgentRepository, private tx: Transactor, private clock: Clock,
    private keys: Pick<KeyService, 'insert' | 'revokeById'>, private modelExists: (m: string) => boolean,
  ) {}

  byId(id: string): AgentRow | null { return this.repo.byId(id) }
  /** The row, locked until the write transaction ends (PostgreSQL; replicas finishing tasks of one agent take turns). */
  byIdLocked(id: string): AgentRow | null { return this.repo.byIdLocked(id) }

  /** Every agent that has finished or failed at least one task (the leaderboard's candidates). */
  withTasks(): AgentRow[] { return this.repo.withTasks() }

  /** How many ACTIVE agents the operator has. */
  activeCount(operatorId: string): number { return this.repo.activeCount(operatorId) }

  /**
   * The identity of the operator's agent, or 404 (as owned()), for the checks of every submit:
   * cached until a write to one of its columns (src/db/read-cache.ts), so a submit needs no read.
   */
  identity(operatorId: string, id: string): AgentIdentity {
    const a = this.repo.identity(id)
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
    return this.tx.write(() => {
      this.tx.lock(`limits:${operatorId}`) // replicas: one count-then-insert at a time per operator
      if (limit !== null && this.repo.activeCount(operatorId) >= limit) {
        throw forbidden('AGENT_LIMIT_REACHED', `the ${tier} tier allows ${limit} active agents; archive one or upgrade`, { limit })
      }
      const { key, row } = this.keys.insert(operatorId, { label: `agent:${body.displayName}`, rateLimitRpm: TIER_LIMITS[tier].defaultRpm, agentId: id })
      this.repo.insert({
        id, operatorId, displayName: body.displayName, description: body.description ?? '', model, agentVersion: body.agentVersion ?? '1.0.0',
        capabilities: body.capabilities, keyId: row.id, stateRoot: ZERO_ROOT, createdAt: now,
      })
      return { agent: this.byId(id)!, apiKey: key, keyId: row.id }
    })
  }

  list(operatorId: string): AgentRow[] { return this.repo.list(operatorId) }

  update(operatorId: string, id: string, body: { displayName?: string; description?: string; capabilities?: string[]; model?: string }): AgentRow {
    const a = this.owned(operatorId, id)
    if (a.status === 'ARCHIVED') throw forbidden('AGENT_ARCHIVED', 'an archived agent cannot be changed')
    if (body.capabilities) assertCapabilities(body.capabilities)
    if (body.model && !this.modelExists(body.model)) throw badRequest('UNKNOWN_MODEL', `no provider serves model ${body.model}`)
    this.repo.edit(id, {
      displayName: body.displayName ?? a.displayName, description: body.description ?? a.description,
      capabilities: body.capabilities ?? a.capabilities, model: body.model ?? a.model,
    }, this.clock.now())
    return this.byId(id)!
  }

  /** Archives the agent and revokes its key, in one transaction. */
  archive(operatorId: string, id: string): void {
    const a = this.owned(operatorId, id)
    const now = this.clock.now()
    this.tx.write(() => {
      this.repo.archive(id, now)
      if (a.keyId) this.keys.revokeById(a.keyId, now)
    })
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
