// Drizzle table definitions. The SQL that creates them lives in migrations/ (drizzle-kit generate).
import { sql } from 'drizzle-orm'
import { verificationColumn } from './verification-column'
import { blob, index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'

export const operators = sqliteTable('operators', {
  id: text('id').primaryKey(),
  login: text('login').notNull(),
  passwordHash: text('password_hash'),
  githubId: text('github_id'),
  email: text('email'),
  displayName: text('display_name'),
  tier: text('tier', { enum: ['FREE', 'PRO', 'ENTERPRISE'] }).notNull().default('FREE'),
  tierOverride: text('tier_override', { enum: ['FREE', 'PRO', 'ENTERPRISE'] }),
  status: text('status', { enum: ['ACTIVE', 'SUSPENDED', 'BANNED'] }).notNull().default('ACTIVE'),
  role: text('role', { enum: ['admin', 'operator'] }).notNull().default('operator'),
  flags: text('flags', { mode: 'json' }).$type<Record<string, unknown>>().notNull().default(sql`'{}'`),
  walletAddress: text('wallet_address'),
  firstTaskAt: integer('first_task_at'),
  tokenVersion: integer('token_version').notNull().default(0),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
}, (t) => [
  uniqueIndex('operators_login_uq').on(t.login),
  uniqueIndex('operators_github_id_uq').on(t.githubId),
  uniqueIndex('operators_wallet_uq').on(t.walletAddress),
])

export const apiKeys = sqliteTable('api_keys', {
  id: text('id').primaryKey(),
  operatorId: text('operator_id').notNull().references(() => operators.id),
  agentId: text('agent_id'),
  label: text('label'),
  keyHash: text('key_hash').notNull(),
  first4: text('first4').notNull(),
  last4: text('last4').notNull(),
  rateLimitRpm: integer('rate_limit_rpm').notNull(),
  isTestKey: integer('is_test_key', { mode: 'boolean' }).notNull().default(false),
  testUsesRemaining: integer('test_uses_remaining'),
  lastUsedAt: integer('last_used_at'),
  createdAt: integer('created_at').notNull(),
  revokedAt: integer('revoked_at'),
}, (t) => [
  uniqueIndex('api_keys_hash_uq').on(t.keyHash),
  index('api_keys_operator_idx').on(t.operatorId, t.createdAt),
])

// Durable jobs: the pipeline runner and the scheduler claim rows from here.
/** PostgreSQL mode: the processes serving the database, each with its heartbeat (src/jobs/replicas.ts). */
export const replicas = sqliteTable('replicas', {
  id: text('id').primaryKey(),
  startedAt: integer('started_at').notNull(),
  heartbeatAt: integer('heartbeat_at').notNull(),
})

/**
 * PostgreSQL mode: the rate limiters' windows (src/http/rate-windows.ts), shared by the replicas; on
 * SQLite they live in the process's memory and this table stays empty.
 */
export const rateWindows = sqliteTable('rate_windows', {
  key: text('key').primaryKey(),
  start: integer('start').notNull(),
  prev: integer('prev').notNull(),
  curr: integer('curr').notNull(),
})

export const jobs = sqliteTable('jobs', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  kind: text('kind').notNull(),
  payload: text('payload', { mode: 'json' }).$type<unknown>().notNull(),
  status: text('status', { enum: ['pending', 'running', 'done', 'failed'] }).notNull().default('pending'),
  runAt: integer('run_at').notNull(),
  attempts: integer('attempts').notNull().default(0),
  maxAttempts: integer('max_attempts').notNull().default(5),
  lastError: text('last_error'),
  dedupeKey: text('dedupe_key'),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
  /** PostgreSQL mode: the replica running it (src/jobs/replicas.ts); null on SQLite, where one process runs them all. */
  owner: text('owner'),
}, (t) => [
  index('jobs_due_idx').on(t.status, t.runAt),
  // only one *pending* job per dedupe key: a running job may schedule its own next run
  uniqueIndex('jobs_dedupe_pending_uq').on(t.dedupeKey).where(sql`status = 'pending'`),
])

