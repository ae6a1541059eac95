// HTTP for agents (bearer only).
import { t } from 'elysia'
import { defineRoute } from '../http/route'
import { TASK_LINKS } from '../tasks/routes'
import { effectiveTier } from '../operators/service'
import type { Services } from '../services'
import { TEST_KEY_USES } from '../keys/service'
import { TERMINAL } from '../pipeline/runner'
import { TaskDetail } from '../tasks/schema'
import { Agent, AgentDetail, AgentIdParams, RegisteredAgent, RegisterAgentBody, TestRunBody, UpdateAgentBody } from './schema'
import { agentView } from './service'

export function agentRoutes(s: Services) {
  const tags = ['Agents']
  return [
    defineRoute({
      method: 'POST', path: '/api/v1/agents/register', auth: 'bearer', tags, body: RegisterAgentBody,
      summary: 'Register an agent; returns its agent-bound API key once',
      description: 'Agents per tier: FREE 3, PRO 50, ENTERPRISE unlimited (403 AGENT_LIMIT_REACHED). Unknown capabilities → 400 INVALID_CAPABILITY. `model` (default builtin) must be served by a provider → else 400 UNKNOWN_MODEL.',
      errors: { 400: ['UNKNOWN_MODEL'], 403: ['AGENT_LIMIT_REACHED'] },
      responses: { 201: { description: 'registered', schema: RegisteredAgent, links: {
        detail: { route: 'GET /api/v1/agents/:agentId', parameters: { agentId: '$response.body#/agentId' } },
        update: { route: 'PATCH /api/v1/agents/:agentId', parameters: { agentId: '$response.body#/agentId' } },
        archive: { route: 'DELETE /api/v1/agents/:agentId', parameters: { agentId: '$response.body#/agentId' } },
        testRun: { route: 'POST /api/v1/agents/:agentId/test-run', parameters: { agentId: '$response.body#/agentId' } },
        submit: { route: 'POST /api/v1/tasks/submit', requestBody: { agentId: '$response.body#/agentId', taskType: '$response.body#/capabilities/0', prompt: 'Hello from a linked request.' }, description: 'submit a task for this agent (send its `apiKey` as x-api-key, or the bearer token)' },
        passport: { route: 'GET /api/v1/public/agent/:agentId/passport', parameters: { agentId: '$response.body#/agentId' } },
        revokeKey: { route: 'DELETE /api/v1/operator/keys/:keyId', parameters: { keyId: '$response.body#/keyId' }, description: 'revoke the agent-bound key' },
      } } },
      handler: ({ auth, body, set }) => {
        const r = s.agents.register(auth.operator.id, effectiveTier(auth.operator), body)
        set.status = 201
        return { ...agentView(r.agent), apiKey: r.apiKey, keyId: r.keyId }
      },
    }),
    defineRoute({
      method: 'GET', path: '/api/v1/agents', auth: 'bearer', tags, summary: 'The operator\'s agents',
      responses: { 200: { description: 'agents', schema: t.Array(Agent) } },
      handler: ({ auth }) => s.agents.list(auth.operator.id).map(agentView),
    }),
    defineRoute({
      method: 'GET', path: '/api/v1/agents/:agentId', auth: 'bearer', tags, params: AgentIdParams,
      summary: 'Agent detail with policy status and verification history',
      errors: { 404: ['NOT_FOUND'] },
      responses: { 200: { description: 'agent', schema: AgentDetail } },
      handler: ({ auth, params }) => {
        const a = s.agents.owned(auth.operator.id, params.agentId)
        const trust = s.agents.trust(a)
        const keyActive = a.keyId ? s.keys.isActive(a.keyId) : false
        const history = s.taskStore.verificationHistory(a.id, 20)
        return {
          ...agentView(a), stateRoot: a.stateRoot,
          policyStatus: { allowedTaskTypes: a.capabilities, keyActive, status: a.status, trustLevel: trust.trustLevel },
          verificationHistory: history,
          metrics: { totalTasks: a.totalTasks, verifiedTasks: a.verifiedTasks, failedTasks: a.failedTasks, ari: trust.ari, vci: trust.vci, cq: trust.cq, driftScore: trust.driftScore },
        }
      },
    }),
    defineRoute({
      method: 'PATCH', path: '/api/v1/agents/:agentId', auth: 'bearer', tags, params: AgentIdParams, body: UpdateAgentBody,
      summary: 'Update an agent (displayName, description, capabilities, model only)',
      errors: { 400: ['UNKNOWN_MODEL'], 403: ['AGENT_ARCHIVED'], 404: ['NOT_FOUND'] },
      responses: { 200: { description: 'updated agent', schema: Agent } },
      handler: ({ auth, params, body }) => agentView(s.agents.update(auth.operator.id, params.agentId, body)),
    }),
    defineRoute({
      method: 'POST', path: '/api/v1/agents/:agentId/test-run', auth: 'bearer', longLived: true, tags, params: AgentIdParams, body: t.Union([TestRunBody, t.Null()]),
      summary: 'Run a free diagnostic task through the operator\'s test key',
      description: `Uses the operator's system-generated diagnostic key (created on first use, isTestKey: true, ${TEST_KEY_USES} uses, not counted in the key limit); one use per run; 403 TEST_KEY_EXHAUSTED when none are left; 403 KILL_SWITCH_ACTIVE while the operator\'s kill-switch is on; with TASKGATE_TOS_REQUIRED=1, 403 TOS_NOT_ACCEPTED until the current Terms of Service are accepted. taskType defaults to the agent's first capability. Waits for the result like submit.`,
      errors: { 400: ['UNKNOWN_MODEL'], 403: ['TEST_KEY_EXHAUSTED', 'KILL_SWITCH_ACTIVE', 'TOS_NOT_ACCEPTED'], 404: ['NOT_FOUND'] },
      responses: {
        200: { description: 'finished task', schema: TaskDetail, links: TASK_LINKS },
        202: { description: 'still running', schema: TaskDetail, headers: { Location: 'Location' }, links: TASK_LINKS },
      },
      handler: async ({ auth, params, body, set }) => {
        const task = s.tasks.testRun(auth, params.agentId, body ?? {})
        await s.pipeline.waitFor(task.id, 30_000)
        const cur = s.pipeline.task(task.id)!
        if (!TERMINAL.has(cur.status)) { set.status = 202; set.headers.location = `/api/v1/tasks/${cur.id}` }
        return s.tasks.detail(cur, true)
      },
    }),
    defineRoute({
      method: 'DELETE', path: '/api/v1/agents/:agentId', auth: 'bearer', tags, params: AgentIdParams,
      summary: 'Archive an agent and revoke its key',
      errors: { 404: ['NOT_FOUND'] },
      responses: { 204: { description: 'archived' } },
      handler: ({ auth, params, set }) => { s.agents.archive(auth.operator.id, params.agentId); set.status = 204; return '' },
    }),
  ]
}
