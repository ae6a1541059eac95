// TaskGate benchmark: binary size, cold start, throughput/latency per route against a bare
// Bun.serve baseline (wrk), RSS, full-pipeline tasks/s (wrk, builtin provider, c=1/16/64) and the
// gateway overhead around a provider call (bench/fake-openai.ts, see bench/lib/pipeline.ts) and the
// cost of paying a submit with x402 instead of credits (a dedicated server, see bench/lib/payments.ts)
// and the task lists at a million stored tasks (a dedicated seeded data dir, see bench/lib/lists.ts)
// and the bytes stored per task (a dedicated data dir, see bench/lib/storage.ts)
// and the OpenAI-compatible door next to a direct provider call and Portkey (see bench/lib/doors.ts).
// Writes bench/results/latest.json. Exits 0 even when targets are missed (it is a report);
// non-zero only when the benchmark itself cannot run.
//
//   bun run bench/run.ts [--quick] [--duration N] [--warmup N] [--build] [--cold-runs N]
//                        [--connections N] [--threads N] [--only SUBSTRING]
//                        [--pipeline-duration N] [--overhead-samples N] [--payment-samples N] [--lists-tasks N]
//                        [--storage-tasks N] [--storage-concurrency N] [--doors-samples N] [--doors-streams N]
import { closeSync, mkdirSync, openSync, readdirSync, realpathSync, statSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, totalmem } from 'node:os'
import { join, resolve } from 'node:path'
import type { Subprocess } from 'bun'
import { measurePayments, setupPayments, type PaymentsResult } from './lib/payments'
import { measureOverhead, type OverheadResult } from './lib/pipeline'
import { LISTS_MAX_P50_MS, LISTS_NAME, measureLists, type ListsResult } from './lib/lists'
import { DOORS_GOALS, DOORS_NAME, measureDoors, type DoorsResult } from './lib/doors'
import { measureStorage, STORAGE_MAX_BYTES_PER_TASK, STORAGE_NAME, type StorageResult } from './lib/storage'
import { measureSoak, SOAK_MAX_DRIFT, SOAK_NAME, type SoakResult } from './lib/soak'
import { cleanEnv, cleanup, cleanupSync, cpuBetween, freePort, readCpu, readMem, removeTempDir, sampleRss, stop, tail, tempDir, track, waitForHttp, type MemSample } from './lib/proc'
import { ensureWrk, luaScriptFor, parseSuccess, runWrk, successCountingLua, writeLuaScript, wrkVersion, type SuccessCount, type WrkResult } from './lib/wrk'
import { SCENARIOS, type BenchContext, type Scenario } from './scenarios'

const ROOT = resolve(import.meta.dir, '..')
const BIN = process.env.TASKGATE_BENCH_BIN ? resolve(process.env.TASKGATE_BENCH_BIN) : join(ROOT, 'dist', 'taskgate') // another build to compare with (A/B runs)
const RESULTS = join(ROOT, 'bench', 'results', 'latest.json')
/** Issue 12's goals for the process as a whole. */
const LIMITS = { coldStartMs: 100, idleRssMb: 64, loadRssMb: 256, binaryMb: 120, cpuMsPerTask: 1, nodeModulesMb: 330 }
const OPERATOR = { login: 'bench', password: 'benchpassword', tier: 'ENTERPRISE' }
const KEY_RPM = 1_000_000
// Every task costs a credit and the ledger account opens with the tier's monthly credits, so the
// CLI (operator create) and the server both get a large ENTERPRISE allocation.
// The load generator is one client (one address, one operator): the abuse limits meant for the open
// internet would turn the measurement into a 429 count.
const BENCH_ENV = { TASKGATE_TIERS_ENTERPRISE_MONTHLY_CREDITS: '100000000', TASKGATE_BEARER_RPM: '1000000000' }
const FAKE = { name: 'fake', model: 'fake-gpt', keys: ['sk-fake-1', 'sk-fake-2'] }
const OVERHEAD_NAME = 'pipeline overhead fake-gpt c=1'
const OVERHEAD_MAX_P50_MS = 1
const PAYMENTS_NAME = 'payments x402 vs credits'
const PAYMENTS_CONCURRENCY = 8
const PAYMENTS_ADMIN = { login: 'benchadmin', password: 'benchpassword' }
// The payments server: sign-ups open with 0 credits (the paid operator must pay every task) and a
// wallet may pay far more than the default 60 requests per hour.
const PAYMENTS_ENV = { TASKGATE_TIERS_FREE_MONTHLY_CREDITS: '0', TASKGATE_X402_MAX_PAID_PER_HOUR: '1000000', TASKGATE_FAUCET_MAX_USDC: '100', TASKGATE_FAUCET_PER_ADDRESS_PER_DAY: '1000', TASKGATE_BEARER_RPM: '1000000000' }

// ---------------------------------------------------------------- options

interface Options {
  build: boolean; durationS: number; warmupS: number; coldRuns: number
  connections: number; threads: number; only: string | null; logLevel: string | null
  pipelineDurationS: number; overheadSamples: number; overheadWarmup: number
  paymentSamples: number; paymentWarmup: number
  listsTasks: number
  storageTasks: number; storageConcurrency: number
  /** the doors part: sequential latency rounds (warm-up a tenth) and streams per target (warm-up 5) */
  doorsSamples: number; doorsStreams: number
  /** minutes of the soak (0: not run) and its submit rate (0: half the best pipeline rate of this run) */
  soakMinutes: number; soakRate: number
}

function parseArgs(argv: string[]): Options {
  const o: Options = {
    build: false, durationS: 10, warmupS: 2, coldRuns: 5, connections: 50, threads: 1, only: null, logLevel: null,
    pipelineDurationS: 5, overheadSamples: 500, overheadWarmup: 50, paymentSamples: 300, paymentWarmup: 30,
    listsTasks: 1_000_000, storageTasks: 5000, storageConcurrency: 16, soakMinutes: 0, soakRate: 0,
    doorsSamples: 300, doorsStreams: 50,
  }
  let duration: number | null = null
  let warmup: number | null = null
  let pipelineDuration: number | null = null
  let overheadSamples: number | null = null
  let overheadWarmup: number | null = null
  let paymentSamples: number | null = null
  const num = (raw: string | undefined, name: string) => {
    const v = Number(raw)
    if (!Number.isFinite(v) || v <= 0) usage(`${name} needs a positive number`)
    return v
  }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!
    const [flag, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, null]
    const val = (name: string) => num(inline ?? argv[++i], name)
    switch (flag) {
      case '--build': o.build = true; break
      case '--quick': o.durationS = 3; o.warmupS = 1; o.pipelineDurationS = 2; o.overheadSamples = 200; o.overheadWarmup = 20; o.paymentSamples = 100; o.paymentWarmup = 10; o.doorsSamples = 100; o.doorsStreams = 20; break
      case '--duration': duration = val('--duration'); break
      case '--warmup': warmup = val('--warmup'); break
      case '--cold-runs': o.coldRuns = Math.round(val('--cold-runs')); break
      case '--connections': o.connections = Math.round(val('--connections')); break
      case '--threads': o.threads = Math.round(val('--threads')); break
      case '--pipeline-duration': pipelineDuration = val('--pipeline-duration'); break
      case '--overhead-samples': overheadSamples = Math.round(val('--overhead-samples')); break
      case '--overhead-warmup': overheadWarmup = Math.round(val('--overhead-warmup')); break
      case '--payment-samples': paymentSamples = Math.round(val('--payment-samples')); break
      case '--lists-tasks': o.listsTasks = Math.round(val('--lists-tasks')); break
      case '--storage-tasks': o.storageTasks = Math.round(val('--storage-tasks')); break
      case '--storage-concurrency': o.storageConcurrency = Math.round(val('--storage-concurrency')); break
      case '--doors-samples': o.doorsSamples = Math.round(val('--doors-samples')); break
      case '--doors-streams': o.doorsStreams = Math.round(val('--doors-streams')); break
      case '--soak': o.soakMinutes = Math.round(val('--soak')); break
      case '--soak-rate': o.soakRate = val('--soak-rate'); break
      case '--only': o.only = inline ?? argv[++i] ?? usage('--only needs a value'); break
      case '--log-level': o.logLevel = inline ?? argv[++i] ?? usage('--log-level needs a value'); break
      case '-h': case '--help': usage()
      default: usage(`unknown option ${a}`)
    }
  }
  if (duration !== null) o.durationS = duration
  if (warmup !== null) o.warmupS = warmup
  if (pipelineDuration !== null) o.pipelineDurationS = pipelineDuration
  if (overheadSamples !== null) o.overheadSamples = overheadSamples
  if (overheadWarmup !== null) o.overheadWarmup = overheadWarmup
  if (paymentSamples !== null) { o.paymentSamples = paymentSamples; o.paymentWarmup = Math.max(1, Math.round(paymentSamples / 10)) }
  return o
}

