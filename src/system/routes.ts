// Operational endpoints: health, readiness, metrics, OpenAPI + docs (docs/routes.ts), public config, test clock.
import { createHash, timingSafeEqual } from 'node:crypto'
import { t } from 'elysia'
import pkg from '../../package.json'
import { TIER_LIMITS } from '../config'
import { ProblemError, unauthorized } from '../http/errors'
import { defineRoute } from '../http/route'
import type { Services } from '../services'
import { docsRoutes } from './docs/routes'

export const VERSION: string = pkg.version

const Readiness = t.Object({
  status: t.Union([t.Literal('ready'), t.Literal('not ready')]),
  checks: t.Object({
    db: t.Union([t.Literal('ok'), t.Literal('unavailable')]),
    database: t.Union([t.Literal('ok'), t.Literal('unreachable')], { description: 'the same check in the words of the scale-out docs (docs/scale-out.md)' }),
    storage: t.Union([t.Literal('ok'), t.Literal('full')]),
    jobs: t.Union([t.Literal('ok'), t.Literal('not running')]),
    ipfs: t.Union([t.Literal('ok'), t.Literal('unavailable')]),
  }),
})

/** Compares the presented metrics token in constant time (digests of equal length, whatever was sent). */
function metricsTokenMatches(authorization: string | null, expected: string): boolean {
  const given = authorization?.startsWith('Bearer ') || authorization?.startsWith('bearer ') ? authorization.slice(7).trim() : ''
  const digest = (v: string) => createHash('sha256').update(v).digest()
  return timingSafeEqual(digest(given), digest(expected)) && given.length > 0
}

export function publicConfig(s: Services): Record<string, unknown> {
  const c = s.config
  return {
    'tiers.free.monthlyCredits': c.monthlyCredits.FREE,
    'tiers.pro.monthlyCredits': c.monthlyCredits.PRO,
    'tiers.pro.priceMonthlyUsd': c.proPriceMonthlyUsd,
    'tiers.enterprise.monthlyCredits': c.monthlyCredits.ENTERPRISE,
    'credits.topUpPacks': c.topUpPacks,
    'leaderboard.pioneer.taskPoints': c.pioneer.taskPoints,
    'leaderboard.pioneer.walletBindPoints': c.pioneer.walletBindPoints,
    'leaderboard.pioneer.trustedLevelPoints': c.pioneer.trustedLevelPoints,
    'leaderboard.pioneer.explorerThreshold': c.pioneer.explorerThreshold,
    'leaderboard.pioneer.founderThreshold': c.pioneer.founderThreshold,
    ...Object.fromEntries(Object.entries(TIER_LIMITS).flatMap(([tier, l]) => [
      [`tiers.${tier.toLowerCase()}.maxKeys`, l.keys],
      [`tiers.${tier.toLowerCase()}.maxAgents`, l.agents],
      [`tiers.${tier.toLowerCase()}.defaultRateLimitRpm`, l.defaultRpm],
      [`tiers.${tier.toLowerCase()}.maxRateLimitRpm`, l.maxRpm],
    ])),
    'network.phase': c.phase,
    'credits.taskCost': c.taskCost,
    'x402.pricePerCreditUsdc': c.x402.pricePerCredit / 1_000_000,
    'x402.maxPaidPerHour': c.x402.maxPaidPerHour,
    'faucet.enabled': c.phase === 'testnet',
    'auth.signup': c.signup,
    'auth.github': c.github.enabled,
  }
}

/** Gauges read from the database at scrape time: tasks by status, queues, jobs. */
function serviceGauges(s: Services): string[] {
  const lines = ['# HELP taskgate_tasks Tasks by status.', '# TYPE taskgate_tasks gauge']
  for (const r of s.taskStore.countsByStatus()) lines.push(`taskgate_tasks{status="${r.status}"} ${r.n}`)
  const jobs = s.jobs.counts()
  lines.push(
    '# HELP taskgate_compute_queue_depth Compute overflow jobs waiting for a key.', '# TYPE taskgate_compute_queue_depth gauge',
    `taskgate_compute_queue_depth ${s.overflow.queuedCount()}`,
    '# HELP taskgate_jobs_pending Durable jobs waiting to run.', '# TYPE taskgate_jobs_pending gauge',
    `taskgate_jobs_pending ${jobs.pending}`,
    '# HELP taskgate_jobs_failed Durable jobs that failed permanently (kept 7 days).', '# TYPE taskgate_jobs_failed gauge',
    `taskgate_jobs_failed ${jobs.failed}`,
    '# HELP taskgate_signing_worker 1 when EIP-712 signatures are made on the signing worker thread, 0 when on the main thread.', '# TYPE taskgate_signing_worker gauge',
    `taskgate_signing_worker ${s.signer.onWorker ? 1 : 0}`,
    '# HELP taskgate_checkpoint_worker 1 when the write-ahead logs are checkpointed on the worker thread (it starts with the write load), 0 before or without it.', '# TYPE taskgate_checkpoint_worker gauge',
    `taskgate_checkpoint_worker ${s.checkpointer.running ? 1 : 0}`,
  )
  return lines
}

