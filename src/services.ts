// Composition root: builds every service once from the configuration. Route modules receive
// this object and call into it; nothing else constructs services.
import { AgentRepository } from './agents/repository'
import { AgentService } from './agents/service'
import { ChainTips } from './agents/chain-tips'
import { CHAIN_IDS, Signer, TASK_SCHEMA, TASK_SCHEMA_UID } from './chain/signer'
import { Clock } from './clock'
import { Leaderboard } from './public/leaderboard'
import { OverflowQueue } from './compute/overflow'
import { ComputeService } from './compute/service'
import { ComputeRepository } from './compute/repository'
import { Ledger } from './credits/ledger'
import { CreditsRepository } from './credits/repository'
import { CreditService } from './credits/service'
import { GuardrailStore } from './guardrails/store'
import { GuardrailRepository } from './guardrails/repository'
import { KILL_SWITCH_CODE, KillSwitch } from './guardrails/kill-switch'
import { importToMemory, IpfsNode } from './ipfs/node'
import { UploadService } from './ipfs/uploads'
import { UploadRepository } from './ipfs/repository'
import { PioneerService } from './pioneer/service'
import { PipelineRunner } from './pipeline/runner'
import { TaskService, taskCost } from './tasks/service'
import { SubmitService } from './tasks/submit'
import { TaskRepository } from './tasks/repository'
import { TaskLists } from './tasks/list'
import { WalletRepository } from './wallet/repository'
import { WalletService } from './wallet/service'
import { Faucet } from './money/faucet'
import { MoneyRepository } from './money/repository'
import { MockUsdc } from './money/usdc'
import { X402Gate } from './money/x402'
import type { Config } from './config'
import type { Db } from './db'
import { openDataLayer, type DataLayer } from './db/layer'
import { MetaRepository } from './db/meta'
import { Authenticator } from './http/auth'
import { HttpMetrics } from './http/metrics'
import { MemoryWindows, type WindowStore } from './http/ratelimit'
import { DbWindows, RateWindowRepository } from './http/rate-windows'
import { JobRunner } from './jobs/runner'
import { JobRepository } from './jobs/repository'
import { ReplicaRegistry, replicaId } from './jobs/replicas'
import { ReplicaRepository } from './jobs/replica-repository'
import { GroupCommitter } from './db/group-commit'
import { StorageMonitor } from './db/storage'
import { Checkpointer } from './db/checkpointer'
import { writeSync } from 'node:fs'
import { join } from 'node:path'
import { KeyService } from './keys/service'
import type { Logger } from './log'
import { GithubClient } from './operators/github'
import { buildAccounts } from './operators/accounts'
import type { OperatorService } from './operators/service'
import { SetupService } from './operators/setup'
import { TokenService } from './operators/tokens'
import { loadSecrets, type Secrets } from './secrets'
import { TosRepository } from './tos/repository'
import { TosService } from './tos/service'
import { ProofDocuments } from './proofs/documents'
import { ComplianceRepository } from './compliance/repository'
import { ComplianceService } from './compliance/service'
import { ExportService } from './export/service'
import { agentView } from './agents/service'
import { keyRecord } from './keys/service'
import { configView } from './guardrails/store'
import { killSwitchOf } from './guardrails/kill-switch'
import { ApprovalService } from './approvals/service'
import { ApprovalRepository } from './approvals/repository'
import { WebhookOutbox } from './webhooks/outbox'
import { Outbound } from './lib/outbound'
import { WebhookSecrets } from './webhooks/secrets'
import { WebhookRepository } from './webhooks/repository'
import type { StoredConfig } from './guardrails/store'
import { DailyStats } from './stats/daily'
import { StatsRepository } from './stats/repository'
import { Retention } from './jobs/retention'
import { PriceTable } from './compute/prices'
import { OpenAiDoor } from './openai/service'
import { McpDoor } from './mcp/service'
import { A2aDoor } from './a2a/service'
import { A2aPush } from './a2a/push'
import { A2aRepository } from './a2a/repository'
import pkg from '../package.json'

