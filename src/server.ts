// Starts the HTTP server with every route, the job runner, and graceful shutdown.
import { staticPlugin } from '@elysiajs/static'
import { join } from 'node:path'
import type { Config } from './config'
import { createHttp } from './http/app'
import type { RouteDef } from './http/route'
import { agentRoutes } from './agents/routes'
import { computeRoutes } from './compute/routes'
import { creditRoutes } from './credits/routes'
import { ipfsRoutes } from './ipfs/routes'
import { keyRoutes } from './keys/routes'
import { moneyRoutes } from './money/routes'
import { proofRoutes } from './proofs/routes'
import { publicRoutes } from './public/routes'
import { taskRoutes } from './tasks/routes'
import { walletRoutes } from './wallet/routes'
import { createLogger, type Logger } from './log'
import { operatorRoutes } from './operators/routes'
import { buildServices, type Services } from './services'
import { systemRoutes, VERSION } from './system/routes'

/** Where the admin UI files are: embedded under /$bunfs/root/ui in the binary, ./ui in a checkout. */
export const uiDir = import.meta.dir.startsWith('/$bunfs') ? join(import.meta.dir, 'ui') : join(import.meta.dir, '..', 'ui')

export function allRoutes(s: Services): RouteDef[] {
  const routes: RouteDef[] = []
  routes.push(...systemRoutes(s, () => routes), ...operatorRoutes(s), ...keyRoutes(s), ...agentRoutes(s), ...taskRoutes(s), ...computeRoutes(s), ...ipfsRoutes(s), ...proofRoutes(s), ...creditRoutes(s), ...walletRoutes(s), ...moneyRoutes(s), ...publicRoutes(s))
  return routes
}

export interface RunningServer { services: Services; url: string; port: number; stop(): Promise<void> }

export async function startServer(config: Config, log: Logger = createLogger(config.logLevel)): Promise<RunningServer> {
  const s = await buildServices(config, log)
  const http = createHttp({
    routes: allRoutes(s), auth: s.auth, log, metrics: s.metrics,
    jsonBodyLimit: config.jsonBodyLimit, uploadBodyLimit: config.uploadBodyLimit,
  })
  http.app.use(await staticPlugin({ assets: uiDir, prefix: '/', alwaysStatic: true, indexHTML: true }))
  http.app.compile()
  const server = Bun.serve({
    port: config.port, hostname: config.host, maxRequestBodySize: config.uploadBodyLimit + 1024 * 1024,
    fetch: (req, srv) => http.fetch(req, srv),
    error: () => new Response('internal error', { status: 500 }),
  })
  s.setBoundPort(server.port!)
  s.keys.start()
  if (!s.signer.startWorker()) log.warn('signing runs on the main thread (no worker)')
  s.jobs.start()
  s.credits.schedule()
  s.overflow.start()
  s.setup.open(s.operators.countAdmins() === 0)
  log.info({ url: `http://${config.host}:${server.port}`, port: server.port, version: VERSION, dataDir: config.dataDir, phase: config.phase }, 'listening')
  s.printSetupUrl()
  let stopped = false
  return {
    services: s, url: s.baseUrl(), port: server.port!,
    async stop() {
      if (stopped) return
      stopped = true
      await server.stop()
      await s.overflow.stop()
      await s.jobs.stop()
      await s.ipfs.stop()
      s.signer.stopWorker()
      s.keys.stop()
      s.db.$client.exec('PRAGMA wal_checkpoint(TRUNCATE)')
      s.db.$client.close()
      log.flush?.()
    },
  }
}
