import { t } from 'elysia'
import { Nullable } from '../http/schemas'
import { DAY_CHOICES } from './daily'

export const DailyQuery = t.Object({
  days: t.Optional(t.Union(DAY_CHOICES.map((d) => t.Literal(d)), { description: 'how many UTC days, ending today (default 30)' })),
})

const IsoDate = t.String({ format: 'date', description: 'a UTC day, YYYY-MM-DD' })

export const DailySeries = t.Object({
  days: t.Integer({ description: 'number of entries in `series`' }),
  from: IsoDate,
  to: IsoDate,
  series: t.Array(t.Object({
    date: IsoDate,
    tasks: t.Object({
      total: t.Integer({ description: 'tasks created that day (system tasks excluded), whatever their status' }),
      completed: t.Integer(), failed: t.Integer(),
      processing: t.Integer({ description: 'still running: PROCESSING, or QUEUED in the overflow queue' }),
      pendingApproval: t.Integer({ description: 'held for approval' }),
    }),
    creditsSpent: t.Integer({ description: 'credits charged for these tasks (refunds deducted)' }),
    verified: t.Integer({ description: 'COMPLETED tasks whose verification passed' }),
    verificationRate: t.Number({ description: 'verified / completed, from 0 to 1 (0 without completed tasks)' }),
    latencyP50Ms: Nullable(t.Number({ description: 'median compute latency of the completed tasks (histogram estimate, within 9.05 %)' })),
    latencyP95Ms: Nullable(t.Number({ description: '95th percentile of the same (histogram estimate, within 9.05 %)' })),
    tokens: t.Object({
      prompt: t.Integer({ description: 'prompt (input) tokens' }), completion: t.Integer({ description: 'completion (output) tokens' }), total: t.Integer({ description: 'prompt + completion' }),
    }, { description: 'tokens of the tasks that finished (COMPLETED or FAILED), as their providers counted them (the builtin provider counts words); exact sums of the tasks\' `usage`' }),
    costUsd: t.Number({ minimum: 0, description: 'estimated cost in USD of the same tasks: the exact sum of their `costUsd` (each rounded to a millionth of a dollar, from the price table at compute time, GET /api/v1/admin/prices); tasks of a model without a price add nothing' }),
  }), { description: 'one entry per day, oldest first, days without tasks zero-filled' }),
})

export const DAILY_DESCRIPTION = 'Days are UTC days of the server clock; a task counts on the day it was created, with its current status, credits, latency, tokens and estimated cost (tokens and cost once it finished, COMPLETED or FAILED). Latency percentiles come from a per-day histogram with four log-spaced buckets per doubling (bucket b holds [2^(b/4), 2^((b+1)/4)) ms); the estimate is the geometric middle of the bucket holding the rank, within 9.05 % of the exact value; null on a day without completed tasks. Read from rollups kept in the same transaction as every task write.'
