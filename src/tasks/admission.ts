// What a submission (task or compute job) must pass after authentication and an Idempotency-Key
// replay, and before any payment or credit: who it acts for (an agent-bound key only for its own
// agent: 403 AGENT_KEY_MISMATCH; another operator's agent: 404), the kill-switch, and the ToS
// (docs/pipeline.md, "Admission"). One place, so submit and compute cannot drift apart.
import type { AgentIdentity, AgentService } from '../agents/service'
import { assertNotKilled } from '../guardrails/kill-switch'
import { assertActsFor, type Principal } from '../http/auth'
import type { TosService } from '../tos/service'

/** Returns the named agent's identity (null when none is named). */
export function assertAdmissible(deps: { agents: Pick<AgentService, 'identity'>; tos: Pick<TosService, 'assertAccepted'> }, p: Principal, agentId: string | null | undefined): AgentIdentity | null {
  assertActsFor(p, agentId)
  const agent = agentId ? deps.agents.identity(p.operator.id, agentId) : null
  assertNotKilled(p.operator)
  deps.tos.assertAccepted(p.operator.id) // TASKGATE_TOS_REQUIRED: 403 TOS_NOT_ACCEPTED
  return agent
}