// Small key/value store for service state (test clock offset, …).
export const meta = sqliteTable('meta', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
})

export const agents = sqliteTable('agents', {
  id: text('id').primaryKey(),
  operatorId: text('operator_id').notNull().references(() => operators.id),
  displayName: text('display_name').notNull(),
  description: text('description').notNull().default(''),
  model: text('model').notNull(),
  agentVersion: text('agent_version').notNull(),
  capabilities: text('capabilities', { mode: 'json' }).$type<string[]>().notNull(),
  status: text('status', { enum: ['ACTIVE', 'ARCHIVED'] }).notNull().default('ACTIVE'),
  keyId: text('key_id'),
  stateRoot: text('state_root').notNull(),
  metrics: text('metrics', { mode: 'json' }).$type<Record<string, unknown>>().notNull().default(sql`'{}'`),
  totalTasks: integer('total_tasks').notNull().default(0),
  verifiedTasks: integer('verified_tasks').notNull().default(0),
  failedTasks: integer('failed_tasks').notNull().default(0),
  lastActiveAt: integer('last_active_at'),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
}, (t) => [index('agents_operator_idx').on(t.operatorId, t.createdAt)])

export const tasks = sqliteTable('tasks', {
  id: text('id').primaryKey(),
  operatorId: text('operator_id').notNull().references(() => operators.id),
  agentId: text('agent_id').notNull(),
  keyId: text('key_id'),
  taskType: text('task_type').notNull(),
  /** '' once the task failed before its debit: then only its SHA-256 and length are kept (below). */
  prompt: text('prompt').notNull(),
  /**
   * A task that fails before its debit cost nothing, so it keeps its prompt's SHA-256 (hex, of the
   * UTF-8 bytes) and length in characters instead of the prompt, and no metadata (PipelineRunner,
   * docs/security.md, Limits). Null while the prompt is kept.
   */
  promptSha256: text('prompt_sha256'),
  promptLength: integer('prompt_length'),
  model: text('model').notNull(),
  provider: text('provider').notNull(),
  metadata: text('metadata', { mode: 'json' }).$type<Record<string, unknown> | null>(),
  action: text('action', { mode: 'json' }).$type<Record<string, unknown> | null>(),
  status: text('status', { enum: ['PENDING_APPROVAL', 'QUEUED', 'PROCESSING', 'COMPLETED', 'FAILED'] }).notNull(),
  stage: integer('stage').notNull().default(0),
  failureCode: text('failure_code'),
  failureMessage: text('failure_message'),
  creditsCharged: integer('credits_charged').notNull().default(0),
  output: text('output'),
  latencyMs: integer('latency_ms'),
  computeJobId: text('compute_job_id'),
  computeStartedAt: integer('compute_started_at'),
  computeFinishedAt: integer('compute_finished_at'),
  ipfsCid: text('ipfs_cid'),
  stateRoot: text('state_root'),
  verificationStatus: text('verification_status'),
  verificationScore: real('verification_score'),
  verificationProof: text('verification_proof'),
  verification: verificationColumn('verification').$type<Record<string, unknown> | null>(), // stored encoded (src/db/verification-column.ts)
  attestationUid: text('attestation_uid'),
  receiptCid: text('receipt_cid'),
  receipt: text('receipt', { mode: 'json' }).$type<Record<string, unknown> | null>(),
  idempotencyKey: text('idempotency_key'),
  requestHash: text('request_hash'),
  /**
   * Which door made the task (docs/doors.md): null for the REST API (`POST /api/v1/tasks/submit`),
   * 'openai' (`/v1/chat/completions`, `/v1/responses`) or 'mcp' (`/mcp`).
   */
  door: text('door'),
  /**
   * What compute sends besides the prompt, when a door's call has more than the prompt says: the
   * conversation (`messages`, roles kept; the prompt is its rendering) and sampling parameters
   * (`maxTokens`, `temperature`, `topP`, `stop`). Null otherwise. Private as the prompt is, and
   * dropped with it when the task fails before its debit.
   */
  computeRequest: text('compute_request', { mode: 'json' }).$type<Record<string, unknown> | null>(),
  /** Tokens as the provider counted them (the builtin provider counts words); null before compute. */
  promptTokens: integer('prompt_tokens'),
  completionTokens: integer('completion_tokens'),
  /** Estimated cost in USD from the model's price (model_prices) at compute time; null when the model has no price. */
  costUsd: real('cost_usd'),
  /** A free diagnostic run (agent test-run): set by the server only, never from client input. */
  diagnostic: integer('diagnostic', { mode: 'boolean' }).notNull().default(false),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
  completedAt: integer('completed_at'),
  /**
   * The stage events, oldest first: a JSON array of { stage, name, status, detail, at }; an event's id
   * is its position (from 1). Appended by the statement that writes the stages' fields
   * (PipelineRunner, TaskRepository), read only for a task's detail and event stream (TaskService). Null
   * for tasks that finished before migration 0013: their events stay in task_events.
   */
  timeline: text('timeline'),
}, (t) => [
  // The task lists (newest first, `id` breaks ties): one index per filter and per common pair, so
  // a page is an index range read; other combinations scan the cheapest of these. A trailing
  // task_type makes those scans (and the public lists' `task_type != 'system'`) index-only. Only
  // the three indexes led by the status carry it: a task changes status as it runs, and every
  // index holding the status moves an entry (and rewrites a page) when it does (migration 0011);
  // a list filtered by status always reads one of those three (src/tasks/list.ts).
  index('tasks_created_idx').on(t.createdAt, t.id, t.taskType),
  // Lookup by verification proof (/public/verification, the explorer). Only rows that have one are
  // indexed: a task is inserted without it, so a full index would add a NULL entry at submit and
  // move it at completion. The CIDs need none: a document names its task (src/proofs/documents.ts).
  index('tasks_verification_proof_idx').on(t.verificationProof).where(sql`verification_proof IS NOT NULL`),
  // Tasks that failed before their debit (refused, or held and then not run), by when they failed:
  // the retention job deletes the old ones (src/jobs/retention.ts). Only those rows are indexed.
  index('tasks_refused_idx').on(t.completedAt).where(sql`status = 'FAILED' AND stage <= 1`),
  index('tasks_operator_idx').on(t.operatorId, t.createdAt, t.id, t.taskType),
  index('tasks_agent_idx').on(t.agentId, t.createdAt, t.id, t.taskType),
  index('tasks_status_idx').on(t.status, t.createdAt, t.id, t.taskType),
  index('tasks_type_idx').on(t.taskType, t.createdAt, t.id),
  index('tasks_operator_status_idx').on(t.operatorId, t.status, t.createdAt, t.id, t.taskType),
  index('tasks_agent_status_idx').on(t.agentId, t.status, t.createdAt, t.id, t.taskType),
  uniqueIndex('tasks_idempotency_uq').on(t.operatorId, t.idempotencyKey),
])

