// HTTP for credits: billing, balance (self only), dashboard, admin grants.
import { t } from 'elysia'
import { defineRoute } from '../http/route'
import { Id, pageQuery, PageParams } from '../http/schemas'
import type { Services } from '../services'

const Balance = t.Object({
  id: t.String(), operatorId: t.String(), balance: t.Integer(), monthlyAllocation: t.Integer(), lastResetAt: t.String(),
  allocationBalance: t.Integer(), purchasedBalance: t.Integer(), nextResetAt: t.String(),
})
const Transaction = t.Object({
  id: t.Integer(), operatorId: t.String(), delta: t.Integer(), balanceAfter: t.Integer(), bucket: t.String(), reason: t.String(),
  taskId: t.Union([t.String(), t.Null()]), createdAt: t.String(),
})

export function creditRoutes(s: Services) {
  const tags = ['Credits']
  return [
    defineRoute({
      method: 'GET', path: '/api/v1/operator/billing', auth: 'bearer', tags,
      query: t.Object(PageParams),
      summary: 'Credit balance and the ledger, newest first',
      description: 'Balance = allocationBalance (refilled to the tier\'s monthly allocation at 00:00 UTC on the 1st; does not carry over) + purchasedBalance (grants, payments, refunds; carries over). Spending takes the allocation first.',
      responses: { 200: { description: 'billing', schema: t.Object({ balance: Balance, transactions: t.Array(Transaction), page: t.Integer(), limit: t.Integer(), total: t.Integer(), totalPages: t.Integer() }) } },
      handler: ({ auth, query }) => { const { page, limit } = pageQuery(query); return s.credits.billing(auth.operator.id, page, limit) },
    }),
    defineRoute({
      method: 'GET', path: '/api/v1/credits/balance/:operatorId', auth: 'bearer', tags, params: t.Object({ operatorId: Id(64, 'your own operator id') }),
      summary: 'Credit balance (self only: another operator\'s id is 403)',
      errors: { 403: ['FORBIDDEN'], 404: ['NOT_FOUND'] },
      responses: { 200: { description: 'balance', schema: Balance } },
      handler: ({ auth, params }) => s.credits.balanceFor(auth.operator.id, params.operatorId),
    }),
    defineRoute({
      method: 'GET', path: '/api/v1/operator/dashboard', auth: 'bearer', tags,
      summary: 'Dashboard overview: credits, tasks this month, verification rate (percent), latency, agents',
      description: 'Trends compare this calendar month (UTC) with the previous one: tasksTrend and latencyTrend are differences, verificationTrend is a difference in percentage points.',
      responses: { 200: { description: 'DashboardStatsDto', schema: t.Object({
        creditsRemaining: t.Number(), creditsTotal: t.Number(), creditsResetDays: t.Number(), tasksThisMonth: t.Number(), tasksTrend: t.Number(),
        verificationRate: t.Number(), verificationTrend: t.Number(), avgLatencyMs: t.Number(), latencyTrend: t.Number(), agentCount: t.Number(),
      }) } },
      handler: ({ auth }) => s.credits.dashboard(auth.operator.id),
    }),
    defineRoute({
      method: 'POST', path: '/api/v1/admin/credits', auth: 'bearer', admin: true, tags: ['Admin'],
      body: t.Object({ operatorId: Id(64), amount: t.Integer({ minimum: 1, maximum: 100_000_000 }), reason: t.String({ minLength: 1, maxLength: 200 }) }),
      summary: 'Grant credits to an operator (purchased bucket: they carry over)',
      requestHeaders: ['Idempotency-Key'],
      errors: { 400: ['INVALID_IDEMPOTENCY_KEY'], 404: ['NOT_FOUND'] },
      description: 'Send an `Idempotency-Key` header (1–255 characters) to make retries safe: the same key grants once (a replay answers `applied: false`).',
      responses: { 200: { description: 'granted', schema: t.Object({ applied: t.Boolean(), balance: Balance }) } },
      handler: ({ body, request }) => s.credits.grant(body.operatorId, body.amount, body.reason, request.headers.get('idempotency-key')),
    }),
  ]
}
