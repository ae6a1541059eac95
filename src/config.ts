// Configuration: flags > environment (TASKGATE_*) > taskgate.toml in the data dir > defaults.
// Every setting is declared once in SETTINGS, which the loader and `taskgate config` read; a new
// setting also needs its Config field and its line in loadConfig. The README's table lists the
// common ones by hand.
import { Resolver } from 'node:dns'
import { existsSync, readFileSync } from 'node:fs'
import { isIP } from 'node:net'
import { join, resolve } from 'node:path'
import { parse as parseToml } from 'smol-toml'

export type Tier = 'FREE' | 'PRO' | 'ENTERPRISE'
export const TIERS: readonly Tier[] = ['FREE', 'PRO', 'ENTERPRISE']

type Kind = 'string' | 'int' | 'number' | 'bool' | 'json'
interface Setting {
  key: string // dotted path, also the TOML path ([server] port = …)
  env: string
  flag?: string
  kind: Kind
  def: unknown | ((c: Record<string, unknown>) => unknown)
  doc: string
}

export const SETTINGS: Setting[] = [
  { key: 'dataDir', env: 'TASKGATE_DATA_DIR', flag: 'data-dir', kind: 'string', def: './data', doc: 'Data directory (database, IPFS blocks, keys).' },
  { key: 'database.url', env: 'TASKGATE_DATABASE_URL', kind: 'string', def: '', doc: 'PostgreSQL to run on instead of <dataDir>/taskgate.db (postgres://user:password@host:5432/database); replicas share it (docs/scale-out.md).' },
  { key: 'database.timeoutMs', env: 'TASKGATE_DATABASE_TIMEOUT_MS', kind: 'int', def: 1000, doc: 'PostgreSQL mode: the longest a statement or lock wait may take (503 DATABASE_BUSY); with no answer half a second later the database counts as unavailable (503 DATABASE_UNAVAILABLE).' },
  { key: 'keysDir', env: 'TASKGATE_KEYS_DIR', kind: 'string', def: '', doc: 'Directory of the signing key, JWT secret and data key (default <dataDir>/keys); replicas of one PostgreSQL database share one (docs/scale-out.md).' },
  { key: 'database.jobLeaseSeconds', env: 'TASKGATE_JOB_LEASE_SECONDS', kind: 'int', def: 30, doc: 'PostgreSQL mode: a replica whose heartbeat is older than this is dead, and the jobs it was running are claimed again by the others.' },
  { key: 'server.port', env: 'TASKGATE_PORT', flag: 'port', kind: 'int', def: 8787, doc: 'HTTP port (0 = pick a free one).' },
  { key: 'server.host', env: 'TASKGATE_HOST', flag: 'host', kind: 'string', def: '127.0.0.1', doc: 'Interface to listen on (0.0.0.0 for all).' },
  { key: 'server.publicUrl', env: 'TASKGATE_PUBLIC_URL', kind: 'string', def: '', doc: 'Base URL users reach the service at (default http://host:port).' },
  { key: 'server.jsonBodyLimit', env: 'TASKGATE_JSON_BODY_LIMIT', kind: 'int', def: 1024 * 1024, doc: 'Largest JSON request body in bytes.' },
  { key: 'server.uploadBodyLimit', env: 'TASKGATE_UPLOAD_BODY_LIMIT', kind: 'int', def: 10 * 1024 * 1024, doc: 'Largest upload (multipart) body in bytes (upload routes only).' },
  { key: 'server.idleTimeoutSeconds', env: 'TASKGATE_IDLE_TIMEOUT_SECONDS', kind: 'int', def: 10, doc: 'Idle connections are closed after this many seconds (event streams and long waits are exempt).' },
  { key: 'uploads.perDay', env: 'TASKGATE_UPLOADS_PER_DAY', kind: 'int', def: 100, doc: 'Uploads per operator per rolling 24 h.' },
  { key: 'uploads.bytesPerDay', env: 'TASKGATE_UPLOAD_BYTES_PER_DAY', kind: 'int', def: 200 * 1024 * 1024, doc: 'Uploaded bytes per operator per rolling 24 h.' },
  { key: 'storage.probeMs', env: 'TASKGATE_STORAGE_PROBE_MS', kind: 'int', def: 2000, doc: 'While the disk is full, how often to check whether space is back.' },
  { key: 'storage.checkpointMs', env: 'TASKGATE_CHECKPOINT_INTERVAL_MS', kind: 'int', def: 100, doc: 'How often a worker thread copies committed pages from the write-ahead logs into the database files (0: only the commits\' own checkpoints, every 10,000 pages, on the main thread).' },
  { key: 'phase', env: 'TASKGATE_PHASE', kind: 'string', def: 'testnet', doc: 'Network phase: testnet or live.' },
  { key: 'log.level', env: 'TASKGATE_LOG_LEVEL', flag: 'log-level', kind: 'string', def: 'info', doc: 'pino log level (trace … fatal, silent).' },
  { key: 'auth.signup', env: 'TASKGATE_SIGNUP', kind: 'bool', def: (c: Record<string, unknown>) => c.phase !== 'live', doc: 'Open sign-up (default: on in testnet, off in live).' },
  { key: 'auth.tokenTtlSeconds', env: 'TASKGATE_TOKEN_TTL_SECONDS', kind: 'int', def: 12 * 3600, doc: 'Bearer token lifetime.' },
  { key: 'auth.loginFailuresPerLoginAddress', env: 'TASKGATE_LOGIN_FAILURES_PER_LOGIN_ADDRESS', kind: 'int', def: 10, doc: 'Failed sign-ins per 15 minutes for one login from one client address.' },
  { key: 'auth.loginFailuresPerLogin', env: 'TASKGATE_LOGIN_FAILURES_PER_LOGIN', kind: 'int', def: 100, doc: 'Failed sign-ins per 15 minutes for one login from all addresses.' },
  { key: 'auth.loginFailuresPerAddress', env: 'TASKGATE_LOGIN_FAILURES_PER_ADDRESS', kind: 'int', def: 30, doc: 'Failed sign-ins per 15 minutes from one client address, any login.' },
  { key: 'auth.signupsPerAddressPerHour', env: 'TASKGATE_SIGNUPS_PER_ADDRESS_PER_HOUR', kind: 'int', def: 10, doc: 'Accepted sign-ups per client address per hour.' },
  { key: 'auth.bearerRpm', env: 'TASKGATE_BEARER_RPM', kind: 'int', def: 600, doc: 'Requests per minute per operator with a bearer token.' },
  { key: 'github.clientId', env: 'TASKGATE_GITHUB_CLIENT_ID', kind: 'string', def: '', doc: 'GitHub OAuth app client id (enables GitHub login).' },
  { key: 'github.clientSecret', env: 'TASKGATE_GITHUB_CLIENT_SECRET', kind: 'string', def: '', doc: 'GitHub OAuth app client secret.' },
  { key: 'github.webUrl', env: 'TASKGATE_GITHUB_WEB_URL', kind: 'string', def: 'https://github.com', doc: 'GitHub web base URL (authorize and token endpoints).' },
  { key: 'github.apiUrl', env: 'TASKGATE_GITHUB_API_URL', kind: 'string', def: 'https://api.github.com', doc: 'GitHub API base URL.' },
  { key: 'metrics.token', env: 'TASKGATE_METRICS_TOKEN', kind: 'string', def: '', doc: 'When set, /metrics requires `Authorization: Bearer <token>`.' },
  { key: 'tos.required', env: 'TASKGATE_TOS_REQUIRED', kind: 'bool', def: false, doc: 'Require acceptance of the current Terms of Service before submit and compute (403 TOS_NOT_ACCEPTED).' },
  { key: 'webhooks.allowPrivate', env: 'TASKGATE_WEBHOOK_ALLOW_PRIVATE', kind: 'bool', def: false, doc: 'Let webhook and callback URLs reach loopback, private, link-local, metadata and other special-purpose addresses (tests, trusted LANs).' },
  { key: 'webhooks.dnsServers', env: 'TASKGATE_DNS_SERVERS', kind: 'string', def: '', doc: 'DNS servers for the one lookup of each webhook and callback delivery (comma-separated ip or ip:port; default: the system resolver).' },
  { key: 'approvals.maxPending', env: 'TASKGATE_MAX_PENDING_APPROVALS', kind: 'int', def: 100, doc: 'Approval requests one operator may have pending; a submission that would be held beyond it → 429 TOO_MANY_PENDING_APPROVALS, nothing recorded.' },
  { key: 'a2a.maxPushConfigs', env: 'TASKGATE_MAX_A2A_PUSH_CONFIGS', kind: 'int', def: 1000, doc: 'A2A push notification configs one operator may have on unfinished tasks; beyond it a new one → PUSH_CONFIG_LIMIT_REACHED (a JSON-RPC error).' },
  { key: 'retention.days', env: 'TASKGATE_RETENTION_DAYS', kind: 'int', def: 30, doc: 'Days a task that failed before its debit (refused, or held and not run), a webhook delivery and the A2A push configs of a finished task are kept; a daily job deletes older ones.' },
  { key: 'testClock', env: 'TASKGATE_TEST_CLOCK', kind: 'bool', def: false, doc: 'Enable the admin test clock (testnet only).' },
  { key: 'tiers.free.monthlyCredits', env: 'TASKGATE_TIERS_FREE_MONTHLY_CREDITS', kind: 'int', def: 100, doc: 'Monthly credit allocation, FREE.' },
  { key: 'tiers.pro.monthlyCredits', env: 'TASKGATE_TIERS_PRO_MONTHLY_CREDITS', kind: 'int', def: 1000, doc: 'Monthly credit allocation, PRO.' },
  { key: 'tiers.enterprise.monthlyCredits', env: 'TASKGATE_TIERS_ENTERPRISE_MONTHLY_CREDITS', kind: 'int', def: 10000, doc: 'Monthly credit allocation, ENTERPRISE.' },
  { key: 'tiers.pro.priceMonthlyUsd', env: 'TASKGATE_TIERS_PRO_PRICE_MONTHLY_USD', kind: 'number', def: 15, doc: 'Advertised PRO price per month (USD).' },
  { key: 'credits.topUpPacks', env: 'TASKGATE_CREDITS_TOP_UP_PACKS', kind: 'json', def: [{ credits: 500, priceUsd: 5 }, { credits: 2000, priceUsd: 15 }, { credits: 10000, priceUsd: 50 }], doc: 'Top-up packs (JSON array of {credits, priceUsd}).' },
  { key: 'credits.taskCost', env: 'TASKGATE_TASK_COST', kind: 'json', def: { default: 1 }, doc: 'Credits per task by task type (JSON object; "default" for the rest).' },
  { key: 'compute.providerTimeoutMs', env: 'TASKGATE_PROVIDER_TIMEOUT_MS', kind: 'int', def: 60000, doc: 'Per-attempt timeout of a provider call.' },
  { key: 'verification.threshold', env: 'TASKGATE_VERIFICATION_THRESHOLD', kind: 'number', def: 0.7, doc: 'Verification score at or above which a result is VERIFIED.' },
  { key: 'explorer.txUrl', env: 'TASKGATE_EXPLORER_TX_URL', kind: 'string', def: '', doc: 'Verification explorer URL template with {hash} (default: this server\'s /explorer pages).' },
  { key: 'explorer.attestationUrl', env: 'TASKGATE_EXPLORER_ATTESTATION_URL', kind: 'string', def: '', doc: 'Attestation explorer URL template with {uid} (default: this server\'s /explorer pages).' },
  { key: 'sse.pingMs', env: 'TASKGATE_SSE_PING_MS', kind: 'int', def: 15000, doc: 'Interval of `: ping` comments on event streams.' },
  { key: 'sse.authCheckMs', env: 'TASKGATE_SSE_AUTH_CHECK_MS', kind: 'int', def: 2000, doc: 'How often open event streams re-check their credential (revoked, logged out, suspended → stream ends).' },
  { key: 'x402.payTo', env: 'TASKGATE_X402_PAY_TO', kind: 'string', def: '', doc: 'Payment gate address (default: the service signer address).' },
  { key: 'x402.pricePerCredit', env: 'TASKGATE_X402_PRICE_PER_CREDIT', kind: 'int', def: 10000, doc: 'USDC base units per credit (10000 = 0.01 USDC).' },
  { key: 'x402.maxPaidPerHour', env: 'TASKGATE_X402_MAX_PAID_PER_HOUR', kind: 'int', def: 60, doc: 'Paid requests per payer wallet per hour.' },
  { key: 'x402.blockAfterStrikes', env: 'TASKGATE_X402_BLOCK_AFTER_STRIKES', kind: 'int', def: 5, doc: 'Invalid or replayed payments within an hour that block a wallet.' },
  { key: 'x402.blockHours', env: 'TASKGATE_X402_BLOCK_HOURS', kind: 'int', def: 24, doc: 'How long a blocked wallet stays blocked.' },
  { key: 'faucet.defaultUsdc', env: 'TASKGATE_FAUCET_DEFAULT_USDC', kind: 'number', def: 10, doc: 'Faucet amount when none is asked for (USDC).' },
  { key: 'faucet.maxUsdc', env: 'TASKGATE_FAUCET_MAX_USDC', kind: 'number', def: 100, doc: 'Largest faucet amount (USDC).' },
  { key: 'faucet.cooldownHours', env: 'TASKGATE_FAUCET_COOLDOWN_HOURS', kind: 'number', def: 24, doc: 'One faucet call per wallet per this many hours.' },
  { key: 'faucet.perAddressPerDay', env: 'TASKGATE_FAUCET_PER_ADDRESS_PER_DAY', kind: 'int', def: 5, doc: 'Faucet calls per client address per rolling 24 h.' },
  { key: 'leaderboard.pioneer.taskPoints', env: 'TASKGATE_PIONEER_TASK_POINTS', kind: 'int', def: 25, doc: 'Pioneer points per completed task.' },
  { key: 'leaderboard.pioneer.walletBindPoints', env: 'TASKGATE_PIONEER_WALLET_BIND_POINTS', kind: 'int', def: 500, doc: 'Pioneer points for the first wallet bind.' },
  { key: 'leaderboard.pioneer.trustedLevelPoints', env: 'TASKGATE_PIONEER_TRUSTED_LEVEL_POINTS', kind: 'int', def: 2000, doc: 'Pioneer points when an agent first reaches TRUSTED.' },
  { key: 'leaderboard.pioneer.explorerThreshold', env: 'TASKGATE_PIONEER_EXPLORER_THRESHOLD', kind: 'int', def: 500, doc: 'Points for the Explorer badge.' },
  { key: 'leaderboard.pioneer.founderThreshold', env: 'TASKGATE_PIONEER_FOUNDER_THRESHOLD', kind: 'int', def: 25000, doc: 'Points for the Founder badge.' },
]

