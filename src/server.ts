// Starts the HTTP server with every route, the job runner, and graceful shutdown.
import type { Config } from './config'
import { createHttp } from './http/app'
import { buildOpenApi } from './http/openapi'
import { storageProbe } from './db'
import { isStorageUnavailable } from './db/storage'
import type { RouteDef } from './http/route'
import { agentRoutes } from './agents/routes'
import { computeRoutes } from './compute/routes'
import { creditRoutes } from './credits/routes'
import { ipfsRoutes } from './ipfs/routes'
import { keyRoutes } from './keys/routes'
import { moneyRoutes } from './money/routes'
import { proofRoutes } from './proofs/routes'
import { explorerRoutes, type ConsolePage } from './proofs/explorer'
import { publicRoutes } from './public/routes'
import { statsRoutes } from './stats/routes'
import { taskRoutes } from './tasks/routes'
import { walletRoutes } from './wallet/routes'
import { createLogger, type Logger } from './log'
import { operatorRoutes } from './operators/routes'
import { guardrailRoutes } from './guardrails/routes'
import { tosRoutes } from './tos/routes'
import { complianceRoutes } from './compliance/routes'
import { exportRoutes } from './export/routes'
import { approvalRoutes } from './approvals/routes'
import { webhookRoutes } from './webhooks/routes'
import { openAiRoutes } from './openai/routes'
import { mcpRoutes } from './mcp/routes'
import { a2aRoutes } from './a2a/routes'
import { buildServices, type Services } from './services'
import { systemRoutes, VERSION } from './system/routes'
import { loadUiAssets, uiResponse } from './ui-assets'

/**
 * Every route, and the OpenAPI document built from them at its first request (~35 ms of CPU that
 * start-up no longer pays; docs/performance.md). It is built from copies of the schemas, which
 * nothing mutates, so it does not depend on what requests came first (test/http/openapi.test.ts).
 */
export function allRoutes(s: Services, consolePage: ConsolePage = () => new Response(null, { status: 404 })): RouteDef[] {
  const routes: RouteDef[] = []
  let openapi: Uint8Array<ArrayBuffer> | null = null
  const c = s.config
  // Kept as UTF-8 bytes: ~0.5 MB, half of the string (its descriptions are not all ASCII, so JavaScript would hold it in UTF-16).
  const document = () => openapi ??= Buffer.from(JSON.stringify(buildOpenApi(routes, { version: VERSION, publicUrl: c.publicUrl || undefined, jsonBodyLimit: c.jsonBodyLimit, uploadBodyLimit: c.uploadBodyLimit, bearerRpm: c.bearerRpm })))
  routes.push(...systemRoutes(s, document), ...operatorRoutes(s), ...guardrailRoutes(s), ...keyRoutes(s), ...agentRoutes(s), ...taskRoutes(s), ...computeRoutes(s), ...ipfsRoutes(s), ...proofRoutes(s), ...explorerRoutes(s, consolePage), ...creditRoutes(s), ...walletRoutes(s), ...moneyRoutes(s), ...publicRoutes(s), ...statsRoutes(s), ...tosRoutes(s), ...complianceRoutes(s), ...exportRoutes(s), ...approvalRoutes(s), ...webhookRoutes(s), ...openAiRoutes(s), ...mcpRoutes(s), ...a2aRoutes(s))
  return routes
}

/** A write made at start-up: on a full disk it is retried once storage is available again. */
function startupWrite(s: Services, what: string, write: () => void): void {
  try {
    write()
  } catch (e) {
    if (!isStorageUnavailable(e)) throw e
    s.storage.markFull(e)
    s.log.warn({ step: what, err: (e as Error).message, code: (e as { code?: string }).code }, 'start-up write deferred until storage is available')
    const off = s.storage.onRecovered(() => { off(); startupWrite(s, what, write) })
  }
}

export interface RunningServer { services: Services; url: string; port: number; stop(): Promise<void> }

export async function startServer(config: Config, log: Logger = createLogger(config.logLevel)): Promise<RunningServer> {
  const s = await buildServices(config, log)
  // The probes that decide when a full disk has room again; then the reserve check: a server that
  // starts on a full disk says so in its log, serves reads and defers its start-up writes.
  if (s.data.sqlite) {
    const sqlite = s.data.sqlite
    s.storage.addProbe('taskgate.db', () => storageProbe(sqlite))
    s.storage.addProbe('ipfs.db', () => s.ipfs.probeWrite())
  } else { // PostgreSQL's disk is its server's concern; what this process sees is whether it answers
    s.storage.addProbe('database', () => s.data.ping())
  }
  s.storage.start()
  // The admin console (docs/console.md): embedded in the binary, bundled from ui/ in a checkout.
  const ui = await loadUiAssets()
  const consolePage: ConsolePage = (request, status) => uiResponse(ui.get('/index.html')!, request, status)
  const app = createHttp({
    routes: allRoutes(s, consolePage), auth: s.auth, log, metrics: s.metrics,
    jsonBodyLimit: config.jsonBodyLimit, uploadBodyLimit: config.uploadBodyLimit, storage: s.storage,
  })
  // The console's files: plain routes, through the same hooks as every other.
  for (const [path, file] of ui) app.get(path, ({ request }) => uiResponse(file, request))
  // Elysia starts Bun.serve and hands it every route, so Bun's router matches them natively.
  app.listen({
    // Body limits are ours (problem+json 413 on the declared length, or while streaming), so Bun's own
    // cap, which answers an empty 413, sits far above them. Bun does not buffer a body nobody reads.
    port: config.port, hostname: config.host, maxRequestBodySize: 2 ** 40, idleTimeout: config.idleTimeoutSeconds,
    reusePort: false, // a second server on the same port fails to start
    error: () => new Response('internal error', { status: 500 }),
  })
  const server = app.server!
  s.setBoundPort(server.port!)
  s.keys.start(1000, s.storage)
  s.signer.startWorker() // at the first signature (taskgate_signing_worker in /metrics says whether it runs)
  if (config.checkpointMs > 0 && s.data.sqlite) s.checkpointer.start() // the worker starts with the write load
  s.jobs.start(250, s.storage)
  startupWrite(s, 'credit refill schedule', () => s.credits.schedule())
  startupWrite(s, 'compliance certificate schedule', () => s.compliance.schedule())
  startupWrite(s, 'webhook deliveries interrupted by a stop', () => { s.outbox.recover() })
  startupWrite(s, 'retention schedule', () => s.retention.schedule())
  s.overflow.start(s.storage)
  startupWrite(s, 'resume tasks whose overflow compute finished', () => { s.pipeline.resumeFinishedCompute() })
  s.setup.open(s.operators.countAdmins() === 0)
  log.info({ url: `http://${config.host}:${server.port}`, port: server.port, version: VERSION, dataDir: config.dataDir, database: s.data.where, phase: config.phase }, 'listening')
  s.printSetupUrl()
  let stopped = false
  return {
    services: s, url: s.baseUrl(), port: server.port!,
    async stop() {
      if (stopped) return
      stopped = true
      s.storage.stop()
      await server.stop()
      await s.overflow.stop()
      await s.jobs.stop()
      await s.checkpointer.stop()
      await s.ipfs.stop()
      s.signer.stopWorker()
      s.keys.stop()
      s.data.close()
      log.flush?.()
    },
  }
}