// Task counters per list filter, kept by triggers on `tasks` (migrations/0006_lists.sql) in the same
// transaction as every write: `kind` 0 = all tasks, 1 = one operator's, 2 = one agent's (of one
// operator), each split by task type and status, so any filter's total is a sum over a few rows.
export const taskCounts = sqliteTable('task_counts', {
  kind: integer('kind').notNull(),
  agentId: text('agent_id').notNull(),
  operatorId: text('operator_id').notNull(),
  taskType: text('task_type').notNull(),
  status: text('status').notNull(),
  n: integer('n').notNull(),
}, (t) => [primaryKey({ columns: [t.kind, t.agentId, t.operatorId, t.taskType, t.status] })])

// Daily rollup per operator (`operator_id` '' = all operators) and UTC day of the task's creation
// (`day` = days since 1970-01-01; -1 = all time, kept for the all-operators row only), system tasks
// excluded; kept by triggers. Latency counts COMPLETED tasks; `verified` COMPLETED and VERIFIED.
export const taskDaily = sqliteTable('task_daily', {
  operatorId: text('operator_id').notNull(),
  day: integer('day').notNull(),
  total: integer('total').notNull().default(0),
  completed: integer('completed').notNull().default(0),
  failed: integer('failed').notNull().default(0),
  processing: integer('processing').notNull().default(0),
  queued: integer('queued').notNull().default(0),
  pendingApproval: integer('pending_approval').notNull().default(0),
  credits: integer('credits').notNull().default(0),
  verified: integer('verified').notNull().default(0),
  latencyN: integer('latency_n').notNull().default(0),
  latencySum: integer('latency_sum').notNull().default(0),
  // Tokens and estimated cost of the tasks that finished (COMPLETED or FAILED) with a compute
  // answer (migration 0017); the cost in millionths of a dollar, so sums stay exact.
  promptTokens: integer('prompt_tokens').notNull().default(0),
  completionTokens: integer('completion_tokens').notNull().default(0),
  costMicroUsd: integer('cost_micro_usd').notNull().default(0),
}, (t) => [primaryKey({ columns: [t.operatorId, t.day] })])

