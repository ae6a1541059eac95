// HTTP for the operator's daily aggregates (console charts).
import { defineRoute } from '../http/route'
import type { Services } from '../services'
import { DAILY_DESCRIPTION, DailyQuery, DailySeries } from './schema'

export function statsRoutes(s: Services) {
  return [
    defineRoute({
      method: 'GET', path: '/api/v1/operator/stats/daily', auth: 'either', tags: ['Stats'], query: DailyQuery,
      summary: 'The operator\'s tasks per day: statuses, credits, verification, latency percentiles, tokens and estimated cost',
      description: `${DAILY_DESCRIPTION} Bearer token or API key of the operator (an agent-bound key sees its operator's figures).`,
      responses: { 200: { description: 'daily series', schema: DailySeries } },
      handler: ({ auth, query }) => s.stats.series(auth.operator.id, Number(query.days ?? 30)),
    }),
  ]
}
