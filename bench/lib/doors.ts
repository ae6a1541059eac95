// The `doors` part of bench/run.ts (issue 32): TaskGate's OpenAI-compatible door,
// POST /v1/chat/completions, next to a direct call to the same fake provider
// (bench/fake-openai.ts) and next to a peer measured in the same run: Portkey's open-source
// gateway (@portkey-ai/gateway 1.15.2 with the dependency versions of its own v1.15.2 lockfile,
// installed by `npm run bench:peers` into bench/peers/portkey/, started as its README says:
// `npx @portkey-ai/gateway`, i.e. `node build/start-server.js`, here with `--port=N`). Portkey is a
// pure proxy; each door call runs the whole 8-stage pipeline (two signatures). Every figure is
// compared with a baseline of the same run; no number of another run is used.
//
// A fresh data dir, a TaskGate server, a fake provider and Portkey of their own. Three parts:
//   latency     one client, strictly sequential rounds after a warm-up; each round calls, in a
//               rotating order, the fake provider directly, Portkey, the door and (for scale)
//               POST /api/v1/tasks/submit with the same model. overhead = p50(gateway) − p50(direct),
//               likewise p99 (differences of percentiles).
//   throughput  wrk at c=16 and c=64 (as the pipeline scenarios: -t1, -t2 at 64, a warm-up, then
//               the measurement) through the door, submit (same model), Portkey and the fake
//               provider directly; only 200 answers with the expected body count. The door is
//               measured between two submit loads (submit, door, submit) and compared with their
//               mean, as the route ratios are (docs/performance.md, "How the bench measures the
//               ratios: bracketed baselines"): the machine's drift over a minute does not decide.
//   streaming   `stream: true` through each, sequential rounds, rotating order: time to the first
//               content chunk (from the request's start to the chunk's bytes read by the client),
//               and the spacing of the content chunks as received: per stream the largest
//               |received gap − the provider's gap| (the gaps the fake provider actually made,
//               read from it after each stream, so its timers' lateness is not charged to the
//               gateway) and |received gap − nominal spacing|; p50 over the streams.
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { stats, type LatencyStats } from './pipeline'
import { cleanEnv, cpuBetween, freePort, readCpu, removeTempDir, stop, tail, tempDir, track, waitForHttp } from './proc'
import { luaScriptFor, parseSuccess, runWrk, successCountingLua, writeLuaScript } from './wrk'

export const DOORS_NAME = 'doors: /v1/chat/completions vs direct vs Portkey'
/** Issue 32's goals. */
export const DOORS_GOALS = { overheadP50Ms: 1, callsPerS: 1000, minRatioToSubmit: 0.85, ttfcOverheadP50Ms: 1, spacingMs: 1 }
export const PORTKEY_VERSION = '1.15.2'
/** @hono/node-server in Portkey's v1.15.2 lockfile (newer versions break its streaming, Portkey-AI/gateway#1389). */
export const PORTKEY_HONO_NODE_SERVER = '1.13.5'

const FAKE = { name: 'fake', model: 'fake-gpt', keys: ['sk-fake-1', 'sk-fake-2'] }
const PROMPT = 'Summarise in one sentence: the team shipped the release on time and the customers were happy with it.'
/** What the fake provider answers, whole or as the five pieces of a stream. */
const ANSWER = 'positive: the text is upbeat'
const CONCURRENCIES = [16, 64]

interface Started { proc: Subprocess; url: string; logFile: string; startMs: number }

export type Target = 'direct' | 'portkey' | 'door' | 'submit'
const LABEL: Record<Target, string> = {
  direct: 'direct to the fake provider', portkey: `Portkey ${PORTKEY_VERSION}`, door: 'TaskGate /v1/chat/completions', submit: 'TaskGate /api/v1/tasks/submit',
}