// Latency histogram per operator ('' = all) and UTC day: bucket b = floor(4·log2(latencyMs)) holds
// latencies in [2^(b/4), 2^((b+1)/4)) ms (src/stats/histogram.ts estimates percentiles from it).
export const taskLatencyDaily = sqliteTable('task_latency_daily', {
  operatorId: text('operator_id').notNull(),
  day: integer('day').notNull(),
  bucket: integer('bucket').notNull(),
  n: integer('n').notNull(),
}, (t) => [primaryKey({ columns: [t.operatorId, t.day, t.bucket] })])

// Stage transitions of the tasks that finished before migration 0013 (tasks.timeline since; read only).
export const taskEvents = sqliteTable('task_events', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  taskId: text('task_id').notNull(),
  stage: integer('stage').notNull(),
  name: text('name').notNull(),
  status: text('status').notNull(),
  detail: text('detail', { mode: 'json' }).$type<Record<string, unknown> | null>(),
  at: integer('at').notNull(),
}, (t) => [index('task_events_task_idx').on(t.taskId, t.id)])

// Append-only credit ledger; balances are the running state it produces.
export const ledgerEntries = sqliteTable('ledger_entries', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  operatorId: text('operator_id').notNull(),
  delta: integer('delta').notNull(),
  balanceAfter: integer('balance_after').notNull(),
  bucket: text('bucket', { enum: ['allocation', 'purchased', 'mixed'] }).notNull(),
  /** Debits: how much of the amount came from the allocation bucket (a refund returns it there). */
  fromAllocation: integer('from_allocation'),
  reason: text('reason').notNull(),
  taskId: text('task_id'),
  ref: text('ref'),
  createdAt: integer('created_at').notNull(),
}, (t) => [
  index('ledger_operator_idx').on(t.operatorId, t.id),
  uniqueIndex('ledger_ref_uq').on(t.ref),
])

export const creditBalances = sqliteTable('credit_balances', {
  operatorId: text('operator_id').primaryKey(),
  allocationBalance: integer('allocation_balance').notNull(),
  purchasedBalance: integer('purchased_balance').notNull().default(0),
  monthlyAllocation: integer('monthly_allocation').notNull(),
  lastResetAt: integer('last_reset_at').notNull(),
})

export const providers = sqliteTable('providers', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  kind: text('kind', { enum: ['openai', 'anthropic', 'builtin'] }).notNull(),
  baseUrl: text('base_url'),
  models: text('models', { mode: 'json' }).$type<string[]>().notNull(),
  createdAt: integer('created_at').notNull(),
}, (t) => [uniqueIndex('providers_name_uq').on(t.name)])