export interface TierLimits { keys: number | null; agents: number | null; defaultRpm: number; maxRpm: number }
// Fixed in the code, not settings (docs/foundation.md, "Tiers and the public configuration");
// published through /api/v1/config/public.
export const TIER_LIMITS: Record<Tier, TierLimits> = {
  FREE: { keys: 3, agents: 3, defaultRpm: 60, maxRpm: 60 },
  PRO: { keys: 25, agents: 50, defaultRpm: 600, maxRpm: 6000 },
  ENTERPRISE: { keys: null, agents: null, defaultRpm: 6000, maxRpm: 1_000_000 },
}

export interface Config {
  dataDir: string
  /** PostgreSQL mode: its URL (TASKGATE_DATABASE_URL; a secret: it may hold a password); '' runs on SQLite. */
  databaseUrl: string
  /** PostgreSQL mode: statement and lock timeout (TASKGATE_DATABASE_TIMEOUT_MS). */
  databaseTimeoutMs: number
  /** The keys (TASKGATE_KEYS_DIR; default <dataDir>/keys). */
  keysDir: string
  /** PostgreSQL mode: a replica's lease (TASKGATE_JOB_LEASE_SECONDS), in ms. */
  jobLeaseMs: number
  port: number
  host: string
  publicUrl: string
  jsonBodyLimit: number
  uploadBodyLimit: number
  phase: 'testnet' | 'live'
  logLevel: string
  signup: boolean
  tokenTtlSeconds: number
  login: { failuresPerLoginAddress: number; failuresPerLogin: number; failuresPerAddress: number; signupsPerAddressPerHour: number }
  bearerRpm: number
  idleTimeoutSeconds: number
  uploads: { perDay: number; bytesPerDay: number }
  storageProbeMs: number
  /** Background checkpoint interval (src/db/checkpointer.ts); 0 = none. */
  checkpointMs: number
  sseAuthCheckMs: number
  github: { clientId: string; clientSecret: string; webUrl: string; apiUrl: string; enabled: boolean }
  metricsToken: string
  testClock: boolean
  /** Webhook and callback URLs may reach private addresses (TASKGATE_WEBHOOK_ALLOW_PRIVATE). */
  webhookAllowPrivate: boolean
  /** DNS servers of outbound requests (TASKGATE_DNS_SERVERS); empty: the system resolver. */
  dnsServers: string[]
  /** Submit and compute need the current ToS accepted. */
  tosRequired: boolean
  /** Pending approval requests per operator (TASKGATE_MAX_PENDING_APPROVALS). */
  maxPendingApprovals: number
  /** A2A push configs on an operator's unfinished tasks (TASKGATE_MAX_A2A_PUSH_CONFIGS). */
  maxA2aPushConfigs: number
  /** Days refused tasks, webhook deliveries and finished tasks' A2A push configs are kept (TASKGATE_RETENTION_DAYS). */
  retentionDays: number
  monthlyCredits: Record<Tier, number>
  proPriceMonthlyUsd: number
  topUpPacks: { credits: number; priceUsd: number }[]
  pioneer: { taskPoints: number; walletBindPoints: number; trustedLevelPoints: number; explorerThreshold: number; founderThreshold: number }
  taskCost: Record<string, number>
  providerTimeoutMs: number
  verificationThreshold: number
  explorerTxUrl: string
  explorerAttestationUrl: string
  ssePingMs: number
  x402: { payTo: string; pricePerCredit: number; maxPaidPerHour: number; blockAfterStrikes: number; blockHours: number }
  faucet: { defaultUsdc: number; maxUsdc: number; cooldownHours: number; perAddressPerDay: number }
}