export interface DoorsThroughputRow {
  target: Target; label: string; connections: number; threads: number
  /** 1, or 2 for the submit load measured right after the door's */
  round: number
  perS: number; p50Ms: number; p99Ms: number; ok: number; bad: number; socketErrors: number
  badByStatus: Record<string, number>; samples: string[]
  /** the gateway's process (TaskGate, Portkey's node; the fake provider for direct) in cores, and its CPU per successful call */
  cpuCores: number | null; cpuMsPerCall: number | null
}

export interface DoorsStreamRow {
  target: Exclude<Target, 'submit'>; label: string; n: number
  /** request start → first content chunk read */
  ttfc: LatencyStats
  /** request start → the stream's end */
  total: LatencyStats
  /** per stream, the largest |received gap − the gap the provider made| */
  maxGapDevFromProvider: LatencyStats
  /** per stream, the largest |received gap − the nominal spacing| */
  maxGapDevFromNominal: LatencyStats
  /** as maxGapDevFromProvider over the gaps after the second chunk (the first gap also carries the first chunk's delay) */
  maxLaterGapDevFromProvider: LatencyStats
}

export interface DoorsResult {
  method: string
  portkey: { version: string; honoNodeServer: string; node: string; startMs: number } | null
  /** why Portkey is not in this run (not installed, wrong versions, did not start) */
  portkeyMissing: string | null
  latency: {
    warmup: number; samples: number
    rows: Partial<Record<Target, LatencyStats>>
    /** gateway − direct, p50 and p99 */
    overhead: Partial<Record<Exclude<Target, 'direct'>, { p50Ms: number; p99Ms: number }>>
  }
  throughput: {
    warmupS: number; durationS: number; rows: DoorsThroughputRow[]
    /** per concurrency: each target's calls/s, submit's the mean of the loads before and after the door's */
    byConcurrency: { connections: number; perS: Partial<Record<Target, number>>; doorToSubmit: number }[]
    /** the best concurrency's calls/s of each target (submit: bracketed means) */
    best: Partial<Record<Target, { perS: number; connections: number }>>
    /** best door calls/s ÷ best submit tasks/s (bracketed means) */
    doorToSubmit: number
  }
  streaming: {
    warmup: number; streams: number; chunks: number; spacingMs: number
    rows: DoorsStreamRow[]
    /** p50(ttfc gateway) − p50(ttfc direct) */
    ttfcOverheadP50Ms: Partial<Record<'door' | 'portkey', number>>
  }
  failures: { kind: string; status: number; body: string }[]
  failureCount: number
}

export const DOORS_METHOD = [
  'a fresh data dir and server, the fake provider and Portkey of their own; operator API keys as Authorization: Bearer tg_… with x-taskgate-agent-id',
  'latency: one client, sequential rounds; each calls in rotating order: the fake provider directly, Portkey, the door, submit (same model)',
  '  overhead = p50(gateway) − p50(direct), likewise p99 (differences of percentiles)',
  'throughput: wrk at c=16 and c=64 per target (only 200 answers with the expected body count); submit, door, submit: the door against the mean of the two;',
  '  CPU = that process (TaskGate, Portkey\'s node, the fake provider)',
  'streaming: stream: true, sequential rotating rounds; TTFC = request start → first content chunk read; gap deviation per stream: largest |received gap − the provider\'s|, p50 over streams',
].join('\n')

export interface DoorsOptions {
  wrk: string
  bin: string
  /** bun, to run bench/fake-openai.ts */
  bunBin: string
  root: string
  env: Record<string, string>
  warmupS: number; durationS: number
  latencyWarmup: number; latencySamples: number
  streamWarmup: number; streams: number; streamChunks: number; streamSpacingMs: number
  /** starts dist/taskgate on a data dir (bench/run.ts's startTaskgate with the bench environment) */
  start: (dataDir: string, cwd: string, logFile: string) => Promise<Started>
  log: (s: string) => void
}

/** Where `npm run bench:peers` installs Portkey. */
export const portkeyDir = (root: string) => join(root, 'bench', 'peers', 'portkey')