/**
 * What a model costs, in USD per million tokens, as the administrator sets it (docs/doors.md,
 * "Usage and cost"). Kept apart from the providers: a price outlives a provider that is replaced.
 */
export const modelPrices = sqliteTable('model_prices', {
  model: text('model').primaryKey(),
  inputUsdPerMTok: real('input_usd_per_mtok').notNull(),
  outputUsdPerMTok: real('output_usd_per_mtok').notNull(),
  updatedAt: integer('updated_at').notNull(),
})

export const providerKeys = sqliteTable('provider_keys', {
  id: text('id').primaryKey(),
  providerId: text('provider_id').notNull().references(() => providers.id, { onDelete: 'cascade' }),
  secret: text('secret').notNull(),
  first4: text('first4').notNull(),
  last4: text('last4').notNull(),
  rpm: integer('rpm').notNull(),
  concurrency: integer('concurrency').notNull(),
  createdAt: integer('created_at').notNull(),
  /** The key's place in the list it was given in (the pool's order; PostgreSQL keeps no insertion order). */
  position: integer('position').notNull().default(0),
})

// Compute overflow jobs (POST /api/v1/compute, or a task whose compute found the pool full).
export const computeJobs = sqliteTable('compute_jobs', {
  id: text('id').primaryKey(),
  operatorId: text('operator_id').notNull(),
  taskId: text('task_id'),
  agentId: text('agent_id'),
  model: text('model').notNull(),
  request: text('request', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  idempotencyKey: text('idempotency_key'),
  requestHash: text('request_hash'),
  status: text('status', { enum: ['queued', 'running', 'completed', 'failed'] }).notNull(),
  result: text('result', { mode: 'json' }).$type<Record<string, unknown> | null>(),
  errorCode: text('error_code'),
  errorMessage: text('error_message'),
  creditsCharged: integer('credits_charged').notNull().default(0),
  createdAt: integer('created_at').notNull(),
  startedAt: integer('started_at'),
  finishedAt: integer('finished_at'),
}, (t) => [
  index('compute_jobs_status_idx').on(t.status, t.createdAt),
  index('compute_jobs_queue_idx').on(t.status, t.operatorId, t.model, t.createdAt),
  uniqueIndex('compute_jobs_idempotency_uq').on(t.operatorId, t.idempotencyKey),
])

export const computeJobEvents = sqliteTable('compute_job_events', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  jobId: text('job_id').notNull(),
  event: text('event').notNull(),
  data: text('data', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  at: integer('at').notNull(),
}, (t) => [index('compute_job_events_job_idx').on(t.jobId, t.id)])

// Attestations signed before migration 0015, as their full JSON (read only; task_attestations since).
export const attestations = sqliteTable('attestations', {
  uid: text('uid').primaryKey(),
  taskId: text('task_id').notNull(),
  operatorId: text('operator_id').notNull(),
  attestation: text('attestation', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  createdAt: integer('created_at').notNull(),
})

// Each task's EAS offchain attestation by its UID (32 bytes): the signature (r ‖ s ‖ v, 65 bytes),
// the signer's address (20 bytes) and the domain's chain id. The message is the task row's and the
// domain and types are constants: src/chain/attestation-record.ts rebuilds the published JSON.
export const taskAttestations = sqliteTable('task_attestations', {
  uid: blob('uid', { mode: 'buffer' }).primaryKey(),
  taskId: text('task_id').notNull(),
  signature: blob('signature', { mode: 'buffer' }).notNull(),
  signer: blob('signer', { mode: 'buffer' }).notNull(),
  chainId: integer('chain_id').notNull(),
})

// ---- money: wallets, pioneer points, mock USDC, x402 ----

export const walletNonces = sqliteTable('wallet_nonces', {
  nonce: text('nonce').primaryKey(),
  operatorId: text('operator_id').notNull(),
  createdAt: integer('created_at').notNull(),
  expiresAt: integer('expires_at').notNull(),
  usedAt: integer('used_at'),
})

export const pioneerEvents = sqliteTable('pioneer_events', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  operatorId: text('operator_id').notNull(),
  kind: text('kind').notNull(),
  points: integer('points').notNull(),
  ref: text('ref').notNull(),
  createdAt: integer('created_at').notNull(),
}, (t) => [uniqueIndex('pioneer_ref_uq').on(t.ref), index('pioneer_operator_idx').on(t.operatorId, t.id)])

/**
 * Each operator's pioneer points, kept by triggers on pioneer_events (migration 0009): the profile
 * (`/auth/me`, the admin list) reads one row instead of adding up one event per completed task.
 */
export const pioneerTotals = sqliteTable('pioneer_totals', {
  operatorId: text('operator_id').primaryKey(),
  points: integer('points').notNull().default(0),
})

/**
 * Credits each operator spent per UTC day (`day`: days since 1970): task and direct-compute debits
 * minus their refunds, kept by a trigger on ledger_entries (migration 0010). maxCreditsPerDay
 * reads one row instead of adding up the operator's ledger on every submit.
 */
export const creditSpendDaily = sqliteTable('credit_spend_daily', {
  operatorId: text('operator_id').notNull(),
  day: integer('day').notNull(),
  credits: integer('credits').notNull().default(0),
}, (t) => [primaryKey({ columns: [t.operatorId, t.day] })])

/**
 * Admitted tasks per operator and minute (`minute`: minutes since 1970): every task but system
 * records and those stage 1 refused, kept by triggers on tasks (migration 0010). maxTasksPerHour
 * adds up the minutes of the window instead of counting the operator's tasks on every submit;
 * rows older than the window are pruned daily.
 */
export const taskAdmittedMinutes = sqliteTable('task_admitted_minutes', {
  operatorId: text('operator_id').notNull(),
  minute: integer('minute').notNull(),
  n: integer('n').notNull().default(0),
}, (t) => [primaryKey({ columns: [t.operatorId, t.minute] })])

// Mock USDC: balances in base units (6 decimals) keyed by lower-case address, and every movement.
export const usdcBalances = sqliteTable('usdc_balances', {
  address: text('address').primaryKey(),
  balance: integer('balance').notNull(),
})

export const usdcTransfers = sqliteTable('usdc_transfers', {
  txHash: text('tx_hash').primaryKey(),
  kind: text('kind', { enum: ['mint', 'transfer'] }).notNull(),
  fromAddress: text('from_address'),
  toAddress: text('to_address').notNull(),
  amount: integer('amount').notNull(),
  authNonce: text('auth_nonce'),
  memo: text('memo'),
  createdAt: integer('created_at').notNull(),
}, (t) => [
  index('usdc_transfers_to_idx').on(t.toAddress, t.createdAt),
  uniqueIndex('usdc_auth_nonce_uq').on(t.fromAddress, t.authNonce),
])

export const faucetClaims = sqliteTable('faucet_claims', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  wallet: text('wallet').notNull(),
  operatorId: text('operator_id'),
  amount: integer('amount').notNull(),
  /** The client address that asked (per-address daily limit). */
  clientAddress: text('client_address'),
  /** Whether this claim started the wallet's cooldown (an anonymous claim below the default amount does not). */
  startsCooldown: integer('starts_cooldown', { mode: 'boolean' }).notNull().default(true),
  createdAt: integer('created_at').notNull(),
}, (t) => [
  index('faucet_wallet_idx').on(t.wallet, t.createdAt),
  index('faucet_client_idx').on(t.clientAddress, t.createdAt),
])