export class ConfigError extends Error {}

function coerce(s: Setting, raw: unknown, source: string): unknown {
  const bad = () => new ConfigError(`${s.key} (${source}): expected ${s.kind}, got ${JSON.stringify(raw)}`)
  if (s.kind === 'string') return String(raw)
  if (raw === true && s.kind !== 'bool') throw new ConfigError(`${s.key} (${source}): a value is required`)
  if (s.kind === 'int' || s.kind === 'number') {
    if (typeof raw === 'string' && !/^-?\d+(\.\d+)?$/.test(raw.trim())) throw bad()
    const n = typeof raw === 'number' ? raw : Number(String(raw).trim())
    if (!Number.isFinite(n) || (s.kind === 'int' && !Number.isInteger(n))) throw bad()
    return n
  }
  if (s.kind === 'bool') {
    if (typeof raw === 'boolean') return raw
    const v = String(raw).trim().toLowerCase()
    if (['1', 'true', 'yes', 'on'].includes(v)) return true
    if (['0', 'false', 'no', 'off', ''].includes(v)) return false
    throw bad()
  }
  if (typeof raw !== 'string') return raw
  try { return JSON.parse(raw) } catch { throw bad() }
}

function getPath(obj: Record<string, unknown>, path: string): unknown {
  let cur: unknown = obj
  for (const part of path.split('.')) {
    if (cur == null || typeof cur !== 'object') return undefined
    cur = (cur as Record<string, unknown>)[part]
  }
  return cur
}

