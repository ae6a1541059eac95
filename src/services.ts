// Composition root: builds every service once from the configuration. Route modules receive
// this object and call into it; nothing else constructs services.
import { Clock } from './clock'
import type { Config } from './config'
import { migrate, openDb, type Db } from './db'
import { Authenticator } from './http/auth'
import { HttpMetrics } from './http/metrics'
import { JobRunner } from './jobs/runner'
import { KeyService } from './keys/service'
import type { Logger } from './log'
import { GithubClient } from './operators/github'
import { OperatorService } from './operators/service'
import { SetupService } from './operators/setup'
import { TokenService } from './operators/tokens'
import { loadSecrets, type Secrets } from './secrets'

export interface Services {
  config: Config
  secrets: Secrets
  log: Logger
  db: Db
  clock: Clock
  operators: OperatorService
  keys: KeyService
  tokens: TokenService
  auth: Authenticator
  jobs: JobRunner
  metrics: HttpMetrics
  setup: SetupService
  github: GithubClient | null
  /** Base URL users reach the service at (configured, or derived from the bound address). */
  baseUrl(): string
  printSetupUrl(): void
  setBoundPort(port: number): void
}

export function buildServices(config: Config, log: Logger): Services {
  const secrets = loadSecrets(config.dataDir)
  const db = openDb(config.dataDir)
  const applied = migrate(db)
  if (applied) log.info({ applied }, 'database migrations applied')
  const clock = new Clock(db.$client)
  const keys = new KeyService(db, clock, config.phase)
  const operators = new OperatorService(db, clock, (id) => keys.hasActiveKey(id))
  const tokens = new TokenService(secrets.jwtSecret, clock, config.tokenTtlSeconds)
  let port = config.port
  const s: Services = {
    config, secrets, log, db, clock, operators, keys, tokens,
    auth: new Authenticator(tokens, operators, keys, clock),
    jobs: new JobRunner(db.$client, clock, log),
    metrics: new HttpMetrics(),
    setup: new SetupService(),
    github: config.github.enabled ? new GithubClient(config.github) : null,
    baseUrl: () => config.publicUrl || `http://${config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host}:${port}`,
    printSetupUrl: () => {
      const token = s.setup.current()
      if (!token) return
      // Shown on the console on purpose (like PocketBase): whoever runs the server sets it up.
      process.stderr.write(`\n  TaskGate has no administrator yet. Create the first (admin) operator at:\n\n    ${s.baseUrl()}/#/setup?token=${token}\n\n  or from a shell: taskgate operator create --login <login> --password <password> --admin\n\n`)
    },
    setBoundPort: (p) => { port = p },
  }
  return s
}