// Payments received through the x402 gate (X-PAYMENT or the legacy X-402-Payment header).
export const x402Payments = sqliteTable('x402_payments', {
  id: text('id').primaryKey(),
  operatorId: text('operator_id').notNull(),
  payer: text('payer').notNull(),
  txHash: text('tx_hash').notNull(),
  /** `faucet`: a faucet gate transfer turned into credits (not a paid request: outside the hourly limit). */
  scheme: text('scheme', { enum: ['exact', 'legacy', 'faucet'] }).notNull(),
  amount: integer('amount').notNull(),
  credits: integer('credits').notNull(),
  resource: text('resource').notNull(),
  createdAt: integer('created_at').notNull(),
}, (t) => [
  uniqueIndex('x402_tx_uq').on(t.txHash),
  index('x402_payer_idx').on(t.payer, t.createdAt),
  index('x402_operator_scheme_idx').on(t.operatorId, t.scheme, t.createdAt),
])

// Invalid or replayed payments per payer (only signatures valid for the payer count) and blocks.
export const x402Strikes = sqliteTable('x402_strikes', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  payer: text('payer').notNull(),
  reason: text('reason').notNull(),
  createdAt: integer('created_at').notNull(),
}, (t) => [index('x402_strikes_payer_idx').on(t.payer, t.createdAt)])

