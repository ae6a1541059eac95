// Composition root: builds every service once from the configuration. Route modules receive
// this object and call into it; nothing else constructs services.
import { AgentService } from './agents/service'
import { CHAIN_IDS, Signer, TASK_SCHEMA, TASK_SCHEMA_UID } from './chain/signer'
import { Clock } from './clock'
import { OverflowQueue } from './compute/overflow'
import { ComputeService } from './compute/service'
import { Ledger } from './credits/ledger'
import { CreditService } from './credits/service'
import { GuardrailStore } from './guardrails/store'
import { IpfsNode } from './ipfs/node'
import { UploadService } from './ipfs/uploads'
import { PioneerService } from './pioneer/service'
import { PipelineRunner } from './pipeline/runner'
import { TaskService } from './tasks/service'
import { WalletService } from './wallet/service'
import { Faucet } from './money/faucet'
import { MockUsdc } from './money/usdc'
import { X402Gate } from './money/x402'
import type { Config } from './config'
import { migrate, openDb, type Db } from './db'
import { Authenticator } from './http/auth'
import { HttpMetrics } from './http/metrics'
import { JobRunner } from './jobs/runner'
import { GroupCommitter } from './db/group-commit'
import { StorageMonitor } from './db/storage'
import { KeyService } from './keys/service'
import type { Logger } from './log'
import { GithubClient } from './operators/github'
import { buildAccounts } from './operators/accounts'
import type { OperatorService } from './operators/service'
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
  /** Shared group commit for hot-path writes (pipeline stages, job completion). */
  group: GroupCommitter
  metrics: HttpMetrics
  /** Whether the disk is full (writes answer 507 STORAGE_FULL; /readyz reports it). */
  storage: StorageMonitor
  setup: SetupService
  ledger: Ledger
  credits: CreditService
  pioneer: PioneerService
  agents: AgentService
  compute: ComputeService
  overflow: OverflowQueue
  ipfs: IpfsNode
  guardrails: GuardrailStore
  uploads: UploadService
  signer: Signer
  chainInfo: { taskSchema: { schema: string; uid: string } }
  pipeline: PipelineRunner
  tasks: TaskService
  wallet: WalletService
  usdc: MockUsdc
  x402: X402Gate
  faucet: Faucet
  explorer: { tx(hash: string): string; attestation(uid: string): string }
  github: GithubClient | null
  /** Base URL users reach the service at (configured, or derived from the bound address). */
  baseUrl(): string
  printSetupUrl(): void
  setBoundPort(port: number): void
}

export async function buildServices(config: Config, log: Logger): Promise<Services> {
  const secrets = loadSecrets(config.dataDir, config.phase)
  // Built before the databases open: on a full disk it frees its reserve so they can (src/db/storage.ts).
  const storage = new StorageMonitor({ dataDir: config.dataDir, log, probeMs: config.storageProbeMs })
  const db = openDb(config.dataDir)
  const applied = migrate(db)
  if (applied) log.info({ applied }, 'database migrations applied')
  const clock = new Clock(db.$client)
  const { keys, ledger, operators } = buildAccounts(db, clock, config)
  const tokens = await TokenService.create(secrets.jwtSecret, clock, config.tokenTtlSeconds)
  let port = config.port
  const compute = new ComputeService(db.$client, clock, log, config.providerTimeoutMs, secrets.dataKey)
  const ipfs = await IpfsNode.open(config.dataDir)
  const signerSince = (db.$client.query("SELECT value FROM meta WHERE key = 'signer.since'").get() as { value: string } | null)?.value
    ?? (() => { const v = new Date(clock.now()).toISOString(); db.$client.query("INSERT INTO meta (key, value) VALUES ('signer.since', ?1)").run(v); return v })()
  const s: Services = {
    config, secrets, log, db, clock, operators, keys, tokens,
    auth: new Authenticator(tokens, operators, keys, clock, { bearerRpm: config.bearerRpm, streamCheckMs: config.sseAuthCheckMs }),
    group: new GroupCommitter(db.$client),
    jobs: null as unknown as JobRunner,
    metrics: new HttpMetrics(),
    storage,
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
    ledger, compute, ipfs,
    guardrails: new GuardrailStore(db.$client),
    uploads: new UploadService(db.$client, clock, ipfs, config.uploads),
    pioneer: new PioneerService(db.$client, clock),
    agents: new AgentService(db.$client, clock, keys, compute.modelExists),
    overflow: null as unknown as OverflowQueue,
    signer: new Signer(secrets.signerKey, signerSince, CHAIN_IDS[config.phase]),
    chainInfo: { taskSchema: { schema: TASK_SCHEMA, uid: TASK_SCHEMA_UID } },
    pipeline: null as unknown as PipelineRunner,
    tasks: null as unknown as TaskService,
    wallet: null as unknown as WalletService,
    usdc: new MockUsdc(db.$client, clock),
    x402: null as unknown as X402Gate,
    faucet: null as unknown as Faucet,
    credits: null as unknown as CreditService,
    explorer: {
      tx: (hash) => (config.explorerTxUrl || `${s.baseUrl()}/explorer/verification/{hash}`).replace('{hash}', hash),
      attestation: (uid) => (config.explorerAttestationUrl || `${s.baseUrl()}/explorer/attestation/{uid}`).replace('{uid}', uid),
    },
  }
  operators.pointsOf = (id) => s.pioneer.total(id)
  s.wallet = new WalletService(db.$client, clock, s.pioneer, config)
  s.x402 = new X402Gate(s)
  s.faucet = new Faucet(db.$client, clock, config, s.usdc, s.x402, s.wallet, secrets.devWalletKey)
  s.jobs = new JobRunner(db.$client, clock, log, 64, s.group)
  s.pipeline = new PipelineRunner(s)
  s.tasks = new TaskService(s)
  s.credits = new CreditService(s)
  s.overflow = new OverflowQueue(db.$client, clock, log, compute, (job, outcome) => {
    if (job.taskId) return s.pipeline.resumeFromCompute(job.taskId, outcome)
    if (outcome.error) db.$client.transaction(() => ledger.refund(job.operatorId, `compute:${job.id}`, 'compute_refund'))()
  })
  return s
}