/** Portkey's entry point when the pinned versions are installed, else why not. */
export function findPortkey(root: string): { script: string; node: string; honoNodeServer: string } | { missing: string } {
  const dir = portkeyDir(root)
  const modules = join(dir, 'node_modules')
  const version = (pkg: string) => {
    try { return (JSON.parse(readFileSync(join(modules, pkg, 'package.json'), 'utf8')) as { version?: string }).version ?? null } catch { return null }
  }
  const gw = version('@portkey-ai/gateway')
  if (!gw) return { missing: `not installed (npm run bench:peers installs it into ${dir.slice(root.length + 1)}/)` }
  if (gw !== PORTKEY_VERSION) return { missing: `@portkey-ai/gateway ${gw} installed, the bench measures ${PORTKEY_VERSION} (npm run bench:peers)` }
  const hono = version('@hono/node-server')
  if (hono !== PORTKEY_HONO_NODE_SERVER) return { missing: `@hono/node-server ${hono ?? 'missing'} installed, Portkey's v${PORTKEY_VERSION} lockfile has ${PORTKEY_HONO_NODE_SERVER} (npm run bench:peers)` }
  const script = join(modules, '@portkey-ai', 'gateway', 'build', 'start-server.js')
  if (!existsSync(script)) return { missing: `${script} is missing` }
  const node = Bun.which('node')
  if (!node) return { missing: 'node is not installed (Portkey runs on Node.js)' }
  return { script, node, honoNodeServer: hono }
}

async function spawnServer(cmd: string[], cwd: string, logFile: string, readyPath: string, port: number, env: Record<string, string>): Promise<Started> {
  const fd = openSync(logFile, 'a')
  const t0 = performance.now()
  const proc = track(Bun.spawn(cmd, { cwd, env, stdout: fd, stderr: fd, stdin: 'ignore' }))
  closeSync(fd)
  const url = `http://127.0.0.1:${port}`
  const startMs = await waitForHttp(`${url}${readyPath}`, proc, t0, { intervalMs: 10, timeoutMs: 30_000, describe: () => tail(logFile) })
  return { proc, url, logFile, startMs }
}

interface Call { url: string; init: RequestInit }

/** One sequential call; returns ms, or null (recorded as a failure) when the answer is not the expected one. */
type Fail = (kind: string, status: number, body: string) => void

async function timedCall(kind: Target, c: Call, fail: Fail): Promise<number | null> {
  const t0 = performance.now()
  const res = await fetch(c.url, c.init)
  const text = await res.text()
  const ms = performance.now() - t0
  let body: any = null
  try { body = JSON.parse(text) } catch { /* below */ }
  const ok = res.status === 200 && (kind === 'submit'
    ? body?.status === 'COMPLETED' && body?.output === ANSWER
    : body?.choices?.[0]?.message?.content === ANSWER && (kind !== 'door' || typeof body?.taskgate?.receiptCid === 'string'))
  if (!ok) { fail(kind, res.status, text); return null }
  return ms
}

interface StreamSample { ttfcMs: number; totalMs: number; atMs: number[] }

/** One streamed call read as it arrives: the time of each content chunk's bytes, the text, the end. */
async function timedStream(kind: Target, c: Call, fail: Fail): Promise<StreamSample | null> {
  const t0 = performance.now()
  const res = await fetch(c.url, c.init)
  if (res.status !== 200 || !res.body) { fail(`${kind} stream`, res.status, await res.text()); return null }
  const reader = res.body.getReader()
  const decoder = new TextDecoder()
  const atMs: number[] = []
  let buf = ''
  let text = ''
  let done = false
  let receipt = false
  let error: string | null = null
  for (;;) {
    const r = await reader.read()
    if (r.done) break
    const now = performance.now() - t0
    buf += decoder.decode(r.value, { stream: true }).replace(/\r\n/g, '\n')
    for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
      const event = buf.slice(0, i)
      buf = buf.slice(i + 2)
      for (const line of event.split('\n')) {
        if (!line.startsWith('data:')) continue
        const data = line.slice(5).trim()
        if (data === '[DONE]') { done = true; continue }
        let j: any
        try { j = JSON.parse(data) } catch { error = `not JSON: ${data.slice(0, 200)}`; continue }
        if (j?.error) error = JSON.stringify(j.error).slice(0, 300)
        if (typeof j?.taskgate?.receiptCid === 'string') receipt = true
        const piece = j?.choices?.[0]?.delta?.content
        if (typeof piece === 'string' && piece !== '') { atMs.push(now); text += piece }
      }
    }
  }
  const totalMs = performance.now() - t0
  if (error || !done || text !== ANSWER || (kind === 'door' && !receipt)) {
    fail(`${kind} stream`, res.status, error ?? `text ${JSON.stringify(text)}, [DONE] ${done}${kind === 'door' ? `, receipt ${receipt}` : ''}`)
    return null
  }
  return { ttfcMs: atMs[0]!, totalMs, atMs }
}