export const x402Blocks = sqliteTable('x402_blocks', {
  wallet: text('wallet').primaryKey(),
  reason: text('reason').notNull(),
  blockedAt: integer('blocked_at').notNull(),
  blockedUntil: integer('blocked_until').notNull(),
})

// Context uploads (/v1/prior/claim), for the per-operator daily quota.
export const uploads = sqliteTable('uploads', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  operatorId: text('operator_id').notNull(),
  cid: text('cid').notNull(),
  size: integer('size').notNull(),
  createdAt: integer('created_at').notNull(),
}, (t) => [index('uploads_operator_idx').on(t.operatorId, t.createdAt)])

// Operator guardrails (docs/governance.md, "Guardrails"): the active config and a pending one with
// its activation time.
export const operatorGuardrails = sqliteTable('operator_guardrails', {
  operatorId: text('operator_id').primaryKey(),
  current: text('current', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  pending: text('pending', { mode: 'json' }).$type<Record<string, unknown> | null>(),
  activatesAt: integer('activates_at'),
  updatedAt: integer('updated_at').notNull(),
})

// Terms of Service versions (docs/governance.md, "Terms of Service"): the newest is the current
// one. Version "1" is inserted by the migration that creates the table, so a fresh install has it.
export const tosVersions = sqliteTable('tos_versions', {
  seq: integer('seq').primaryKey({ autoIncrement: true }),
  version: text('version').notNull(),
  text: text('text').notNull(),
  createdAt: integer('created_at').notNull(),
}, (t) => [uniqueIndex('tos_versions_version_uq').on(t.version)])

// ToS acceptances: the signed acceptance document on IPFS and the system task that records it.
export const tosAcceptances = sqliteTable('tos_acceptances', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  operatorId: text('operator_id').notNull(),
  version: text('version').notNull(),
  ipfsCid: text('ipfs_cid').notNull(),
  taskId: text('task_id').notNull(),
  acceptedAt: integer('accepted_at').notNull(),
}, (t) => [uniqueIndex('tos_acceptances_uq').on(t.operatorId, t.version)])

