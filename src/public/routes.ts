// Public read endpoints: platform statistics (all-time and per day) and agent passports (no credential).
import { t } from 'elysia'
import { defineRoute } from '../http/route'
import { DateTime, Id, type IntBounds, QueryInt, queryInt } from '../http/schemas'
import { SCORE_FORMULA } from './leaderboard'
import { X402State } from '../money/routes'
import type { Services } from '../services'
import { passportOf } from './passport'
import { DAILY_DESCRIPTION, DailyQuery, DailySeries } from '../stats/schema'


const LEADERBOARD_LIMIT: IntBounds = { minimum: 1, maximum: 100, default: 20 }
const RankedAgent = t.Object({
  rank: t.Integer({ minimum: 1 }), agentId: t.String(), trustLevel: t.String(), score: t.Number({ minimum: 0, maximum: 100, description: 'the composite score' }),
  ari: t.Number(), vci: t.Number(), cq: t.Number(), totalTasks: t.Integer(), verifiedTasks: t.Integer(), verifiedShare: t.Number({ minimum: 0, maximum: 1 }),
})

export function publicRoutes(s: Services) {
  const tags = ['Public']
  return [
    defineRoute({
      method: 'GET', path: '/api/v1/public/leaderboard', auth: 'none', tags, query: t.Object({ limit: t.Optional(QueryInt('entries per list', LEADERBOARD_LIMIT)) }),
      summary: 'Top agents by composite score',
      description: `${SCORE_FORMULA} \`data\` ranks active agents outside QUARANTINE; \`quarantined\` and \`archived\` are ranked apart. Candidates: agents with at least one finished or failed task. Recomputed at most every 5 s. Metric meanings: docs/pipeline.md (passport).`,
      responses: { 200: { description: 'the leaderboard', schema: t.Object({
        generatedAt: DateTime, formula: t.String(), data: t.Array(RankedAgent), quarantined: t.Array(RankedAgent), archived: t.Array(RankedAgent),
      }) } },
      handler: ({ query }) => s.leaderboard.top(queryInt('limit', query.limit, LEADERBOARD_LIMIT)),
    }),
    defineRoute({
      method: 'GET', path: '/api/v1/public/stats', auth: 'none', tags, summary: 'Platform statistics',
      description: 'avgLatencyMs = mean latency of the completed tasks; verificationRate = VERIFIED share of completed tasks, from 0 to 1. System tasks are not counted. Read from counters kept with every task write (a sum and a count, so the mean is exact).',
      responses: { 200: { description: 'stats', schema: t.Object({ totalTasks: t.Integer(), totalOperators: t.Integer(), totalAgents: t.Integer(), avgLatencyMs: t.Number(), verificationRate: t.Number() }) } },
      handler: () => s.stats.overall(),
    }),
    defineRoute({
      method: 'GET', path: '/api/v1/public/stats/daily', auth: 'none', tags, query: DailyQuery,
      summary: 'Platform tasks per day over all operators: statuses, credits, verification, latency percentiles, tokens and estimated cost',
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
        agentId: t.String(), displayName: t.String({ description: 'the name its operator gave the agent' }), trustLevel: t.String(), ari: t.Number(), vci: t.Number(), cq: t.Number(), driftScore: t.Number(),
        totalTasks: t.Integer(), verifiedTasks: t.Integer(), enrolledAt: t.String(), lastActiveAt: t.Union([t.String(), t.Null()]), x402: X402State,
        nextLevel: t.Union([t.Object({
          trustLevel: t.String({ description: 'the next trust level' }),
          requirements: t.Array(t.Object({
            metric: t.String({ description: 'totalTasks, ari, vci or driftScore' }), minimum: t.Optional(t.Number()), maximum: t.Optional(t.Number()),
            current: t.Number(), met: t.Boolean(),
          }), { description: 'every one must be met (and QUARANTINE\'s conditions avoided)' }),
        }), t.Null()], { description: 'what it takes to reach the next trust level; null at TRUSTED' }),
      }) } },
      handler: ({ params }) => passportOf(s, params.agentId),
    }),
  ]
}