export async function measureDoors(o: DoorsOptions): Promise<DoorsResult> {
  const work = tempDir('taskgate-doors-')
  const dataDir = join(work, 'data')
  const failures: DoorsResult['failures'] = []
  let failureCount = 0
  const fail: Fail = (kind, status, body) => {
    failureCount++
    if (failures.length < 8) failures.push({ kind, status, body: body.slice(0, 400) })
  }
  const procs: Subprocess[] = []
  try {
    const created = Bun.spawnSync([o.bin, 'operator', 'create', '--login', 'bench', '--password', 'benchpassword', '--tier', 'ENTERPRISE', '--admin', '--data-dir', dataDir], { cwd: work, env: o.env, stdout: 'pipe', stderr: 'pipe' })
    if (created.exitCode !== 0) throw new Error(`operator create failed: ${created.stderr.toString()}`)

    // The fake provider, streaming N chunks S ms apart.
    const fakePort = await freePort()
    const fake = await spawnServer([o.bunBin, 'run', join(o.root, 'bench', 'fake-openai.ts'), String(fakePort), '--chunks', String(o.streamChunks), '--spacing-ms', String(o.streamSpacingMs)], work, join(work, 'fake-openai.log'), '/', fakePort, cleanEnv().env)
    procs.push(fake.proc)

    // Portkey, as its README starts it (npx @portkey-ai/gateway runs this bin), on a port of its own.
    let portkey: Started | null = null
    let portkeyInfo: DoorsResult['portkey'] = null
    let portkeyMissing: string | null = null
    const found = findPortkey(o.root)
    if ('missing' in found) portkeyMissing = found.missing
    else {
      try {
        const port = await freePort()
        portkey = await spawnServer([found.node, found.script, `--port=${port}`], portkeyDir(o.root), join(work, 'portkey.log'), '/', port, cleanEnv().env)
        procs.push(portkey.proc)
        const nodeVersion = Bun.spawnSync([found.node, '--version'], { stdout: 'pipe' }).stdout.toString().trim()
        portkeyInfo = { version: PORTKEY_VERSION, honoNodeServer: found.honoNodeServer, node: nodeVersion, startMs: portkey.startMs }
      } catch (e) {
        portkeyMissing = `did not start: ${(e instanceof Error ? e.message : String(e)).slice(0, 500)}`
      }
    }

    const tg = await o.start(dataDir, work, join(work, 'taskgate.log'))
    procs.push(tg.proc)
    try {
      const api = async <T>(path: string, body: unknown, headers: Record<string, string> = {}): Promise<T> => {
        const r = await fetch(`${tg.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
        const text = await r.text()
        if (r.status >= 300) throw new Error(`POST ${path} → ${r.status}: ${text.slice(0, 300)}`)
        return JSON.parse(text) as T
      }
      const { accessToken } = await api<{ accessToken: string }>('/api/v1/auth/login', { login: 'bench', password: 'benchpassword' })
      const bearer = { authorization: `Bearer ${accessToken}` }
      const { agentId } = await api<{ agentId: string }>('/api/v1/agents/register', { displayName: 'bench', capabilities: ['general', 'sentiment_analysis'] }, bearer)
      await api('/api/v1/admin/providers', { name: FAKE.name, kind: 'openai', baseUrl: `${fake.url}/v1`, models: [FAKE.model], keys: FAKE.keys.map((key) => ({ key, rpm: 1_000_000, concurrency: 256 })) }, bearer)
      // Operator keys (the ENTERPRISE cap of 1,000,000 a minute), sent as an OpenAI client sends its key.
      const newKey = async (name: string) => (await api<{ key: string }>('/api/v1/operator/keys', { name, rateLimitRpm: 1_000_000 }, bearer)).key

      const chatBody = (stream: boolean) => JSON.stringify({ model: FAKE.model, messages: [{ role: 'user', content: PROMPT }], ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}) })
      const json = { 'content-type': 'application/json' }
      const portkeyHeaders = { ...json, 'x-portkey-provider': 'openai', 'x-portkey-custom-host': `${fake.url}/v1`, authorization: `Bearer ${FAKE.keys[0]}` }
      const keys = { door: await newKey('bench-door'), submit: await newKey('bench-submit') }
      const doorHeaders = (key: string) => ({ ...json, authorization: `Bearer ${key}`, 'x-taskgate-agent-id': agentId })
      const req = (target: Target, stream = false, key?: string): { url: string; headers: Record<string, string>; body: string } => {
        switch (target) {
          case 'direct': return { url: `${fake.url}/v1/chat/completions`, headers: { ...json, authorization: `Bearer ${FAKE.keys[0]}` }, body: chatBody(stream) }
          case 'portkey': return { url: `${portkey!.url}/v1/chat/completions`, headers: portkeyHeaders, body: chatBody(stream) }
          case 'door': return { url: `${tg.url}/v1/chat/completions`, headers: doorHeaders(key ?? keys.door), body: chatBody(stream) }
          case 'submit': return { url: `${tg.url}/api/v1/tasks/submit`, headers: { ...json, authorization: `Bearer ${key ?? keys.submit}` }, body: JSON.stringify({ agentId, taskType: 'general', model: FAKE.model, prompt: PROMPT }) }
        }
      }
      const call = (target: Target, stream = false): Call => { const r = req(target, stream); return { url: r.url, init: { method: 'POST', headers: r.headers, body: r.body } } }
      const targets: Target[] = portkey ? ['direct', 'portkey', 'door', 'submit'] : ['direct', 'door', 'submit']

      // 1. latency at c=1
      o.log(`  latency c=1 (${o.latencyWarmup} warm-up + ${o.latencySamples} rounds of ${targets.join(' / ')}) ... `)
      const times = Object.fromEntries(targets.map((t) => [t, [] as number[]])) as Record<Target, number[]>
      const calls = Object.fromEntries(targets.map((t) => [t, call(t)])) as Record<Target, Call>
      for (let i = 0; i < o.latencyWarmup + o.latencySamples; i++) {
        for (let k = 0; k < targets.length; k++) {
          const t = targets[(i + k) % targets.length]!
          const ms = await timedCall(t, calls[t], fail)
          if (ms !== null && i >= o.latencyWarmup) times[t].push(ms)
        }
      }
      const lat = Object.fromEntries(targets.map((t) => [t, stats(times[t])])) as Record<Target, LatencyStats>
      const overhead: DoorsResult['latency']['overhead'] = {}
      for (const t of targets) if (t !== 'direct') overhead[t] = { p50Ms: lat[t].p50Ms - lat.direct.p50Ms, p99Ms: lat[t].p99Ms - lat.direct.p99Ms }
      o.log(`door overhead p50 ${overhead.door!.p50Ms.toFixed(3)} ms, p99 ${overhead.door!.p99Ms.toFixed(3)} ms${overhead.portkey ? `; Portkey p50 ${overhead.portkey.p50Ms.toFixed(3)} ms, p99 ${overhead.portkey.p99Ms.toFixed(3)} ms` : ''}\n`)

      // 2. throughput at c=16 and c=64; the door between two submit loads
      const rows: DoorsThroughputRow[] = []
      const pidOf: Record<Target, number> = { direct: fake.proc.pid, portkey: portkey?.proc.pid ?? 0, door: tg.proc.pid, submit: tg.proc.pid }
      const success: Record<Target, { status: number; bodyContains: string }> = {
        direct: { status: 200, bodyContains: '"object":"chat.completion"' }, portkey: { status: 200, bodyContains: '"object":"chat.completion"' },
        door: { status: 200, bodyContains: '"receiptCid":"' }, submit: { status: 200, bodyContains: '"status":"COMPLETED"' },
      }
      for (const connections of CONCURRENCIES) {
        const order: Target[] = ['submit', 'door', 'submit']
        if (portkey) order.push('portkey')
        order.push('direct')
        for (const [k, target] of order.entries()) {
          const threads = connections >= 64 ? 2 : 1
          o.log(`  throughput ${target} c=${connections} (warm-up ${o.warmupS} s, measure ${o.durationS} s) ... `)
          // A fresh key per load: the key's budget is per sliding minute.
          const r = req(target, false, target === 'door' || target === 'submit' ? await newKey(`bench-${target}-${connections}`) : undefined)
          const lua = luaScriptFor({ method: 'POST', body: r.body, headers: r.headers, luaScript: successCountingLua(success[target].status, success[target].bodyContains) })!
          const script = writeLuaScript(work, `doors-${target}-${connections}`, lua)
          const common = { url: r.url, threads, connections, script }
          if (o.warmupS > 0) await runWrk(o.wrk, { ...common, durationS: o.warmupS, latency: false })
          await Bun.sleep(300)
          const cpu0 = readCpu(pidOf[target])
          const w = await runWrk(o.wrk, { ...common, durationS: o.durationS, latency: true })
          const cpu = cpuBetween(cpu0, readCpu(pidOf[target]))
          const c = parseSuccess(w.raw)
          if (!c) throw new Error(`doors ${target} c=${connections}: the success-counting Lua printed nothing:\n${w.raw}`)
          const socketErrors = Object.values(w.socketErrors).reduce((a, b) => a + b, 0)
          const row: DoorsThroughputRow = {
            target, label: LABEL[target], connections, threads, round: order.slice(0, k).filter((t) => t === target).length + 1, perS: c.ok / w.durationS, p50Ms: w.latencyMs.p50, p99Ms: w.latencyMs.p99,
            ok: c.ok, bad: c.bad, socketErrors, badByStatus: c.badByStatus, samples: c.samples,
            cpuCores: cpu ? cpu.cores : null, cpuMsPerCall: cpu && c.ok ? (cpu.totalS * 1000) / c.ok : null,
          }
          rows.push(row)
          if (c.bad || socketErrors) { failureCount += c.bad + socketErrors; for (const s of c.samples) if (failures.length < 8) failures.push({ kind: `${target} c=${connections}`, status: Number(s.split(' ')[0]), body: s.slice(0, 400) }) }
          o.log(`${row.perS.toFixed(0)}/s, p50 ${row.p50Ms.toFixed(2)} ms, p99 ${row.p99Ms.toFixed(2)} ms${c.bad || socketErrors ? `, ${c.bad} bad, ${socketErrors} socket errors` : ''}\n`)
          await Bun.sleep(500)
        }
      }
      const byConcurrency = CONCURRENCIES.map((connections) => {
        const perS: Partial<Record<Target, number>> = {}
        for (const t of targets) {
          const xs = rows.filter((r) => r.connections === connections && r.target === t).map((r) => r.perS)
          if (xs.length) perS[t] = xs.reduce((a, b) => a + b, 0) / xs.length
        }
        return { connections, perS, doorToSubmit: (perS.door ?? NaN) / (perS.submit ?? NaN) }
      })
      const best: DoorsResult['throughput']['best'] = {}
      for (const c of byConcurrency) for (const [t, v] of Object.entries(c.perS) as [Target, number][]) if (!best[t] || v > best[t]!.perS) best[t] = { perS: v, connections: c.connections }

      // 3. streaming
      o.log(`  streaming (${o.streamWarmup} warm-up + ${o.streams} rounds of ${targets.filter((t) => t !== 'submit').join(' / ')}; ${o.streamChunks} chunks ${o.streamSpacingMs} ms apart) ... `)
      const sTargets = targets.filter((t): t is Exclude<Target, 'submit'> => t !== 'submit')
      const sCalls = Object.fromEntries(sTargets.map((t) => [t, call(t, true)])) as Record<Target, Call>
      const sSamples = Object.fromEntries(sTargets.map((t) => [t, { ttfc: [] as number[], total: [] as number[], devProvider: [] as number[], devNominal: [] as number[], devLater: [] as number[] }]))
      for (let i = 0; i < o.streamWarmup + o.streams; i++) {
        for (let k = 0; k < sTargets.length; k++) {
          const t = sTargets[(i + k) % sTargets.length]!
          const s = await timedStream(t, sCalls[t], fail)
          const sent = ((await fetch(`${fake.url}/stats/last-stream`).then((r) => r.json())) as { sentMs: number[] }).sentMs
          if (!s || i < o.streamWarmup) continue
          if (sent.length !== s.atMs.length) { fail(`${t} stream`, 200, `${s.atMs.length} content chunks received, the provider sent ${sent.length}`); continue }
          let devProvider = 0
          let devNominal = 0
          let devLater = 0
          for (let j = 1; j < s.atMs.length; j++) {
            const gap = s.atMs[j]! - s.atMs[j - 1]!
            const dev = Math.abs(gap - (sent[j]! - sent[j - 1]!))
            devProvider = Math.max(devProvider, dev)
            if (j >= 2) devLater = Math.max(devLater, dev)
            devNominal = Math.max(devNominal, Math.abs(gap - o.streamSpacingMs))
          }
          const acc = sSamples[t]!
          acc.ttfc.push(s.ttfcMs); acc.total.push(s.totalMs); acc.devProvider.push(devProvider); acc.devNominal.push(devNominal); acc.devLater.push(devLater)
        }
      }
      const sRows: DoorsStreamRow[] = sTargets.map((t) => {
        const a = sSamples[t]!
        return { target: t, label: LABEL[t], n: a.ttfc.length, ttfc: stats(a.ttfc), total: stats(a.total), maxGapDevFromProvider: stats(a.devProvider), maxGapDevFromNominal: stats(a.devNominal), maxLaterGapDevFromProvider: stats(a.devLater) }
      })
      const directTtfc = sRows.find((r) => r.target === 'direct')!.ttfc.p50Ms
      const ttfcOverheadP50Ms: DoorsResult['streaming']['ttfcOverheadP50Ms'] = {}
      for (const r of sRows) if (r.target !== 'direct') ttfcOverheadP50Ms[r.target] = r.ttfc.p50Ms - directTtfc
      o.log(`door TTFC overhead p50 ${ttfcOverheadP50Ms.door!.toFixed(3)} ms${ttfcOverheadP50Ms.portkey !== undefined ? `, Portkey ${ttfcOverheadP50Ms.portkey.toFixed(3)} ms` : ''}\n`)

      return {
        method: DOORS_METHOD, portkey: portkeyInfo, portkeyMissing,
        latency: { warmup: o.latencyWarmup, samples: o.latencySamples, rows: lat, overhead },
        throughput: { warmupS: o.warmupS, durationS: o.durationS, rows, byConcurrency, best, doorToSubmit: (best.door?.perS ?? NaN) / (best.submit?.perS ?? NaN) },
        streaming: { warmup: o.streamWarmup, streams: o.streams, chunks: o.streamChunks, spacingMs: o.streamSpacingMs, rows: sRows, ttfcOverheadP50Ms },
        failures, failureCount,
      }
    } catch (e) {
      throw new Error(`${e instanceof Error ? e.message : String(e)}\n--- ${tg.logFile}\n${tail(tg.logFile)}`)
    }
  } finally {
    for (const p of procs.reverse()) await stop(p)
    removeTempDir(work)
  }
}