/** `openapi`: the document, built at its first request from every route (server.ts allRoutes). */
export function systemRoutes(s: Services, openapi: () => Uint8Array<ArrayBuffer>) {
  const tags = ['System']
  const publicConfigJson = JSON.stringify(publicConfig(s)) // configuration is fixed for the process's life
  const routes = [
    defineRoute({
      method: 'GET', path: '/healthz', auth: 'none', tags, summary: 'Liveness',
      responses: { 200: { description: 'alive', schema: t.Object({ status: t.Literal('ok'), version: t.String() }) } },
      handler: () => ({ status: 'ok' as const, version: VERSION }),
    }),
    defineRoute({
      method: 'GET', path: '/readyz', auth: 'none', tags, summary: 'Readiness: database, storage, IPFS node and job runner',
      description: 'Each check is a fixed word: `db` ok | unavailable (and `database` ok | unreachable, the same check), `storage` ok | full (writes answer 507 STORAGE_FULL until space is freed), `jobs` ok | not running, `ipfs` ok | unavailable.',
      responses: { 200: { description: 'ready', schema: Readiness }, 503: { description: 'not ready (never internal error text)', schema: Readiness } },
      handler: ({ set }) => {
        const checks: Record<string, string> = {}
        if (s.storage.full) s.storage.probe() // back already? (work waiting for it resumes now, not at the next probe)
        const answers = s.data.answers()
        checks.db = answers ? 'ok' : 'unavailable' // never the error text
        checks.database = answers ? 'ok' : 'unreachable'
        checks.storage = s.storage.full && s.storage.kind === 'disk' ? 'full' : 'ok'
        checks.jobs = s.jobs.healthy() ? 'ok' : 'not running'
        checks.ipfs = s.ipfs.healthy() ? 'ok' : 'unavailable'
        const ready = Object.values(checks).every((v) => v === 'ok')
        if (!ready) { set.status = 503; set.headers['retry-after'] = '2' }
        return { status: ready ? 'ready' : 'not ready', checks }
      },
    }),
    defineRoute({
      method: 'GET', path: '/metrics', auth: 'none', tags, summary: 'Prometheus metrics',
      description: 'When TASKGATE_METRICS_TOKEN is set, send it as `Authorization: Bearer <token>` (compared in constant time).',
      ownSecurity: s.config.metricsToken ? [{ metricsToken: [] }] : [],
      ...(s.config.metricsToken ? { errors: { 401: ['UNAUTHENTICATED'] } } : {}),
      responses: { 200: { description: 'Prometheus text exposition format 0.0.4', contentType: 'text/plain' } },
      handler: ({ request }) => {
        if (s.config.metricsToken && !metricsTokenMatches(request.headers.get('authorization'), s.config.metricsToken)) {
          throw unauthorized('UNAUTHENTICATED', 'metrics require the metrics token')
        }
        return new Response(s.metrics.render(serviceGauges(s)), { headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' } })
      },
    }),
    defineRoute({
      method: 'GET', path: '/openapi.json', auth: 'none', tags, summary: 'This OpenAPI document', hidden: true,
      responses: { 200: { description: 'OpenAPI 3.2' } },
      handler: () => {
        return new Response(openapi(), { headers: { 'content-type': 'application/json' } })
      },
    }),
    ...docsRoutes(),
    defineRoute({
      method: 'GET', path: '/api/v1/config/public', auth: 'none', tags: ['Public'], summary: 'Public configuration: tiers, pricing, thresholds',
      description: 'A flat object with dotted keys. Values come from the server configuration (taskgate.toml / TASKGATE_*).',
      responses: { 200: { description: 'public configuration', schema: t.Record(t.String(), t.Unknown()) } },
      handler: () => new Response(publicConfigJson, { headers: { 'content-type': 'application/json' } }),
    }),
  ]
  if (s.config.testClock) {
    routes.push(defineRoute({
      method: 'POST', path: '/api/v1/admin/clock/advance', auth: 'bearer', admin: true, tags: ['Admin'],
      body: t.Object({ ms: t.Integer({ minimum: 0, maximum: 10 * 365 * 86_400_000, description: 'milliseconds to move the clock forward' }) }),
      summary: 'Move the service clock forward (testnet with TASKGATE_TEST_CLOCK=1 only)',
      responses: { 200: { description: 'new time', schema: t.Object({ now: t.String(), offsetMs: t.Integer() }) } },
      handler: async ({ body }) => {
        if (!s.config.testClock) throw new ProblemError(404, 'ROUTE_NOT_FOUND', 'test clock disabled')
        const now = await s.clock.advance(body.ms)
        return { now: new Date(now).toISOString(), offsetMs: s.clock.offset() }
      },
    }))
  }
  return routes
}