function usage(err?: string): never {
  if (err) process.stderr.write(`error: ${err}\n`)
  process.stdout.write(`usage: bun run bench/run.ts [options]
  --quick            3 s per load (1 s warm-up) instead of 10 s (2 s); pipeline and payments c=${PAYMENTS_CONCURRENCY} 2 s
                     instead of 5 s; overhead 200 rounds (20 warm-up) instead of 500 (50); payments 100
                     sequential rounds (10 warm-up) instead of 300 (30)
  --duration N       seconds per measured load (default 10)
  --warmup N         seconds of warm-up load before each measurement (default 2)
  --build            rebuild dist/taskgate even when it looks up to date
  --cold-runs N      cold-start runs (default 5)
  --connections N    wrk connections (default 50)
  --threads N        wrk threads (default 1)
  --only SUBSTRING   only run scenarios whose name contains SUBSTRING; the bare baseline runs when a
                     route scenario is chosen. Pipeline: "pipeline" (all), "pipeline builtin",
                     "c=16", "overhead"; x402 payments: "payments"; task lists at scale: "lists";
                     the OpenAI-compatible door next to a direct call and Portkey: "doors"
  --pipeline-duration N  seconds per pipeline load (default 5; the warm-up is --warmup)
  --overhead-samples N   measured rounds of the overhead measurement (default 500)
  --overhead-warmup N    rounds of the overhead measurement discarded first (default 50)
  --payment-samples N    measured sequential rounds of the payments part (default 300; warm-up N/10)
  --lists-tasks N    tasks seeded for the lists part (default 1,000,000; "--only lists" runs only it)
  --storage-tasks N  tasks of the storage part (default 5,000; "--only storage" runs only it): database
                     bytes per task after they completed and a clean stop, goal ≤ ${STORAGE_MAX_BYTES_PER_TASK} bytes
  --storage-concurrency N  submits in flight during the storage part (default 16)
  --doors-samples N  sequential latency rounds of the doors part (default 300, --quick 100; warm-up N/10);
                     its loads use --warmup and --pipeline-duration, its streams --doors-streams
  --doors-streams N  streams per target in the doors part (default 50, --quick 20; warm-up 5). Portkey is
                     measured when \`npm run bench:peers\` installed it (else reported missing)
  --soak N           also run the soak for N minutes (not in the default run; the issue asks for 10):
                     submits at a fixed rate plus task lists at a fifth of it, one row per minute,
                     goal: last minute's p50 within ${SOAK_MAX_DRIFT}× of the first ("--only soak" runs only it)
  --soak-rate N      submits per second of the soak (default: half the best pipeline tasks/s of this
                     run, or 200 when no pipeline load ran)
  --log-level L      pass --log-level L to the server under load (default: not passed, i.e. info;
                     for diagnosis only, the targets are defined with the default)
  environment: TASKGATE_BENCH_BIN=path runs another build than dist/taskgate (A/B comparisons).
  Routes with a ratio goal are measured between two bare Bun.serve measurements and compared with
  their mean (docs/performance.md, How the bench measures the ratios).
`)
  process.exit(err ? 2 : 0)
}

// ---------------------------------------------------------------- helpers

const log = (s = '') => process.stdout.write(`${s}\n`)
const mb = (bytes: number) => bytes / 1048576
const kbToMb = (kb: number) => kb / 1024
const f = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : 'n/a')
const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2 }

function run(cmd: string[], opts: { cwd?: string; env?: Record<string, string> } = {}) {
  const r = Bun.spawnSync(cmd, { cwd: opts.cwd, env: opts.env, stdout: 'pipe', stderr: 'pipe' })
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() }
}

function newestMtime(dir: string): { mtime: number; file: string } {
  let best = { mtime: 0, file: '' }
  const walk = (d: string) => {
    let entries
    try { entries = readdirSync(d, { withFileTypes: true }) } catch { return }
    for (const e of entries) {
      const p = join(d, e.name)
      if (e.isDirectory()) { if (e.name !== 'node_modules') walk(p) } else {
        const m = statSync(p).mtimeMs
        if (m > best.mtime) best = { mtime: m, file: p }
      }
    }
  }
  walk(dir)
  return best
}

function bunBinary(): string {
  const local = join(ROOT, 'node_modules', '.bin', 'bun')
  try { return realpathSync(local) } catch { return process.execPath }
}

/** Builds dist/taskgate when missing, older than src/, ui/ or migrations/, or when forced. */
function ensureBinary(force: boolean): { built: boolean; reason: string; seconds: number } {
  let reason = force ? '--build' : ''
  if (!reason) {
    let binMtime = 0
    try { binMtime = statSync(BIN).mtimeMs } catch { reason = 'dist/taskgate is missing' }
    if (!reason) {
      for (const d of ['src', 'ui', 'migrations']) {
        const n = newestMtime(join(ROOT, d))
        if (n.mtime > binMtime) { reason = `${n.file.slice(ROOT.length + 1)} is newer than dist/taskgate`; break }
      }
    }
  }
  if (!reason) return { built: false, reason: 'up to date', seconds: 0 }
  log(`building dist/taskgate (${reason}) ...`)
  const t0 = performance.now()
  const r = Bun.spawnSync(['bash', 'scripts/build.sh'], { cwd: ROOT, stdout: 'inherit', stderr: 'inherit' })
  if (r.exitCode !== 0) throw new Error(`scripts/build.sh failed with exit code ${r.exitCode}`)
  return { built: true, reason, seconds: (performance.now() - t0) / 1000 }
}

interface Started { proc: Subprocess; url: string; logFile: string; startMs: number }

/** Starts `dist/taskgate serve` on a free port with `dataDir`, stdout+stderr to `logFile`. */
async function startTaskgate(dataDir: string, cwd: string, logFile: string, extraArgs: string[] = [], extraEnv: Record<string, string> = {}): Promise<Started> {
  const port = await freePort()
  const fd = openSync(logFile, 'a')
  const t0 = performance.now()
  const proc = track(Bun.spawn([BIN, 'serve', '--port', String(port), '--data-dir', dataDir, ...extraArgs], {
    cwd, env: cleanEnv(extraEnv).env, stdout: fd, stderr: fd, stdin: 'ignore',
  }))
  closeSync(fd)
  const url = `http://127.0.0.1:${port}`
  const startMs = await waitForHttp(`${url}/healthz`, proc, t0, { intervalMs: 2, describe: () => `--- ${logFile}\n${tail(logFile)}` })
  return { proc, url, logFile, startMs }
}

async function startBare(cwd: string, logFile: string, script = 'bare-server.ts'): Promise<Started> {
  const port = await freePort()
  const fd = openSync(logFile, 'a')
  const t0 = performance.now()
  const proc = track(Bun.spawn([bunBinary(), 'run', join(ROOT, 'bench', script), String(port)], {
    cwd, env: cleanEnv().env, stdout: fd, stderr: fd, stdin: 'ignore',
  }))
  closeSync(fd)
  const url = `http://127.0.0.1:${port}`
  const startMs = await waitForHttp(`${url}/`, proc, t0, { intervalMs: 5, describe: () => tail(logFile) })
  return { proc, url, logFile, startMs }
}