/** Parses `--name value` / `--name=value` / `--flag` style arguments. */
export function parseFlags(argv: string[]): { flags: Record<string, string | true>; positional: string[] } {
  const flags: Record<string, string | true> = {}
  const positional: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    if (!a.startsWith('--')) { positional.push(a); continue }
    const eq = a.indexOf('=')
    if (eq > 0) { flags[a.slice(2, eq)] = a.slice(eq + 1); continue }
    const next = argv[i + 1]
    if (next !== undefined && !next.startsWith('--')) { flags[a.slice(2)] = next; i++ } else flags[a.slice(2)] = true
  }
  return { flags, positional }
}

export function loadConfig(flags: Record<string, string | true> = {}, env: Record<string, string | undefined> = process.env): Config {
  const flat: Record<string, unknown> = {}
  const pick = (s: Setting): unknown => {
    if (s.flag && flags[s.flag] !== undefined) return coerce(s, flags[s.flag], `--${s.flag}`)
    if (env[s.env] !== undefined && env[s.env] !== '') return coerce(s, env[s.env], s.env)
    return undefined
  }
  // The data dir decides where taskgate.toml lives, so it is resolved first.
  const dataDirSetting = SETTINGS[0]!
  flat.dataDir = resolve(String(pick(dataDirSetting) ?? dataDirSetting.def))
  const tomlPath = join(flat.dataDir as string, 'taskgate.toml')
  let toml: Record<string, unknown> = {}
  if (existsSync(tomlPath)) {
    try { toml = parseToml(readFileSync(tomlPath, 'utf8')) as Record<string, unknown> } catch (e) {
      throw new ConfigError(`${tomlPath}: ${(e as Error).message}`)
    }
  }
  for (const s of SETTINGS.slice(1)) {
    let v = pick(s)
    if (v === undefined) { const t = getPath(toml, s.key); if (t !== undefined) v = coerce(s, t, tomlPath) }
    if (v === undefined) v = typeof s.def === 'function' ? (s.def as (c: Record<string, unknown>) => unknown)(flat) : s.def
    flat[s.key] = v
  }
  const phase = flat.phase
  if (phase !== 'testnet' && phase !== 'live') throw new ConfigError(`phase: expected testnet or live, got ${JSON.stringify(phase)}`)
  const port = flat['server.port'] as number
  if (port < 0 || port > 65535) throw new ConfigError(`server.port: ${port} is out of range`)
  const packs = flat['credits.topUpPacks']
  if (!Array.isArray(packs) || !packs.every((p) => typeof p?.credits === 'number' && typeof p?.priceUsd === 'number'))
    throw new ConfigError('credits.topUpPacks: expected an array of {credits, priceUsd}')
  const costs = flat['credits.taskCost']
  if (!costs || typeof costs !== 'object' || Array.isArray(costs) || !Object.values(costs).every((v) => Number.isInteger(v) && (v as number) >= 0))
    throw new ConfigError('credits.taskCost: expected an object of non-negative integers')
  const threshold = flat['verification.threshold'] as number
  if (threshold < 0 || threshold > 1) throw new ConfigError('verification.threshold: expected a number in [0, 1]')
  const payTo = flat['x402.payTo'] as string
  if (payTo && !/^0x[0-9a-fA-F]{40}$/.test(payTo)) throw new ConfigError('x402.payTo: expected an EVM address')
  const dnsServers = (flat['webhooks.dnsServers'] as string).split(',').map((x) => x.trim()).filter(Boolean)
  for (const d of dnsServers) { // the resolver takes a port past 65535; the URL parser does not
    try { if (!isIP(d)) new URL(`dns://${d}`); new Resolver().setServers([d]) } catch { throw new ConfigError(`webhooks.dnsServers: ${JSON.stringify(d)} is not an ip, ip:port or [ipv6]:port`) }
  }
  const databaseUrl = flat['database.url'] as string
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) throw new ConfigError('database.url: expected postgres://user:password@host:port/database')
  const gh = { clientId: flat['github.clientId'] as string, clientSecret: flat['github.clientSecret'] as string }
  return {
    dataDir: flat.dataDir as string,
    databaseUrl,
    databaseTimeoutMs: Math.max(100, flat['database.timeoutMs'] as number),
    keysDir: flat.keysDir ? resolve(flat.keysDir as string) : join(flat.dataDir as string, 'keys'),
    jobLeaseMs: Math.max(1, flat['database.jobLeaseSeconds'] as number) * 1000,
    port,
    host: flat['server.host'] as string,
    publicUrl: (flat['server.publicUrl'] as string).replace(/\/+$/, ''),
    jsonBodyLimit: flat['server.jsonBodyLimit'] as number,
    uploadBodyLimit: flat['server.uploadBodyLimit'] as number,
    phase,
    logLevel: flat['log.level'] as string,
    signup: flat['auth.signup'] as boolean,
    tokenTtlSeconds: flat['auth.tokenTtlSeconds'] as number,
    login: {
      failuresPerLoginAddress: flat['auth.loginFailuresPerLoginAddress'] as number, failuresPerLogin: flat['auth.loginFailuresPerLogin'] as number,
      failuresPerAddress: flat['auth.loginFailuresPerAddress'] as number, signupsPerAddressPerHour: flat['auth.signupsPerAddressPerHour'] as number,
    },
    bearerRpm: Math.max(1, flat['auth.bearerRpm'] as number),
    idleTimeoutSeconds: Math.min(255, Math.max(1, flat['server.idleTimeoutSeconds'] as number)),
    uploads: { perDay: flat['uploads.perDay'] as number, bytesPerDay: flat['uploads.bytesPerDay'] as number },
    storageProbeMs: Math.max(50, flat['storage.probeMs'] as number),
    checkpointMs: Math.max(0, flat['storage.checkpointMs'] as number),
    sseAuthCheckMs: Math.max(50, flat['sse.authCheckMs'] as number),
    github: {
      ...gh,
      webUrl: (flat['github.webUrl'] as string).replace(/\/+$/, ''),
      apiUrl: (flat['github.apiUrl'] as string).replace(/\/+$/, ''),
      enabled: gh.clientId !== '' && gh.clientSecret !== '',
    },
    metricsToken: flat['metrics.token'] as string,
    testClock: (flat.testClock as boolean) && phase === 'testnet',
    webhookAllowPrivate: flat['webhooks.allowPrivate'] as boolean,
    dnsServers,
    tosRequired: flat['tos.required'] as boolean,
    maxPendingApprovals: Math.max(1, flat['approvals.maxPending'] as number),
    maxA2aPushConfigs: Math.max(1, flat['a2a.maxPushConfigs'] as number),
    retentionDays: Math.max(1, flat['retention.days'] as number),
    monthlyCredits: {
      FREE: flat['tiers.free.monthlyCredits'] as number,
      PRO: flat['tiers.pro.monthlyCredits'] as number,
      ENTERPRISE: flat['tiers.enterprise.monthlyCredits'] as number,
    },
    proPriceMonthlyUsd: flat['tiers.pro.priceMonthlyUsd'] as number,
    topUpPacks: packs as Config['topUpPacks'],
    pioneer: {
      taskPoints: flat['leaderboard.pioneer.taskPoints'] as number,
      walletBindPoints: flat['leaderboard.pioneer.walletBindPoints'] as number,
      trustedLevelPoints: flat['leaderboard.pioneer.trustedLevelPoints'] as number,
      explorerThreshold: flat['leaderboard.pioneer.explorerThreshold'] as number,
      founderThreshold: flat['leaderboard.pioneer.founderThreshold'] as number,
    },
    taskCost: costs as Record<string, number>,
    providerTimeoutMs: flat['compute.providerTimeoutMs'] as number,
    verificationThreshold: flat['verification.threshold'] as number,
    explorerTxUrl: flat['explorer.txUrl'] as string,
    explorerAttestationUrl: flat['explorer.attestationUrl'] as string,
    ssePingMs: Math.max(100, flat['sse.pingMs'] as number),
    x402: {
      payTo: flat['x402.payTo'] as string, pricePerCredit: Math.max(1, flat['x402.pricePerCredit'] as number),
      maxPaidPerHour: flat['x402.maxPaidPerHour'] as number, blockAfterStrikes: Math.max(1, flat['x402.blockAfterStrikes'] as number), blockHours: flat['x402.blockHours'] as number,
    },
    faucet: {
      defaultUsdc: flat['faucet.defaultUsdc'] as number, maxUsdc: flat['faucet.maxUsdc'] as number, cooldownHours: flat['faucet.cooldownHours'] as number,
      perAddressPerDay: flat['faucet.perAddressPerDay'] as number,
    },
  }
}
