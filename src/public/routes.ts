// Public read endpoints: platform statistics (all-time and per day) and agent passports (no credential).
import { t } from 'elysia'
import { notFound } from '../http/errors'
import { defineRoute } from '../http/route'
import { Id } from '../http/schemas'
import { X402State } from '../money/routes'
import type { Services } from '../services'
import { DAILY_DESCRIPTION, DailyQuery, DailySeries } from '../stats/schema'


export function publicRoutes(s: Services) {
  const tags = ['Public']
  return [
    defineRoute({
      method: 'GET', path: '/api/v1/public/stats', auth: 'none', tags, summary: 'Platform statistics',
      description: 'avgLatencyMs = mean latency of the completed tasks; verificationRate = VERIFIED share of completed tasks, from 0 to 1. System tasks are not counted. Read from counters kept with every task write (a sum and a count, so the mean is exact).',
      responses: { 200: { description: 'stats', schema: t.Object({ totalTasks: t.Integer(), totalOperators: t.Integer(), totalAgents: t.Integer(), avgLatencyMs: t.Number(), verificationRate: t.Number() }) } },
      handler: () => s.stats.overall(),
    }),
    defineRoute({
      method: 'GET', path: '/api/v1/public/stats/daily', auth: 'none', tags, query: DailyQuery,
      summary: 'Platform tasks per day over all operators: statuses, credits, verification, latency percentiles',
      description: `The same series as GET /api/v1/operator/stats/daily, over all operators (system tasks excluded). ${DAILY_DESCRIPTION}`,
      responses: { 200: { description: 'daily series', schema: DailySeries } },
      handler: ({ query }) => s.stats.series('', Number(query.days ?? 30)),
    }),
    defineRoute({
      method: 'GET', path: '/api/v1/public/agent/:agentId/passport', auth: 'none', tags, params: t.Object({ agentId: Id(128, 'agent id') }),
      errors: { 404: ['NOT_FOUND'] },
      summary: 'Agent passport: public identity, trust metrics and x402 defence state',
      description: 'Trust levels and metric definitions: docs/pipeline.md. `x402` reports on the wallet bound to the agent\'s operator (walletChecked null when none is bound).',
      responses: { 200: { description: 'passport', schema: t.Object({
        agentId: t.String(), trustLevel: t.String(), ari: t.Number(), vci: t.Number(), cq: t.Number(), driftScore: t.Number(),
        totalTasks: t.Integer(), verifiedTasks: t.Integer(), enrolledAt: t.String(), lastActiveAt: t.Union([t.String(), t.Null()]), x402: X402State,
      }) } },
      handler: ({ params }) => {
        const a = s.agents.byId(params.agentId)
        if (!a) throw notFound('agent')
        const trust = s.agents.trust(a)
        const wallet = s.operators.byId(a.operatorId)?.walletAddress ?? null
        const x402 = wallet ? s.x402.walletState(wallet)
          : { blocked: false, reason: null, walletChecked: null, rateLimitMax: s.config.x402.maxPaidPerHour, rateLimitRemaining: null, rateLimitResetMs: null, rateLimitResetUnix: null }
        return {
          agentId: a.id, trustLevel: trust.trustLevel, ari: trust.ari, vci: trust.vci, cq: trust.cq, driftScore: trust.driftScore,
          totalTasks: a.totalTasks, verifiedTasks: a.verifiedTasks, enrolledAt: new Date(a.createdAt).toISOString(),
          lastActiveAt: a.lastActiveAt ? new Date(a.lastActiveAt).toISOString() : null, x402,
        }
      },
    }),
  ]
}