export interface Services {
  config: Config
  secrets: Secrets
  log: Logger
  /** The database (SQLite or PostgreSQL: src/db/layer.ts). */
  data: DataLayer
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
  /** Where a rate limiter keeps its counts, by its name: memory on SQLite, the database (shared by the replicas) on PostgreSQL. */
  rateWindows: (name: string) => WindowStore
  /** Whether the disk is full (writes answer 507 STORAGE_FULL; /readyz reports it). */
  storage: StorageMonitor
  /** Background checkpoints of both databases (started by the server; the `taskgate_checkpoint_worker` gauge). */
  checkpointer: Checkpointer
  setup: SetupService
  ledger: Ledger
  credits: CreditService
  pioneer: PioneerService
  agents: AgentService
  /** The public agent leaderboard. */
  leaderboard: Leaderboard
  compute: ComputeService
  /** The models' prices (USD per million tokens) and a task's estimated cost. */
  prices: PriceTable
  overflow: OverflowQueue
  ipfs: IpfsNode
  guardrails: GuardrailStore
  killSwitch: KillSwitch
  uploads: UploadService
  signer: Signer
  pipeline: PipelineRunner
  /** The tasks table and its timeline (src/tasks/repository.ts). */
  taskStore: TaskRepository
  tasks: TaskService
  /** A task submission from replay to answer: the steps of the submit route and of every door. */
  submit: SubmitService
  /** The OpenAI-compatible door (/v1/…). */
  openai: OpenAiDoor
  /** The MCP door (/mcp). */
  mcp: McpDoor
  /** The A2A door (/.well-known/agent-card.json, /a2a). */
  a2a: A2aDoor
  /** Daily aggregates and all-time platform figures, from the trigger-kept rollups. */
  stats: DailyStats
  wallet: WalletService
  usdc: MockUsdc
  x402: X402Gate
  faucet: Faucet
  /** Terms of Service versions and acceptances. */
  tos: TosService
  /** The task behind a receipt or task document (the public proof by CID). */
  proofs: ProofDocuments
  /** Compliance certificates (on demand and monthly). */
  compliance: ComplianceService
  /** The operator's streamed data export. */
  exporter: ExportService
  /** The approval queue (holds, resolve, expiry). */
  approvals: ApprovalService
  /** The durable webhook outbox. */
  outbox: WebhookOutbox
  /** Outbound requests on an operator's behalf: URL checks and the pinned request (webhooks, callbacks). */
  outbound: Outbound
  /** HMAC keys of the operators' webhooks. */
  webhookSecrets: WebhookSecrets
  /** The daily job that deletes refused tasks and webhook deliveries past TASKGATE_RETENTION_DAYS. */
  retention: Retention
  explorer: { tx(hash: string): string; attestation(uid: string): string }
  github: GithubClient | null
  /** Base URL users reach the service at (configured, or derived from the bound address). */
  baseUrl(): string
  printSetupUrl(): void
  setBoundPort(port: number): void
}