async function api<T>(url: string, init: { method?: string; headers?: Record<string, string>; body?: unknown }): Promise<T> {
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers: { ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
  })
  const text = await res.text()
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url} → ${res.status}: ${text.slice(0, 500)}`)
  return JSON.parse(text) as T
}

// ---------------------------------------------------------------- scenarios

interface Resolved { scenario: Scenario; method: string; url: string; headers: Record<string, string>; body?: string }

async function resolveScenario(s: Scenario, ctx: BenchContext): Promise<Resolved> {
  const method = (s.method ?? 'GET').toUpperCase()
  const base = s.server === 'bare' ? ctx.bareUrl : ctx.taskgateUrl
  const headers = { ...(typeof s.headers === 'function' ? await s.headers(ctx) : s.headers ?? {}) }
  let body: string | undefined
  if (s.body !== undefined) {
    const b = typeof s.body === 'function' ? await s.body(ctx) : s.body
    body = typeof b === 'string' ? b : JSON.stringify(b)
    if (typeof b !== 'string' && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json'
  }
  return { scenario: s, method, url: `${base}${s.path}`, headers, body }
}

async function preflight(r: Resolved): Promise<void> {
  const res = await fetch(r.url, { method: r.method, headers: r.headers, body: r.body })
  const text = await res.text()
  const want = r.scenario.expectStatus ?? 200
  if (res.status !== want) throw new Error(`preflight ${r.method} ${r.url}: expected ${want}, got ${res.status}: ${text.slice(0, 300)}`)
  const problem = r.scenario.verify?.(res.status, text)
  if (problem) throw new Error(`preflight ${r.method} ${r.url}: ${problem}`)
}

interface ScenarioResult {
  name: string; server: string; method: string; path: string
  rps: number; p50Ms: number; p75Ms: number; p90Ms: number; p99Ms: number; avgMs: number; maxMs: number
  requests: number; non2xx: number; socketErrors: WrkResult['socketErrors']
  /** bare Bun.serve's req/s this route is compared with: the mean of the bare measurements right before and after it */
  baseline: boolean; baselineRps: number
  ratioToBaseline: number; rssMaxMb: number | null; hwmMb: number | null
  /** taskgate (or bare) process CPU during the measured load, in cores (1.0 = one core busy) */
  cpu: { cores: number; mainThreadCores: number; totalS: number } | null
  group: 'routes' | 'pipeline'; connections: number; threads: number; durationS: number
  /** pipeline scenarios: responses that matched `success`, and what did not */
  success: (SuccessCount & { perS: number; cpuMsPerSuccess: number | null }) | null
  raw: string
}

// ---------------------------------------------------------------- payments

/** The payments part: its own data dir and server (see PAYMENTS_ENV), an admin made by the CLI. */
async function runPayments(opts: Options): Promise<PaymentsResult> {
  const work = tempDir('taskgate-pay-')
  const dataDir = join(work, 'data')
  const created = run([BIN, 'operator', 'create', '--login', PAYMENTS_ADMIN.login, '--password', PAYMENTS_ADMIN.password, '--admin', '--data-dir', dataDir], { cwd: work, env: cleanEnv(PAYMENTS_ENV).env })
  if (created.code !== 0) throw new Error(`operator create (payments admin) failed (${created.code}): ${created.err || created.out}`)
  const tg = await startTaskgate(dataDir, work, join(work, 'taskgate.log'), opts.logLevel ? ['--log-level', opts.logLevel] : [], PAYMENTS_ENV)
  try {
    const { accessToken } = await api<{ accessToken: string }>(`${tg.url}/api/v1/auth/login`, { method: 'POST', body: PAYMENTS_ADMIN })
    const setup = await setupPayments(tg.url, accessToken)
    process.stdout.write(`load: ${PAYMENTS_NAME} (${opts.paymentWarmup} warm-up + ${opts.paymentSamples} rounds of paid / credits, sequential; then c=${PAYMENTS_CONCURRENCY} paid and credits, warm-up ${opts.warmupS} s, measure ${opts.pipelineDurationS} s) ... `)
    const r = await measurePayments({
      setup, serverPid: tg.proc.pid, warmup: opts.paymentWarmup, samples: opts.paymentSamples,
      concurrency: PAYMENTS_CONCURRENCY, warmupS: opts.warmupS, durationS: opts.pipelineDurationS,
      log: (x) => process.stdout.write(x),
    })
    log(`paid − credits p50 ${f(r.sequential.costMs.p50, 3)} ms (v1), ${f(r.sequential.costV2Ms.p50, 3)} ms (v2); c=${PAYMENTS_CONCURRENCY} paid ${f(r.concurrent.paid.tasksPerS, 0)} tasks/s, credits ${f(r.concurrent.credits.tasksPerS, 0)} tasks/s${r.failureCount ? `, ${r.failureCount} failed` : ''}`)
    for (const x of r.failures) log(`  failed ${x.phase}: ${x.status} ${x.body}`)
    return r
  } catch (e) {
    throw new Error(`${e instanceof Error ? e.message : String(e)}\n--- ${tg.logFile}\n${tail(tg.logFile)}`)
  } finally {
    await stop(tg.proc)
    removeTempDir(work)
  }
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2))
  // What runs: --only matches scenario names; the baseline runs whenever a route scenario does.
  const matches = (name: string) => !opts.only || name.includes(opts.only)
  const baselines = SCENARIOS.filter((s) => s.baseline)
  if (baselines.length !== 1) throw new Error('exactly one scenario must have baseline: true')
  const routeChosen = SCENARIOS.some((s) => (s.group ?? 'routes') === 'routes' && !s.baseline && matches(s.name))
  const chosen = SCENARIOS.filter((s) => (s.baseline ? routeChosen || matches(s.name) : matches(s.name)))
  const overheadChosen = matches(OVERHEAD_NAME)
  const paymentsChosen = matches(PAYMENTS_NAME)
  const listsChosen = matches(LISTS_NAME)
  const storageChosen = matches(STORAGE_NAME)
  const doorsChosen = matches(DOORS_NAME)
  const soakChosen = opts.soakMinutes > 0 && matches(SOAK_NAME)
  if (chosen.length === 0 && !overheadChosen && !paymentsChosen && !listsChosen && !storageChosen && !doorsChosen && !soakChosen) usage(`--only ${opts.only} matches no scenario (${[...SCENARIOS.map((s) => s.name), OVERHEAD_NAME, PAYMENTS_NAME, LISTS_NAME, STORAGE_NAME, DOORS_NAME, SOAK_NAME].join(' | ')})`)
  const wrk = ensureWrk()
  const loadAtStart = loadavg()[0]!
  if (loadAtStart > 0.5) log(`warning: load average is ${f(loadAtStart, 2)} before the benchmark; other processes compete for the CPU and the numbers will be noisy`)
  const { stripped } = cleanEnv()
  if (stripped.length) log(`note: not passing ${stripped.join(', ')} to the binary (it runs on defaults)`)

  // 1. build
  const build = ensureBinary(opts.build)
  if (!build.built) log('dist/taskgate is up to date')
  const version = run([BIN, 'version']).out.trim()

  // 2. size
  const sizeMb = mb(statSync(BIN).size)
  log(`binary: ${f(sizeMb)} MB (${version})`)

  // 3. cold start
  await fetch('http://127.0.0.1:9/').catch(() => undefined) // initialise fetch() so it is not timed
  const coldMs: number[] = []
  for (let i = 0; i < opts.coldRuns; i++) {
    const dir = tempDir('taskgate-cold-')
    const s = await startTaskgate(join(dir, 'data'), dir, join(dir, 'taskgate.log'))
    coldMs.push(s.startMs)
    await stop(s.proc)
    removeTempDir(dir)
  }
  // For scale: the same binary doing nothing but printing its version (process start + bundle load).
  const execMs: number[] = []
  for (let i = 0; i < opts.coldRuns; i++) {
    const t0 = performance.now()
    if (run([BIN, 'version']).code !== 0) throw new Error('dist/taskgate version failed')
    execMs.push(performance.now() - t0)
  }
  const cold = { execFloorMs: Math.min(...execMs), runsMs: coldMs, minMs: Math.min(...coldMs), medianMs: median(coldMs), maxMs: Math.max(...coldMs) }
  log(`cold start (${opts.coldRuns} runs, fresh data dir): min ${f(cold.minMs)} / median ${f(cold.medianMs)} / max ${f(cold.maxMs)} ms`)

  // 4 + 5. servers and credentials
  const work = tempDir()
  const dataDir = join(work, 'data')
  const env = cleanEnv(BENCH_ENV).env
  // --admin: registering the fake provider is an admin call.
  const created = run([BIN, 'operator', 'create', '--login', OPERATOR.login, '--password', OPERATOR.password, '--tier', OPERATOR.tier, '--admin', '--data-dir', dataDir], { cwd: work, env })
  if (created.code !== 0) throw new Error(`operator create failed (${created.code}): ${created.err || created.out}`)
  const bare = await startBare(work, join(work, 'bare.log'))
  const tg = await startTaskgate(dataDir, work, join(work, 'taskgate.log'), opts.logLevel ? ['--log-level', opts.logLevel] : [], BENCH_ENV)
  const tgPid = tg.proc.pid
  await Bun.sleep(2000)
  const idle = readMem(tgPid) ?? (() => { throw new Error(`cannot read /proc/${tgPid}/status`) })()
  const bareIdle = readMem(bare.proc.pid)
  log(`idle RSS: taskgate ${f(kbToMb(idle.rssKb))} MB, bare Bun.serve ${bareIdle ? f(kbToMb(bareIdle.rssKb)) : 'n/a'} MB`)

  const { accessToken } = await api<{ accessToken: string }>(`${tg.url}/api/v1/auth/login`, { method: 'POST', body: { login: OPERATOR.login, password: OPERATOR.password } })
  const bearer = { authorization: `Bearer ${accessToken}` }
  const { agentId } = await api<{ agentId: string }>(`${tg.url}/api/v1/agents/register`, {
    method: 'POST', headers: bearer, body: { displayName: 'bench', capabilities: ['general', 'sentiment_analysis'] },
  })
  const ctx: BenchContext = {
    bareUrl: bare.url, taskgateUrl: tg.url, accessToken, agentId,
    newApiKey: async (name) => (await api<{ key: string }>(`${tg.url}/api/v1/operator/keys`, {
      method: 'POST', headers: bearer, body: { name, rateLimitRpm: KEY_RPM },
    })).key,
  }
  // The loopback fake provider, registered through the admin API (only when the overhead runs).
  let fake: Started | null = null
  if (overheadChosen) {
    fake = await startBare(work, join(work, 'fake-openai.log'), 'fake-openai.ts')
    await api(`${tg.url}/api/v1/admin/providers`, {
      method: 'POST', headers: bearer,
      body: { name: FAKE.name, kind: 'openai', baseUrl: `${fake.url}/v1`, models: [FAKE.model], keys: FAKE.keys.map((key) => ({ key, rpm: 1_000_000, concurrency: 256 })) },
    })
  }

  // 6 + 7. load
  const results: ScenarioResult[] = []
  let loadMem: MemSample | null = null
  // Route scenarios first, then the pipeline (it fills the database and the request log). A route
  // with a ratio goal is bracketed by bare measurements (bare, route, bare): its ratio is to the
  // mean of the two, so the machine's drift over the minutes of a run (bare Bun.serve moved by
  // ±10 % between runs here) does not decide a goal (docs/performance.md, How the bench measures).
  const bareScenario = chosen.find((s) => s.baseline)
  const routeOrder = chosen.filter((s) => s.group !== 'pipeline')
  const ordered: Scenario[] = []
  for (const s of routeOrder) {
    ordered.push(s)
    if (bareScenario && s.targets?.minRatioToBaseline !== undefined) ordered.push(bareScenario)
  }
  ordered.push(...chosen.filter((s) => s.group === 'pipeline'))
  for (const s of ordered) {
    const group = s.group ?? 'routes'
    const threads = s.threads ?? opts.threads
    const connections = s.connections ?? opts.connections
    const durationS = group === 'pipeline' ? opts.pipelineDurationS : opts.durationS
    const load = async () => {
      const r = await resolveScenario(s, ctx)
      await preflight(r)
      const luaScript = [s.luaScript, s.success ? successCountingLua(s.success.status, s.success.bodyContains) : undefined].filter(Boolean).join('\n') || undefined
      const lua = luaScriptFor({ method: r.method, body: r.body, headers: r.headers, luaScript })
      const script = lua ? writeLuaScript(work, s.name, lua) : undefined
      return { r, common: { url: r.url, threads, connections, headers: r.headers, script } }
    }
    let { r, common } = await load()
    process.stdout.write(`load: ${s.name} (warm-up ${opts.warmupS} s, measure ${durationS} s) ... `)
    if (opts.warmupS > 0) await runWrk(wrk, { ...common, durationS: opts.warmupS, latency: false })
    // Headers made per scenario (a fresh API key) are made again for the measurement, so the
    // warm-up's requests do not count against the key's per-minute budget.
    if (typeof s.headers === 'function') ({ r, common } = await load())
    await Bun.sleep(300)
    const pid = s.server === 'taskgate' ? tgPid : bare.proc.pid
    const sampler = sampleRss(pid, 100)
    const cpu0 = readCpu(pid)
    const w = await runWrk(wrk, { ...common, durationS, latency: true })
    const cpu = cpuBetween(cpu0, readCpu(pid))
    const mem = sampler.stop()
    if (s.rssHeadline) loadMem = mem
    let success: ScenarioResult['success'] = null
    if (s.success) {
      const c = parseSuccess(w.raw)
      if (!c) throw new Error(`${s.name}: the success-counting Lua printed nothing:\n${w.raw}`)
      success = { ...c, perS: c.ok / w.durationS, cpuMsPerSuccess: cpu && c.ok ? (cpu.totalS * 1000) / c.ok : null }
    }
    const bareRound = s.baseline ? results.filter((x) => x.baseline).length + 1 : 0
    const res: ScenarioResult = {
      name: bareRound > 1 ? `${s.name} (#${bareRound})` : s.name, server: s.server, baseline: !!s.baseline, baselineRps: NaN, method: r.method, path: s.path,
      rps: w.rps, p50Ms: w.latencyMs.p50, p75Ms: w.latencyMs.p75, p90Ms: w.latencyMs.p90, p99Ms: w.latencyMs.p99,
      avgMs: w.latencyMs.avg, maxMs: w.latencyMs.max, requests: w.requests, non2xx: w.non2xx, socketErrors: w.socketErrors,
      ratioToBaseline: NaN, rssMaxMb: mem.rssKb ? kbToMb(mem.rssKb) : null, hwmMb: mem.hwmKb ? kbToMb(mem.hwmKb) : null,
      cpu: cpu ? { cores: cpu.cores, mainThreadCores: cpu.mainThreadCores, totalS: cpu.totalS } : null,
      group, connections, threads, durationS, success, raw: w.raw,
    }
    results.push(res)
    const errs = res.non2xx + Object.values(res.socketErrors).reduce((a, b) => a + b, 0)
    if (success) {
      log(`${f(success.perS, 0)} tasks/s, p50 ${f(w.latencyMs.p50, 2)} ms, p99 ${f(w.latencyMs.p99, 2)} ms${success.bad ? `, ${success.bad} not COMPLETED` : ''}${errs ? `, ${errs} errors/non-2xx` : ''}`)
      for (const sample of success.samples) log(`  failed response: ${sample}`)
    } else {
      log(`${f(w.rps, 0)} req/s, p99 ${f(w.latencyMs.p99, 2)} ms${errs ? `, ${errs} errors/non-2xx` : ''}`)
    }
    await Bun.sleep(500)
  }
  // Each route against the bare measurements next to it: the one before and the one after (a
  // bracketed route), else the nearest one.
  results.forEach((r, i) => {
    if (r.group !== 'routes') return
    const before = results.slice(0, i + 1).reverse().find((x) => x.baseline)
    const after = results.slice(i).find((x) => x.baseline)
    const near = r.baseline ? [r] : [before, after].filter((x): x is ScenarioResult => !!x)
    r.baselineRps = near.length ? near.reduce((a, x) => a + x.rps, 0) / near.length : NaN
    r.ratioToBaseline = r.rps / r.baselineRps
  })

  // 7b. gateway overhead against the fake provider
  let overhead: OverheadResult | null = null
  if (overheadChosen && fake) {
    process.stdout.write(`load: ${OVERHEAD_NAME} (${opts.overheadWarmup} warm-up + ${opts.overheadSamples} rounds of direct / fake-gpt / builtin, sequential) ... `)
    overhead = await measureOverhead({
      taskgateUrl: tg.url, accessToken, agentId, fakeUrl: fake.url, fakeModel: FAKE.model, fakeKey: FAKE.keys[0]!,
      warmup: opts.overheadWarmup, samples: opts.overheadSamples,
    })
    log(`overhead p50 ${f(overhead.overheadP50Ms, 3)} ms, p99 ${f(overhead.overheadP99Ms, 3)} ms${overhead.failureCount ? `, ${overhead.failureCount} failed calls` : ''}`)
    for (const x of overhead.failures) log(`  failed ${x.kind}: ${x.status} ${x.body}`)
  }
  // 7b'. soak: latency over minutes while tasks accumulate (opt-in)
  let soak: SoakResult | null = null
  if (soakChosen) {
    const bestRate = Math.max(0, ...results.filter((r) => r.group === 'pipeline').map((r) => r.success?.perS ?? 0))
    const rate = opts.soakRate || (bestRate > 0 ? Math.round(bestRate / 2) : 200)
    log(`load: ${SOAK_NAME} (${opts.soakMinutes} min: ${rate} submits/s + ${f(rate / 5, 0)} list reads/s, open loop; one row per minute)`)
    soak = await measureSoak({
      taskgateUrl: tg.url, accessToken, agentId, minutes: opts.soakMinutes, ratePerS: rate,
      onMinute: (m) => log(`  minute ${String(m.minute).padStart(2)}: ${f(m.submitsPerS, 0)} submits/s p50 ${f(m.submit.p50Ms, 2)} p99 ${f(m.submit.p99Ms, 2)} ms; ${f(m.listsPerS, 0)} lists/s p50 ${f(m.list.p50Ms, 2)} p99 ${f(m.list.p99Ms, 2)} ms; ${m.storedTasks} tasks stored${m.failures ? `; ${m.failures} failed` : ''}${m.skipped ? `; ${m.skipped} not sent (256 in flight)` : ''}`),
    })
    for (const x of soak.failures) log(`  failed: ${x.status} ${x.body}`)
  }
  const finalMem = readMem(tgPid)
  const logLines = Number(run(['wc', '-l', tg.logFile]).out.trim().split(/\s+/)[0] ?? NaN)
  const logBytes = statSync(tg.logFile).size
  await stop(tg.proc)
  await stop(bare.proc)
  if (fake) await stop(fake.proc)
  removeTempDir(work)

  // 7c. x402 payments against credits, on a dedicated server
  let payments: PaymentsResult | null = null
  if (paymentsChosen) payments = await runPayments(opts)

  // 7d. task lists, counters and daily rollups at scale, on a dedicated seeded data dir
  let lists: ListsResult | null = null
  if (listsChosen) {
    lists = await measureLists({
      wrk, bin: BIN, tasks: opts.listsTasks, durationS: opts.durationS, warmupS: opts.warmupS,
      start: (dir, cwd, logFile) => startTaskgate(dir, cwd, logFile, opts.logLevel ? ['--log-level', opts.logLevel] : [], BENCH_ENV),
      log: (x) => process.stdout.write(x),
    })
  }

  // 7e. bytes stored per task, on a dedicated data dir
  let storage: StorageResult | null = null
  if (storageChosen) {
    storage = await measureStorage({
      bin: BIN, tasks: opts.storageTasks, concurrency: opts.storageConcurrency, env: cleanEnv(BENCH_ENV).env,
      start: (dir, cwd, logFile) => startTaskgate(dir, cwd, logFile, opts.logLevel ? ['--log-level', opts.logLevel] : [], BENCH_ENV),
      log: (x) => process.stdout.write(x),
    })
  }

  // 7f. the OpenAI-compatible door next to a direct call and Portkey, on a dedicated server
  let doors: DoorsResult | null = null
  if (doorsChosen) {
    log(`load: ${DOORS_NAME}`)
    doors = await measureDoors({
      wrk, bin: BIN, bunBin: bunBinary(), root: ROOT, env: cleanEnv(BENCH_ENV).env,
      warmupS: opts.warmupS, durationS: opts.pipelineDurationS,
      latencyWarmup: Math.max(1, Math.round(opts.doorsSamples / 10)), latencySamples: opts.doorsSamples,
      streamWarmup: 5, streams: opts.doorsStreams, streamChunks: 5, streamSpacingMs: 10,
      start: (dir, cwd, logFile) => startTaskgate(dir, cwd, logFile, opts.logLevel ? ['--log-level', opts.logLevel] : [], BENCH_ENV),
      log: (x) => process.stdout.write(x),
    })
    if (doors.portkeyMissing) log(`  Portkey: missing (${doors.portkeyMissing})`)
  }

  // 8. report
  const memory = {
    idleRssMb: kbToMb(idle.rssKb),
    underLoadRssMb: loadMem ? kbToMb(loadMem.rssKb) : null,
    underLoadScenario: SCENARIOS.find((s) => s.rssHeadline)?.name ?? null,
    peakHwmMb: finalMem ? kbToMb(finalMem.hwmKb) : null,
    bareIdleRssMb: bareIdle ? kbToMb(bareIdle.rssKb) : null,
  }
  const checks: { name: string; value: string; limit: string; pass: boolean }[] = []
  const routeResults = results.filter((r) => r.group === 'routes')
  const pipelineResults = results.filter((r) => r.group === 'pipeline')
  for (const r of routeResults) {
    const t = chosen.find((s) => s.name === r.name)?.targets
    if (t?.minRatioToBaseline !== undefined) checks.push({ name: `${r.name}: req/s vs bare`, value: `${f(r.ratioToBaseline, 2)}×`, limit: `≥ ${t.minRatioToBaseline}×`, pass: r.ratioToBaseline >= t.minRatioToBaseline })
    if (t?.maxP99Ms !== undefined) checks.push({ name: `${r.name}: p99`, value: `${f(r.p99Ms, 2)} ms`, limit: `< ${t.maxP99Ms} ms`, pass: r.p99Ms < t.maxP99Ms })
    if (r.non2xx > 0) checks.push({ name: `${r.name}: non-2xx responses`, value: String(r.non2xx), limit: '0', pass: false })
  }
  const best = pipelineResults.reduce<ScenarioResult | null>((b, r) => (!b || (r.success?.perS ?? 0) > (b.success?.perS ?? 0) ? r : b), null)
  const minTasks = chosen.find((s) => s.minSuccessPerS !== undefined)?.minSuccessPerS
  if (best && minTasks !== undefined) {
    checks.push({ name: `pipeline tasks/s (best: c=${best.connections})`, value: f(best.success?.perS ?? NaN, 0), limit: `≥ ${minTasks}`, pass: (best.success?.perS ?? 0) >= minTasks })
  }
  for (const r of pipelineResults) {
    const t = chosen.find((s) => s.name === r.name)?.targets
    if (t?.maxP50Ms !== undefined) checks.push({ name: `${r.name}: p50`, value: `${f(r.p50Ms, 2)} ms`, limit: `< ${t.maxP50Ms} ms`, pass: r.p50Ms < t.maxP50Ms })
    if (t?.maxP99Ms !== undefined) checks.push({ name: `${r.name}: p99`, value: `${f(r.p99Ms, 2)} ms`, limit: `< ${t.maxP99Ms} ms`, pass: r.p99Ms < t.maxP99Ms })
  }
  if (best?.success?.cpuMsPerSuccess != null) {
    checks.push({ name: `server CPU per task, all threads (c=${best.connections})`, value: `${f(best.success.cpuMsPerSuccess, 2)} ms`, limit: `≤ ${LIMITS.cpuMsPerTask} ms`, pass: best.success.cpuMsPerSuccess <= LIMITS.cpuMsPerTask })
  }
  for (const r of pipelineResults) {
    const bad = (r.success?.bad ?? 0) + Object.values(r.socketErrors).reduce((a, b) => a + b, 0)
    if (bad > 0) checks.push({ name: `${r.name}: not COMPLETED / socket errors`, value: String(bad), limit: '0', pass: false })
  }
  if (overhead) {
    checks.push({ name: 'pipeline overhead p50 (fake-gpt − direct)', value: `${f(overhead.overheadP50Ms, 3)} ms`, limit: `< ${OVERHEAD_MAX_P50_MS} ms`, pass: overhead.overheadP50Ms < OVERHEAD_MAX_P50_MS })
    if (overhead.failureCount > 0) checks.push({ name: 'pipeline overhead: failed calls', value: String(overhead.failureCount), limit: '0', pass: false })
  }
  if (payments) {
    const bad = payments.failureCount
    checks.push({ name: 'payments: non-200 / not COMPLETED / no receipt', value: String(bad), limit: '0', pass: bad === 0 })
    const c = payments.checks
    if (c.paidOperatorBalance !== null) checks.push({ name: 'payments: paid operator credit balance after', value: String(c.paidOperatorBalance), limit: '= 0', pass: c.paidOperatorBalance === 0 })
    if (c.sequentialWalletSpentUsdc !== null) checks.push({ name: 'payments: USDC spent by the sequential wallet', value: String(c.sequentialWalletSpentUsdc), limit: `= ${c.sequentialWalletExpectedUsdc}`, pass: Math.abs(c.sequentialWalletSpentUsdc - c.sequentialWalletExpectedUsdc) < 1e-6 })
  }
  if (lists) {
    for (const v of lists.variants) {
      if (v.targeted) checks.push({ name: `lists ${v.name}: p50 at ${lists.tasks.toLocaleString('en')} tasks`, value: `${f(v.p50Ms, 3)} ms`, limit: `< ${LISTS_MAX_P50_MS} ms`, pass: v.p50Ms < LISTS_MAX_P50_MS })
      if (v.errors) checks.push({ name: `lists ${v.name}: errors/non-2xx`, value: String(v.errors), limit: '0', pass: false })
    }
  }
  if (storage) {
    checks.push({ name: `storage per task (${storage.tasks.toLocaleString('en')} tasks, clean stop)`, value: `${f(storage.bytesPerTask / 1024, 2)} KB`, limit: `≤ ${f(STORAGE_MAX_BYTES_PER_TASK / 1024, 0)} KB`, pass: storage.bytesPerTask <= STORAGE_MAX_BYTES_PER_TASK })
    if (storage.failed) checks.push({ name: 'storage: tasks not COMPLETED', value: String(storage.failed), limit: '0', pass: false })
  }
  if (doors) {
    const d = doors
    const G = DOORS_GOALS
    const door = d.latency.overhead.door!
    const pk = d.latency.overhead.portkey
    checks.push({ name: 'doors: /v1/chat/completions overhead p50 (door − direct, c=1)', value: `${f(door.p50Ms, 3)} ms`, limit: `< ${G.overheadP50Ms} ms`, pass: door.p50Ms < G.overheadP50Ms })
    checks.push({ name: 'doors: overhead p99, door vs Portkey (same run)', value: pk ? `${f(door.p99Ms, 2)} vs ${f(pk.p99Ms, 2)} ms` : `${f(door.p99Ms, 2)} ms, Portkey missing`, limit: '< Portkey\'s', pass: !!pk && door.p99Ms < pk.p99Ms })
    const bd = d.throughput.best.door
    checks.push({ name: `doors: /v1/chat/completions calls/s (best: c=${bd?.connections ?? '?'})`, value: f(bd?.perS ?? NaN, 0), limit: `≥ ${G.callsPerS}`, pass: (bd?.perS ?? 0) >= G.callsPerS })
    checks.push({ name: 'doors: best calls/s ÷ best submit tasks/s (same model, bracketed)', value: `${f(d.throughput.doorToSubmit, 2)}×`, limit: `≥ ${G.minRatioToSubmit}×`, pass: d.throughput.doorToSubmit >= G.minRatioToSubmit })
    const ttfc = d.streaming.ttfcOverheadP50Ms.door ?? NaN
    checks.push({ name: 'doors: stream time to first chunk, overhead p50', value: `${f(ttfc, 3)} ms`, limit: `< ${G.ttfcOverheadP50Ms} ms`, pass: ttfc < G.ttfcOverheadP50Ms })
    const gap = d.streaming.rows.find((r) => r.target === 'door')?.maxGapDevFromProvider.p50Ms ?? NaN
    checks.push({ name: 'doors: stream chunk spacing, largest deviation p50', value: `${f(gap, 3)} ms`, limit: `≤ ${G.spacingMs} ms`, pass: gap <= G.spacingMs })
    checks.push({ name: 'doors: failed calls / socket errors', value: String(d.failureCount), limit: '0', pass: d.failureCount === 0 })
  }
  if (soak && soak.rows.length < 2) log('soak: one minute has nothing to compare with; the drift goals need --soak 2 or more')
  if (soak && soak.rows.length >= 2) {
    const last = soak.rows[soak.rows.length - 1]!
    checks.push({ name: `soak ${soak.minutes} min: submit p50, last minute ÷ first`, value: `${f(soak.submitDrift, 2)}× (${f(soak.rows[0]!.submit.p50Ms, 2)} → ${f(last.submit.p50Ms, 2)} ms)`, limit: `≤ ${SOAK_MAX_DRIFT}×`, pass: soak.submitDrift <= SOAK_MAX_DRIFT })
    checks.push({ name: `soak ${soak.minutes} min: list p50, last minute ÷ first`, value: `${f(soak.listDrift, 2)}× (${f(soak.rows[0]!.list.p50Ms, 2)} → ${f(last.list.p50Ms, 2)} ms)`, limit: `≤ ${SOAK_MAX_DRIFT}×`, pass: soak.listDrift <= SOAK_MAX_DRIFT })
  }
  if (soak) {
    const failed = soak.rows.reduce((n, r) => n + r.failures, 0)
    checks.push({ name: `soak ${soak.minutes} min: failed requests`, value: String(failed), limit: '0', pass: failed === 0 })
  }
  checks.push({ name: 'cold start (median)', value: `${f(cold.medianMs)} ms`, limit: `< ${LIMITS.coldStartMs} ms`, pass: cold.medianMs < LIMITS.coldStartMs })
  checks.push({ name: 'RSS idle', value: `${f(memory.idleRssMb)} MB`, limit: `< ${LIMITS.idleRssMb} MB`, pass: memory.idleRssMb < LIMITS.idleRssMb })
  if (memory.peakHwmMb !== null) checks.push({ name: 'RSS peak after the loads (VmHWM)', value: `${f(memory.peakHwmMb)} MB`, limit: `< ${LIMITS.loadRssMb} MB`, pass: memory.peakHwmMb < LIMITS.loadRssMb })
  checks.push({ name: 'binary size', value: `${f(sizeMb)} MB`, limit: `≤ ${LIMITS.binaryMb} MB`, pass: sizeMb <= LIMITS.binaryMb })
  const deps = nodeModulesSize()
  if (deps) checks.push({ name: `node_modules of this checkout (${deps.packages} packages)`, value: `${f(deps.mb, 0)} MB`, limit: `≤ ${LIMITS.nodeModulesMb} MB`, pass: deps.mb <= LIMITS.nodeModulesMb })

  const cpuModel = cpus()[0]?.model ?? 'unknown'
  const loadAtEnd = loadavg()[0]!
  log()
  log(`TaskGate benchmark — ${version}, bun ${run([bunBinary(), '--version']).out.trim()}, wrk ${wrkVersion(wrk)}`)
  log(`${cpus().length} × ${cpuModel}, ${f(mb(totalmem()) / 1024)} GB RAM; wrk -t${opts.threads} -c${opts.connections} -d${opts.durationS}s (warm-up ${opts.warmupS} s); log level ${opts.logLevel ?? 'info (default)'} → file`)
  log(`load average (1 min) before ${f(loadAtStart, 2)}, after ${f(loadAtEnd, 2)} (the 'after' value includes the benchmark's own load)`)
  log()
  const cols = ['target', 'req/s', 'p50 ms', 'p99 ms', 'bare req/s', '× bare', 'RSS max MB', 'errors']
  const rows = routeResults.map((r) => [
    r.name, f(r.rps, 0), f(r.p50Ms, 2), f(r.p99Ms, 2), r.baseline ? '' : f(r.baselineRps, 0), r.baseline ? '' : f(r.ratioToBaseline, 2), r.rssMaxMb === null ? '' : f(r.rssMaxMb),
    String(r.non2xx + Object.values(r.socketErrors).reduce((a, b) => a + b, 0)),
  ])
  const widths = cols.map((c, i) => Math.max(c.length, ...rows.map((row) => row[i]!.length)))
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')
  if (rows.length) {
    log(line(cols))
    log(widths.map((w) => '-'.repeat(w)).join('  '))
    for (const row of rows) log(line(row))
    log()
  }
  if (pipelineResults.length) {
    log(`pipeline: POST /api/v1/tasks/submit, builtin provider, taskType sentiment_analysis, operator bearer token; wrk -d${opts.pipelineDurationS}s (warm-up ${opts.warmupS} s)`)
    log('  tasks/s counts only 200 responses whose body has "status":"COMPLETED"; latency is over all responses;')
    log('  CPU = taskgate process (all threads / main JS thread) in cores during the measurement; wrk shares the machine')
    const pc = ['concurrency', 'tasks/s', 'p50 ms', 'p99 ms', 'completed', 'failed', 'CPU', 'main thr', 'CPU ms/task', 'RSS max MB']
    const pr = pipelineResults.map((r) => [
      `c=${r.connections} (t${r.threads})`, f(r.success?.perS ?? NaN, 0), f(r.p50Ms, 2), f(r.p99Ms, 2), String(r.success?.ok ?? ''), String((r.success?.bad ?? 0) + Object.values(r.socketErrors).reduce((a, b) => a + b, 0)),
      r.cpu ? f(r.cpu.cores, 2) : 'n/a', r.cpu ? f(r.cpu.mainThreadCores, 2) : 'n/a', r.success?.cpuMsPerSuccess != null ? f(r.success.cpuMsPerSuccess, 2) : 'n/a', r.rssMaxMb === null ? '' : f(r.rssMaxMb),
    ])
    const pw = pc.map((c, i) => Math.max(c.length, ...pr.map((row) => row[i]!.length)))
    const pl = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(pw[i]!) : c.padStart(pw[i]!))).join('  ')
    log(pl(pc))
    log(pw.map((w) => '-'.repeat(w)).join('  '))
    for (const row of pr) log(pl(row))
    for (const r of pipelineResults) {
      if (r.success && r.success.bad) log(`  ${r.name}: ${r.success.bad} not COMPLETED (by status: ${Object.entries(r.success.badByStatus).map(([k, v]) => `${k}×${v}`).join(', ') || 'n/a'})`)
    }
    log()
  }
  if (overhead) {
    const o = overhead
    log(`gateway overhead (${o.samples} measured rounds after ${o.warmup} warm-up):`)
    for (const l of o.method.split('\n')) log(`  ${l}`)
    const oc = ['', 'p50 ms', 'p90 ms', 'p99 ms', 'mean ms', 'n']
    const or = [
      ['direct fake-openai (loopback)', o.direct], ['submit model fake-gpt', o.submitFake], ['submit builtin', o.submitBuiltin],
    ].map(([label, st]) => { const x = st as OverheadResult['direct']; return [label as string, f(x.p50Ms, 3), f(x.p90Ms, 3), f(x.p99Ms, 3), f(x.meanMs, 3), String(x.n)] })
    or.push(['overhead (fake-gpt − direct)', f(o.overheadP50Ms, 3), f(o.submitFake.p90Ms - o.direct.p90Ms, 3), f(o.overheadP99Ms, 3), f(o.submitFake.meanMs - o.direct.meanMs, 3), ''])
    const ow = oc.map((c, i) => Math.max(c.length, ...or.map((row) => row[i]!.length)))
    const ol = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(ow[i]!) : c.padStart(ow[i]!))).join('  ')
    log(`  ${ol(oc)}`)
    for (const row of or) log(`  ${ol(row)}`)
    log(`  for scale: submit fake-gpt − submit builtin (what the HTTP provider call adds over the in-process one): p50 ${f(o.submitFake.p50Ms - o.submitBuiltin.p50Ms, 3)} ms, mean ${f(o.submitFake.meanMs - o.submitBuiltin.meanMs, 3)} ms`)
    if (o.fakeHandling) log(`  fake provider's own handling time: p50 ${f(o.fakeHandling.p50Us, 0)} µs, p99 ${f(o.fakeHandling.p99Us, 0)} µs over ${o.fakeHandling.requests} requests (expected ${o.fakeRequestsExpected})`)
    const st = (label: string, b: OverheadResult['stagesFake']) => {
      if (!b) return
      log(`  ${label}: pipeline ${f(b.pipelineMeanMs, 2)} ms (${b.stagesMeanMs.map((x) => `${x.stage} ${x.name} ${f(x.meanMs, 2)}`).join(', ')}); outside the pipeline ${f(b.outsideMeanMs, 2)} ms`)
    }
    log('  mean time per stage from the task timelines (ms timestamps; stage 1 counted from createdAt; "outside" = client wall − pipeline):')
    st('fake-gpt', o.stagesFake)
    st('builtin ', o.stagesBuiltin)
    log()
  }
  if (payments) {
    const p = payments
    log(`x402 payments: POST /api/v1/tasks/submit paid with X-PAYMENT (v1) and PAYMENT-SIGNATURE (v2) vs paid from credits (${p.samples} measured rounds after ${p.warmup} warm-up):`)
    for (const l of p.method.split('\n')) log(`  ${l}`)
    const pc = ['', 'p50 ms', 'p90 ms', 'p99 ms', 'mean ms', 'n']
    const row = (label: string, x: PaymentsResult['sequential']['paid']) => [label, f(x.p50Ms, 3), f(x.p90Ms, 3), f(x.p99Ms, 3), f(x.meanMs, 3), String(x.n)]
    const cost = (label: string, c: PaymentsResult['sequential']['costMs']) => [label, f(c.p50, 3), f(c.p90, 3), f(c.p99, 3), f(c.mean, 3), '']
    const pr = [
      row('submit paid, x402 v1 (X-PAYMENT)', p.sequential.paid), row('submit paid, x402 v2 (PAYMENT-SIGNATURE)', p.sequential.paidV2), row('submit from credits', p.sequential.credits),
      cost('cost of verify + settle, v1 (paid − credits)', p.sequential.costMs),
      cost('cost of verify + settle, v2 (paid − credits)', p.sequential.costV2Ms),
      row('client: createPaymentHeader (not timed above)', p.sequential.signing),
    ]
    const pw = pc.map((col, i) => Math.max(col.length, ...pr.map((r) => r[i]!.length)))
    const pl = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(pw[i]!) : cell.padStart(pw[i]!))).join('  ')
    log(`  ${pl(pc)}`)
    for (const r of pr) log(`  ${pl(r)}`)
    const cc = ['concurrent', 'tasks/s', 'p50 ms', 'p99 ms', 'completed', 'failed', 'CPU', 'CPU ms/task']
    const cr = ([['paid', p.concurrent.paid], ['credits', p.concurrent.credits]] as const).map(([label, x]) => [
      `c=${x.concurrency} ${label}`, f(x.tasksPerS, 0), f(x.latency.p50Ms, 2), f(x.latency.p99Ms, 2), String(x.completed), String(x.failed),
      x.cpuCores === null ? 'n/a' : f(x.cpuCores, 2), x.cpuMsPerTask === null ? 'n/a' : f(x.cpuMsPerTask, 3),
    ])
    const cw2 = cc.map((col, i) => Math.max(col.length, ...cr.map((r) => r[i]!.length)))
    const cl = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(cw2[i]!) : cell.padStart(cw2[i]!))).join('  ')
    log(`  ${cl(cc)}`)
    for (const r of cr) log(`  ${cl(r)}`)
    const pcpu = p.concurrent.paid.cpuMsPerTask
    const ccpu = p.concurrent.credits.cpuMsPerTask
    log(`  c=${p.concurrent.paid.concurrency}: warm-up ${p.concurrent.paid.warmupS} s, measured ${f(p.concurrent.paid.measuredS, 2)} s (paid) / ${f(p.concurrent.credits.measuredS, 2)} s (credits); CPU = server process in cores; the client shares the machine`)
    if (pcpu !== null && ccpu !== null) log(`  server CPU per task: paid − credits = ${f(pcpu - ccpu, 3)} ms`)
    log(`  pre-signed ${p.concurrent.presigned} headers over ${p.concurrent.wallets} wallet(s) in ${f(p.concurrent.presignS, 1)} s (${f(p.concurrent.presignMsPerHeader, 3)} ms each)${p.concurrent.paid.headersExhausted ? '; the paid run used them all before the end (window shortened)' : ''}`)
    const h = p.history
    log(`  payer history (${h.heavy.n} alternating rounds after the load): paid submit by a wallet with ${h.heavyPayments} payments this hour p50 ${f(h.heavy.p50Ms, 3)} / p99 ${f(h.heavy.p99Ms, 3)} ms, by one with ${h.lightPayments} p50 ${f(h.light.p50Ms, 3)} / p99 ${f(h.light.p99Ms, 3)} ms (p50 difference ${f(h.diffP50Ms, 3)} ms)`)
    log(`  for scale: viem verifyTypedData of one authorization (the server's signature check) in the bench process: p50 ${f(p.verifyInBench.p50Ms, 3)} ms, mean ${f(p.verifyInBench.meanMs, 3)} ms`)
    if (p.failureCount) log(`  ${p.failureCount} failed responses (by status: ${Object.entries(p.failuresByStatus).map(([k, v]) => `${k}×${v}`).join(', ')})`)
    for (const x of p.failures) log(`    ${x.phase}: ${x.status} ${x.body}`)
    log()
  }
  if (lists) {
    const l = lists
    log(`task lists at ${l.tasks.toLocaleString('en')} tasks (${l.operators} operators, ${l.agents} agents, ${l.days} days; seeded by SQL in ${f(l.seed.seconds)} s, ${f(l.seed.dbMb, 0)} MB; server ready in ${f(l.startMs)} ms); wrk -t1 -c1 -d${opts.durationS}s per variant, limit 20:`)
    const lc = ['variant', 'total', 'p50 ms', 'p99 ms', 'req/s']
    const lr = l.variants.map((v) => [v.name, v.total === null ? '' : String(v.total), f(v.p50Ms, 3), f(v.p99Ms, 3), f(v.rps, 0)])
    const lw = lc.map((c, i) => Math.max(c.length, ...lr.map((r) => r[i]!.length)))
    const ll = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(lw[i]!) : c.padStart(lw[i]!))).join('  ')
    log(`  ${ll(lc)}`)
    for (const r of lr) log(`  ${ll(r)}`)
    log()
  }
  if (storage) {
    const st = storage
    log(`storage: ${st.tasks.toLocaleString('en')} builtin tasks at c=${st.concurrency} (${f(st.seconds)} s), then SIGTERM; ${st.files.map((x) => `${x.name} ${f(mb(x.bytes), 2)} MB`).join(', ')}: ${f(st.bytesPerTask / 1024, 2)} KB per task`)
    const sc = ['file', 'table or index', 'pages', 'MB', 'bytes/task', 'payload/task']
    const sr = st.objects.filter((x) => x.pages > 1 || x.name === '(free pages)').map((x) => [x.file, x.name, String(x.pages), f(mb(x.bytes), 2), f(x.bytesPerTask, 0), f(x.payload / st.tasks, 0)])
    const sw = sc.map((c, i) => Math.max(c.length, ...sr.map((r) => r[i]!.length)))
    const sl = (cells: string[]) => cells.map((c, i) => (i < 2 ? c.padEnd(sw[i]!) : c.padStart(sw[i]!))).join('  ')
    log(`  ${sl(sc)}`)
    for (const r of sr) log(`  ${sl(r)}`)
    log(`  (tables and indexes of one page, empty or nearly: ${st.objects.filter((x) => x.pages <= 1 && x.name !== '(free pages)').length})`)
    log()
  }
  if (doors) {
    const d = doors
    const table = (cols: string[], rows: string[][]) => {
      const w = cols.map((c, i) => Math.max(c.length, ...rows.map((r) => r[i]!.length)))
      const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(w[i]!) : c.padStart(w[i]!))).join('  ')
      log(`  ${line(cols)}`)
      for (const r of rows) log(`  ${line(r)}`)
    }
    log(`doors: POST /v1/chat/completions (all 8 stages, two signatures a call) next to the fake provider directly and ${d.portkey ? `Portkey ${d.portkey.version} (node ${d.portkey.node}, @hono/node-server ${d.portkey.honoNodeServer})` : `Portkey: MISSING (${d.portkeyMissing})`}`)
    for (const l of d.method.split('\n')) log(`  ${l}`)
    log(`  latency, c=1 (${d.latency.samples} rounds after ${d.latency.warmup} warm-up):`)
    const lr = (Object.entries(d.latency.rows) as [keyof typeof d.latency.overhead | 'direct', OverheadResult['direct']][]).map(([t, x]) => {
      const oh = t === 'direct' ? null : d.latency.overhead[t]
      return [t, f(x.p50Ms, 3), f(x.p90Ms, 3), f(x.p99Ms, 3), f(x.meanMs, 3), String(x.n), oh ? f(oh.p50Ms, 3) : '', oh ? f(oh.p99Ms, 3) : '']
    })
    table(['', 'p50 ms', 'p90 ms', 'p99 ms', 'mean ms', 'n', 'overhead p50', 'overhead p99'], lr)
    log(`  throughput, wrk (warm-up ${d.throughput.warmupS} s, measure ${d.throughput.durationS} s):`)
    table(['', 'c', 'calls/s', 'p50 ms', 'p99 ms', 'ok', 'failed', 'CPU', 'CPU ms/call'], d.throughput.rows.map((r) => [
      r.round > 1 ? `${r.target} (#${r.round})` : r.target, String(r.connections), f(r.perS, 0), f(r.p50Ms, 2), f(r.p99Ms, 2), String(r.ok), String(r.bad + r.socketErrors), r.cpuCores === null ? 'n/a' : f(r.cpuCores, 2), r.cpuMsPerCall === null ? 'n/a' : f(r.cpuMsPerCall, 3),
    ]))
    for (const c of d.throughput.byConcurrency) log(`  c=${c.connections}: door ${f(c.perS.door ?? NaN, 0)}/s ÷ submit ${f(c.perS.submit ?? NaN, 0)}/s (mean of the loads before and after) = ${f(c.doorToSubmit, 2)}${c.perS.portkey !== undefined ? `; door ÷ Portkey ${f((c.perS.door ?? NaN) / c.perS.portkey, 2)}` : ''}`)
    const bp = d.throughput.best.portkey
    log(`  best: door ${f(d.throughput.best.door?.perS ?? NaN, 0)}/s, submit ${f(d.throughput.best.submit?.perS ?? NaN, 0)}/s (door ÷ submit ${f(d.throughput.doorToSubmit, 2)})${bp ? `, Portkey ${f(bp.perS, 0)}/s (door ÷ Portkey ${f((d.throughput.best.door?.perS ?? NaN) / bp.perS, 2)})` : ''}; CPU: that process (the fake provider's for direct)`)
    log(`  streaming (${d.streaming.streams} streams each after ${d.streaming.warmup} warm-up; ${d.streaming.chunks} content chunks ${d.streaming.spacingMs} ms apart):`)
    table(['', 'TTFC p50 ms', 'TTFC p99 ms', 'TTFC overhead p50', 'end p50 ms', 'gap dev p50 (vs provider)', 'gap dev p99', 'gap dev p50 (vs nominal)', 'gaps 2+ dev p50', 'n'], d.streaming.rows.map((r) => [
      r.target, f(r.ttfc.p50Ms, 3), f(r.ttfc.p99Ms, 3), r.target === 'direct' ? '' : f(d.streaming.ttfcOverheadP50Ms[r.target] ?? NaN, 3), f(r.total.p50Ms, 2),
      f(r.maxGapDevFromProvider.p50Ms, 3), f(r.maxGapDevFromProvider.p99Ms, 3), f(r.maxGapDevFromNominal.p50Ms, 3), f(r.maxLaterGapDevFromProvider.p50Ms, 3), String(r.n),
    ]))
    log('  gap dev: per stream the largest |received gap − the gap the provider made| (vs nominal: − the spacing asked for); gaps 2+: leaving out the gap after the first chunk, which also carries that chunk\'s delay')
    if (d.failureCount) log(`  ${d.failureCount} failed calls`)
    for (const x of d.failures) log(`    ${x.kind}: ${x.status} ${x.body}`)
    log()
  }
  log(`binary size        ${f(sizeMb)} MB${build.built ? ` (built in ${f(build.seconds)} s: ${build.reason})` : ''}`)
  log(`cold start         min ${f(cold.minMs)} / median ${f(cold.medianMs)} / max ${f(cold.maxMs)} ms  (${cold.runsMs.map((x) => f(x)).join(', ')}); \`taskgate version\` alone: ${f(cold.execFloorMs)} ms`)
  log(`RSS                idle ${f(memory.idleRssMb)} MB / under load ${memory.underLoadRssMb === null ? 'n/a' : f(memory.underLoadRssMb)} MB / peak (VmHWM) ${memory.peakHwmMb === null ? 'n/a' : f(memory.peakHwmMb)} MB   (bare Bun.serve idle ${memory.bareIdleRssMb === null ? 'n/a' : f(memory.bareIdleRssMb)} MB)`)
  log(`request log        ${logLines} lines, ${f(mb(logBytes))} MB`)
  log()
  log('targets')
  const cw = Math.max(...checks.map((c) => c.name.length))
  for (const c of checks) log(`  ${c.pass ? 'PASS' : 'FAIL'}  ${c.name.padEnd(cw)}  ${c.value.padStart(9)}  (${c.limit})`)
  const met = checks.filter((c) => c.pass).length

  // results file
  const git = run(['git', 'rev-parse', '--short', 'HEAD'], { cwd: ROOT }).out.trim()
  const dirty = run(['git', 'status', '--porcelain'], { cwd: ROOT }).out.trim() !== ''
  mkdirSync(join(ROOT, 'bench', 'results'), { recursive: true })
  writeFileSync(RESULTS, `${JSON.stringify({
    date: new Date().toISOString(),
    git: { commit: git || null, dirty },
    version, bun: run([bunBinary(), '--version']).out.trim(), wrk: wrkVersion(wrk),
    machine: { cpus: cpus().length, cpuModel, memGb: Number(f(mb(totalmem()) / 1024)), loadAvg1mBefore: loadAtStart, loadAvg1mAfter: loadAtEnd },
    options: opts,
    build, binarySizeMb: Number(f(sizeMb, 2)),
    coldStart: cold,
    memory,
    requestLog: { lines: logLines, bytes: logBytes },
    scenarios: results,
    pipeline: {
      tasksPerS: Object.fromEntries(pipelineResults.map((r) => [`c${r.connections}`, {
        tasksPerS: r.success?.perS ?? null, p50Ms: r.p50Ms, p99Ms: r.p99Ms, completed: r.success?.ok ?? null, failed: r.success?.bad ?? null,
        failedByStatus: r.success?.badByStatus ?? {}, failureSamples: r.success?.samples ?? [], cpuCores: r.cpu?.cores ?? null, cpuMsPerTask: r.success?.cpuMsPerSuccess ?? null,
      }])),
      bestTasksPerS: best?.success?.perS ?? null,
      overhead,
    },
    payments,
    lists,
    storage,
    doors,
    soak,
    checks,
  }, null, 2)}\n`)
  log()
  log(`results written to ${RESULTS.slice(ROOT.length + 1)}`)
  log(`${met} of ${checks.length} goals met on ${cpus().length} cores`)
}