// Compliance certificates (docs/compliance.md): the certificate as issued (JSON), newest first by
// issued_at. `auto_key` deduplicates the monthly certificate (operator and month).
export const complianceCertificates = sqliteTable('compliance_certificates', {
  id: text('id').primaryKey(),
  operatorId: text('operator_id').notNull(),
  issuedAt: integer('issued_at').notNull(),
  autoKey: text('auto_key'),
  certificate: text('certificate', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
}, (t) => [index('compliance_operator_idx').on(t.operatorId, t.issuedAt), uniqueIndex('compliance_auto_uq').on(t.autoKey)])

// Approval requests (docs/governance.md, "Approvals"): one per held task. `decision` PENDING →
// APPROVED | DENIED | EXPIRED; the one-shot callback URL is cleared once its delivery is queued.
export const approvals = sqliteTable('approvals', {
  id: text('id').primaryKey(),
  operatorId: text('operator_id').notNull(),
  taskId: text('task_id').notNull(),
  agentId: text('agent_id').notNull(),
  actionType: text('action_type'),
  operation: text('operation'),
  target: text('target'),
  requestedValue: real('requested_value'),
  currency: text('currency'),
  triggerPolicy: text('trigger_policy').notNull(),
  triggerReason: text('trigger_reason').notNull(),
  policyEvaluations: text('policy_evaluations', { mode: 'json' }).$type<{ name: string; result: string; reason: string }[]>().notNull(),
  evidenceRefs: text('evidence_refs', { mode: 'json' }).$type<Record<string, unknown>>().notNull(),
  decision: text('decision').notNull(),
  decidedBy: text('decided_by'),
  decidedAt: integer('decided_at'),
  decisionNote: text('decision_note'),
  callbackUrl: text('callback_url'),
  createdAt: integer('created_at').notNull(),
  expiresAt: integer('expires_at').notNull(),
}, (t) => [
  index('approvals_operator_idx').on(t.operatorId, t.decision, t.createdAt),
  // An agent-bound key reads only its own agent's requests (ApprovalService.list).
  index('approvals_agent_idx').on(t.agentId, t.decision, t.createdAt),
  uniqueIndex('approvals_task_uq').on(t.taskId),
])

// The webhook outbox (docs/webhooks.md, "Delivery, retries, the deliveries list"): each delivery
// keeps its body (signed again at each attempt), its attempts and when it is tried next; a
// `webhook.deliver` job drives it.
export const webhookDeliveries = sqliteTable('webhook_deliveries', {
  id: text('id').primaryKey(),
  operatorId: text('operator_id').notNull(),
  approvalId: text('approval_id'),
  event: text('event').notNull(),
  url: text('url').notNull(),
  body: text('body').notNull(),
  status: text('status').notNull(),
  attempts: integer('attempts').notNull().default(0),
  lastStatus: integer('last_status'),
  lastError: text('last_error'),
  nextAttemptAt: integer('next_attempt_at'),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
  /** An A2A push notification's config (a2a_push_configs.id); null for approval webhooks. */
  pushConfigId: text('push_config_id'),
}, (t) => [index('webhook_deliveries_operator_idx').on(t.operatorId, t.createdAt)])

// Generation of each operator's derived webhook secret (POST /api/v1/operator/webhooks/secret rotates it).
export const webhookSecrets = sqliteTable('webhook_secrets', {
  operatorId: text('operator_id').primaryKey(),
  generation: integer('generation').notNull(),
  updatedAt: integer('updated_at').notNull(),
})

// A2A push notification configs (docs/doors.md, "A2A", "Push notifications"): where a task's A2A
// state changes are POSTed. `id` is TaskGate's own (a delivery names it: a config deleted or
// replaced ends its pending deliveries); `config_id` the client's, unique per task. The token and
// the authentication credentials are sealed with the data key. `done_at`: when the task finished
// (nothing more is sent); configs of unfinished tasks count against the operator's limit, and
// finished ones are deleted by the retention job.
export const a2aPushConfigs = sqliteTable('a2a_push_configs', {
  id: text('id').primaryKey(),
  taskId: text('task_id').notNull(),
  configId: text('config_id').notNull(),
  operatorId: text('operator_id').notNull(),
  agentId: text('agent_id'),
  url: text('url').notNull(),
  tokenSealed: text('token_sealed'),
  authScheme: text('auth_scheme'),
  authCredentialsSealed: text('auth_credentials_sealed'),
  protocolVersion: text('protocol_version').notNull(),
  createdAt: integer('created_at').notNull(),
  doneAt: integer('done_at'),
}, (t) => [
  uniqueIndex('a2a_push_configs_task_uq').on(t.taskId, t.configId),
  index('a2a_push_configs_live_idx').on(t.operatorId).where(sql`done_at IS NULL`),
  index('a2a_push_configs_done_idx').on(t.doneAt).where(sql`done_at IS NOT NULL`),
])