export async function buildServices(config: Config, log: Logger): Promise<Services> {
  const secrets = loadSecrets(config.dataDir, config.phase, config.keysDir)
  // Built before the databases open: on a full disk it frees its reserve so they can (src/db/storage.ts).
  const storage = new StorageMonitor({ dataDir: config.dataDir, log, probeMs: config.storageProbeMs })
  const data = openDataLayer(config)
  if (data.applied) log.info({ applied: data.applied, database: data.dialect }, 'database migrations applied')
  const { db, tx } = data
  const meta = new MetaRepository(db)
  const clock = new Clock(meta)
  const { keys, ledger, pioneer, operators } = buildAccounts(db, clock, config, tx)
  const tokens = await TokenService.create(secrets.jwtSecret, clock, config.tokenTtlSeconds)
  let port = config.port
  const baseUrl = () => config.publicUrl || `http://${config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host}:${port}`
  const rateWindowRepo = new RateWindowRepository(db)
  const rateWindows = (name: string): WindowStore => (data.dialect === 'postgres' ? new DbWindows(name, rateWindowRepo, tx) : new MemoryWindows())
  const computeRepo = new ComputeRepository(db)
  const compute = new ComputeService(computeRepo, tx, clock, log, config.providerTimeoutMs, secrets.dataKey, rateWindows('provider-keys'))
  const prices = new PriceTable(computeRepo, clock)
  const ipfs = await IpfsNode.open(config.dataDir, log, data.sqlite ? undefined : { db, tx })
  const signerSince = meta.get('signer.since') ?? (() => { const v = new Date(clock.now()).toISOString(); meta.insert('signer.since', v); return v })()
  // Built in dependency order, each from exactly what it uses. What needs the pipeline or the tasks,
  // built further down, reaches them inside a closure, which runs only once the server runs.
  const group = new GroupCommitter(tx)
  // PostgreSQL mode: this process is one replica of the database's (src/jobs/replicas.ts)
  const replica = data.dialect === 'postgres' ? new ReplicaRegistry(replicaId(config.dataDir), new ReplicaRepository(db), config.jobLeaseMs, log) : null
  const jobs = new JobRunner(new JobRepository(db), tx, clock, log, 64, group, replica)
  const agents = new AgentService(new AgentRepository(db), tx, clock, keys, compute.modelExists)
  // One task in flight (the one signing) or none: both cores are free for its two signatures.
  const signer = new Signer(secrets.signerKey, signerSince, CHAIN_IDS[config.phase], () => jobs.running <= 1)
  const taskStore = new TaskRepository(db)
  const costOf = (taskType: string) => taskCost(config.taskCost, taskType)
  const money = new MoneyRepository(db)
  const usdc = new MockUsdc(money, clock)
  const outbound = new Outbound({ allowPrivate: config.webhookAllowPrivate, dnsServers: config.dnsServers })
  const wallet = new WalletService(new WalletRepository(db), tx, clock, pioneer, config)
  const leaderboard = new Leaderboard(agents, clock)
  const tos = new TosService(new TosRepository(db), tx, clock, signer, ipfs, taskStore, config.tosRequired)
  const compliance = new ComplianceService(new ComplianceRepository(db), clock, signer, ipfs, jobs, operators, log)
  const credits = new CreditService(new CreditsRepository(db), tx, clock, ledger, jobs, operators, agents, config.monthlyCredits, log)
  const auth = new Authenticator(tokens, operators, keys, clock, { bearerRpm: config.bearerRpm, streamCheckMs: config.sseAuthCheckMs, windows: rateWindows('requests') })
  // Forged payment signatures count in the request limiter, per client address.
  const x402 = new X402Gate(money, tx, clock, config.x402, signer, ledger, usdc, auth.limiter)
  const faucet = new Faucet(money, tx, clock, config, usdc, x402, wallet, secrets.devWalletKey)
  const overflow = new OverflowQueue(computeRepo, tx, clock, log, compute, (job, outcome) => {
    if (job.taskId) return pipeline.resumeFromCompute(job.taskId, outcome)
    if (outcome.error) tx.write(() => ledger.refund(job.operatorId, `compute:${job.id}`, 'compute_refund'))
  }, replica ? 2 * config.providerTimeoutMs + config.jobLeaseMs : null) // replicas: a running job older than two provider calls and the lease is a dead replica's
  const guardrailRepo = new GuardrailRepository(db)
  const guardrails = new GuardrailStore(guardrailRepo, tx, clock, jobs, secrets.dataKey, costOf)
  // Turning the kill-switch on stops queued compute jobs (refunded, or their task failed) and held or queued tasks.
  const killSwitch = new KillSwitch(guardrailRepo, tx, clock, (operatorId, reason) => {
    const message = `stopped by the kill-switch: ${reason}`
    const stopped = overflow.cancelQueued(operatorId, KILL_SWITCH_CODE, message)
    for (const j of stopped) if (!j.taskId) ledger.refund(operatorId, `compute:${j.id}`, 'compute_refund')
    approvals.endForOperator(operatorId, reason) // their requests end too (EXPIRED, the reason as note)
    const tasks = pipeline.failParked(operatorId, KILL_SWITCH_CODE, message)
    return { tasks, jobs: stopped.filter((j) => !j.taskId).length }
  })
  const webhookRepo = new WebhookRepository(db)
  const webhookSecrets = new WebhookSecrets(webhookRepo, clock, secrets.dataKey, (id) => (guardrails.state(id).current as StoredConfig).approvalWebhookSecretSealed)
  const outbox = new WebhookOutbox(webhookRepo, tx, clock, jobs, log, {
    signer, secretFor: (id) => webhookSecrets.secretFor(id), outbound, pushHeaders: (id) => a2aPush.deliveryHeaders(id),
  })
  const explorer = {
    tx: (hash: string) => (config.explorerTxUrl || `${baseUrl()}/explorer/verification/{hash}`).replace('{hash}', hash),
    attestation: (uid: string) => (config.explorerAttestationUrl || `${baseUrl()}/explorer/attestation/{uid}`).replace('{uid}', uid),
  }
  const approvals = new ApprovalService(new ApprovalRepository(db), tx, clock, jobs, outbox, {
    settings: (id) => guardrails.current(id),
    trustLevelOf: (agentId) => { const a = agents.byId(agentId); return a ? agents.trust(a).trustLevel : 'QUARANTINE' },
    pipeline: {
      resumeApproved: (taskId) => pipeline.resumeApproved(taskId),
      failHeld: (taskId, code, message) => pipeline.failHeld(taskId, code, message),
      waitFor: (taskId, ms) => pipeline.waitFor(taskId, ms),
      task: (taskId) => pipeline.task(taskId),
    },
    receiptOf: (t) => ({
      taskId: t.id, status: t.status, agentId: t.agentId, latencyMs: t.latencyMs, creditCharged: t.creditsCharged, ipfsCid: t.ipfsCid,
      attestationUid: t.attestationUid, verificationBasescanUrl: t.verificationProof ? explorer.tx(t.verificationProof) : null, receiptCid: t.receiptCid, failureCode: t.failureCode,
    }),
    resolveUrl: (id) => `${baseUrl()}/#/approvals/${id}`,
  }, config.maxPendingApprovals)
  // A2A push notifications: configs per task, delivered through the outbox on the pipeline's status changes (registered below).
  const a2aPush: A2aPush = new A2aPush({
    repo: new A2aRepository(db), tx, clock, outbox, outbound, dataKey: secrets.dataKey, approvalIdOf: (id) => approvals.idForTask(id),
    task: (id) => pipeline.task(id), log, maxLivePerOperator: config.maxA2aPushConfigs,
  })
  const retention = new Retention(jobs, clock, log, config.retentionDays, {
    pruneRefusedTasks: (before, limit) => tasks.pruneRefused(before, limit),
    pruneDeliveries: (before) => outbox.prune(before),
    prunePushConfigs: (before) => a2aPush.prune(before),
  })
  const proofs = new ProofDocuments(ipfs, (id) => pipeline.task(id), (operatorId, version) => tos.acceptanceTaskId(operatorId, version),
    async (bytes) => (await importToMemory(bytes)).cid.toString(), () => signer.address)
  const exporter = new ExportService(clock, {
    profile: (id) => operators.profile(operators.byId(id)!),
    keys: (id) => keys.list(id).map(keyRecord),
    agents: (id) => agents.list(id).map(agentView),
    task: (t) => tasks.detail(t, true),
    tasksAfter: (operatorId, after, limit) => taskStore.operatorTasksAfter(operatorId, after, limit),
    ledgerAfter: (operatorId, after, limit) => ledger.entriesAfter(operatorId, after, limit),
    guardrails: (id) => {
      const st = guardrails.state(id)
      const iso = (ms: number) => new Date(ms).toISOString()
      return { current: configView(st.current), pending: st.pending ? { config: configView(st.pending.config), activatesAt: iso(st.pending.activatesAt) } : null, killSwitch: killSwitchOf(operators.byId(id)?.flags) }
    },
    approvals: (id) => approvals.listAll(id),
    tos: (id) => ({ status: tos.status(id), acceptances: tos.acceptances(id) }),
    certificates: (id) => compliance.list(id),
    wallet: (id) => ({ walletAddress: operators.byId(id)?.walletAddress ?? null }),
    pioneerEvents: (id) => pioneer.events(id, 1_000_000),
    a2aPushConfigs: (id) => a2aPush.exportFor(id),
  })
  const setup = new SetupService()
  const chainTips = new ChainTips() // the agents' state-root chains with the links of tasks still in flight (stage 6)
  const pipeline: PipelineRunner = new PipelineRunner({
    tasks: taskStore, tx, group, jobs, log, clock, agents, compute, overflow, storage, ledger, chainTips,
    stages: {
      clock, operators, guardrails, holdFor: (task) => approvals.holdFor(task), ledger, costOf, compute, prices, overflow,
      verificationThreshold: config.verificationThreshold, ipfs, chainTips, agents, pioneer,
      pioneerPoints: { task: config.pioneer.taskPoints, trustedLevel: config.pioneer.trustedLevelPoints },
      signer, taskSchema: { schema: TASK_SCHEMA, uid: TASK_SCHEMA_UID }, tasks: taskStore,
    },
  })
  pipeline.onStatusChange((before, after) => a2aPush.changed(before, after))
  const tasks: TaskService = new TaskService({
    tasks: taskStore, lists: new TaskLists(db), tx, group, pipeline, agents, operators, compute, ledger, clock, approvals, keys, tos, ipfs, explorer,
    taskCost: config.taskCost, ssePingMs: config.ssePingMs,
  })
  const submit = new SubmitService({ tasks, pipeline, x402, agents, tos })
  const openai = new OpenAiDoor({ submit, pipeline, compute, approvals, clock, log })
  const a2a = new A2aDoor({ publicUrl: config.publicUrl, version: pkg.version, submit, pipeline, tasks, approvals, push: a2aPush, auth, ssePingMs: config.ssePingMs, log })
  const mcp = new McpDoor({ origins: { publicUrl: config.publicUrl, loopbackOnly: ['127.0.0.1', 'localhost', '::1'].includes(config.host) }, submit, tasks, proofs, approvals, passport: { agents, operators, x402, config }, version: pkg.version })

  // What the route modules, the server and the command line see (nothing else receives it).
  const s: Services = {
    config, secrets, log, data, db, clock, operators, keys, tokens,
    auth, rateWindows,
    group, jobs,
    metrics: new HttpMetrics(),
    storage,
    checkpointer: new Checkpointer(data.sqlite && ipfs.connection ? [{ path: join(config.dataDir, 'taskgate.db'), conn: data.sqlite }, { path: join(config.dataDir, 'ipfs.db'), conn: ipfs.connection }] : [],
      config.checkpointMs, (reason) => log.warn({ reason }, 'checkpoints run inside commits (no worker)')),
    setup,
    github: config.github.enabled ? new GithubClient(config.github) : null,
    baseUrl,
    printSetupUrl: () => {
      const token = setup.current()
      if (!token) return
      // Shown on the console on purpose (like PocketBase): whoever runs the server sets it up.
      // Straight to fd 2: process.stderr is a Node stream built at its first use (~1–3 ms of start-up).
      writeSync(2, `\n  TaskGate has no administrator yet. Create the first (admin) operator at:\n\n    ${baseUrl()}/#/setup?token=${token}\n\n  or from a shell: taskgate operator create --login <login> --password <password> --admin\n\n`)
    },
    setBoundPort: (p) => { port = p },
    ledger, compute, prices, ipfs, guardrails, killSwitch,
    uploads: new UploadService(new UploadRepository(db), clock, ipfs, config.uploads),
    pioneer, agents,
    leaderboard, overflow, signer,
    pipeline,
    taskStore,
    tasks,
    submit,
    openai,
    mcp,
    a2a,
    stats: new DailyStats(new StatsRepository(db), clock),
    wallet, usdc, x402, faucet,
    tos, proofs, compliance, exporter, approvals, outbox, outbound, webhookSecrets, retention, credits,
    explorer,
  }
  registerJobs(s)
  return s
}

/**
 * Every kind of durable job and what runs it: the one place jobs are registered (the runner's own
 * housekeeping, `jobs.prune`, registers itself). Services enqueue their kinds; the runner starts
 * once the server listens, after this.
 */
function registerJobs(s: Services): void {
  const j = s.jobs
  j.register('task.run', (p: { taskId: string }, job) => s.pipeline.run(p.taskId, job))
  j.addStartupHook(() => s.pipeline.resumeUnfinished()) // tasks a stopped process left in PROCESSING
  j.register('credits.refill', () => { s.credits.refillDue() })
  j.register('guardrails.activate', (p: { operatorId: string }) => s.guardrails.activate(p.operatorId))
  j.register('approval.expire', (p: { id: string }) => s.approvals.expire(p.id))
  j.register('approval.expiring', (p: { id: string }) => s.approvals.expiring(p.id))
  j.register('webhook.deliver', (p: { id: string }) => { s.outbox.launch(p.id) })
  j.register('compliance.monthly', async () => { await s.compliance.issueMonthly() })
  j.register('retention.prune', () => s.retention.run())
}