let exiting = false
const onSignal = (sig: string, code: number) => {
  if (exiting) return
  exiting = true
  process.stderr.write(`\n${sig}: stopping child processes ...\n`)
  void cleanup().finally(() => process.exit(code))
}
process.on('SIGINT', () => onSignal('SIGINT', 130))
process.on('SIGTERM', () => onSignal('SIGTERM', 143))
process.on('exit', cleanupSync)

main().then(
  async () => { if (exiting) return; await cleanup(); process.exit(0) },
  async (e: unknown) => {
    if (exiting) return // interrupted: the signal handler cleans up and exits
    process.stderr.write(`\nbenchmark failed: ${e instanceof Error ? e.stack ?? e.message : String(e)}\n`)
    await cleanup()
    process.exit(1)
  },
)

/** Size and top-level package count of this checkout's node_modules (the install goal; install time: docs/install.md). */
function nodeModulesSize(): { mb: number; packages: number } | null {
  const dir = join(ROOT, 'node_modules')
  const du = run(['du', '-sk', dir])
  if (du.code !== 0) return null
  let packages = 0
  for (const e of readdirSync(dir)) {
    if (e.startsWith('.')) continue
    packages += e.startsWith('@') ? readdirSync(join(dir, e)).length : 1
  }
  return { mb: Number(du.out.split(/\s+/)[0]) / 1024, packages }
}
