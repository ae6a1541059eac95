// An agent's passport: its public identity, trust metrics and the x402 defence state of its
// operator's wallet (GET /api/v1/public/agent/:agentId/passport, the MCP tool get_passport).
import { nextTrustLevel } from '../agents/fingerprint'
import type { AgentService } from '../agents/service'
import { notFound } from '../http/errors'
import type { X402Gate } from '../money/x402'
import type { OperatorService } from '../operators/service'

export interface PassportDeps {
  agents: Pick<AgentService, 'byId' | 'trust'>
  operators: Pick<OperatorService, 'byId'>
  x402: Pick<X402Gate, 'walletState'>
  config: { x402: { maxPaidPerHour: number } }
}

/** The agent's passport, or 404. */
export function passportOf(d: PassportDeps, agentId: string) {
  const a = d.agents.byId(agentId)
  if (!a) throw notFound('agent')
  const trust = d.agents.trust(a)
  const wallet = d.operators.byId(a.operatorId)?.walletAddress ?? null
  const x402 = wallet ? d.x402.walletState(wallet)
    : { blocked: false, reason: null, walletChecked: null, rateLimitMax: d.config.x402.maxPaidPerHour, rateLimitRemaining: null, rateLimitResetMs: null, rateLimitResetUnix: null }
  return {
    agentId: a.id, displayName: a.displayName, trustLevel: trust.trustLevel, ari: trust.ari, vci: trust.vci, cq: trust.cq, driftScore: trust.driftScore,
    totalTasks: a.totalTasks, verifiedTasks: a.verifiedTasks, enrolledAt: new Date(a.createdAt).toISOString(),
    lastActiveAt: a.lastActiveAt ? new Date(a.lastActiveAt).toISOString() : null, x402,
    nextLevel: nextTrustLevel(trust.trustLevel, a.totalTasks, trust),
  }
}
