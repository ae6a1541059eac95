// Public read endpoints: platform statistics and agent passports (no credential).
import { t } from 'elysia'
import { notFound } from '../http/errors'
import { defineRoute } from '../http/route'
import { Id } from '../http/schemas'
import { X402State } from '../money/routes'
import type { Services } from '../services'


export function publicRoutes(s: Services) {
  const tags = ['Public']
  return [
    defineRoute({
      method: 'GET', path: '/api/v1/public/stats', auth: 'none', tags, summary: 'Platform statistics',
      description: 'avgLatencyMs over completed tasks; verificationRate = VERIFIED share of completed tasks, from 0 to 1. System tasks are not counted.',
      responses: { 200: { description: 'stats', schema: t.Object({ totalTasks: t.Integer(), totalOperators: t.Integer(), totalAgents: t.Integer(), avgLatencyMs: t.Number(), verificationRate: t.Number() }) } },
      handler: () => {
        const db = s.db.$client
        const t1 = db.query(`SELECT count(*) AS n, avg(CASE WHEN status = 'COMPLETED' THEN latency_ms END) AS lat,
          sum(CASE WHEN status = 'COMPLETED' THEN 1 ELSE 0 END) AS done, sum(CASE WHEN verification_status = 'VERIFIED' AND status = 'COMPLETED' THEN 1 ELSE 0 END) AS verified
          FROM tasks WHERE task_type != 'system'`).get() as { n: number; lat: number | null; done: number | null; verified: number | null }
        const n = (sql: string) => (db.query(sql).get() as { n: number }).n
        return {
          totalTasks: t1.n, totalOperators: n('SELECT count(*) AS n FROM operators'), totalAgents: n('SELECT count(*) AS n FROM agents'),
          avgLatencyMs: Math.round((t1.lat ?? 0) * 100) / 100, verificationRate: t1.done ? Math.round(((t1.verified ?? 0) / t1.done) * 10000) / 10000 : 0,
        }
      },
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
