// Gateway overhead around a provider call, measured against bench/fake-openai.ts (a loopback
// OpenAI-compatible server that answers at once).
//
// Method: one client (this Bun process, fetch with keep-alive), strictly sequential requests.
// Each round makes three calls, in a rotating order so that none always follows another:
//   direct   POST <fake>/v1/chat/completions with the body and headers TaskGate itself sends
//            (the provider's latency including loopback HTTP and JSON, as a caller sees it)
//   fake     POST /api/v1/tasks/submit, model fake-gpt, taskType general (the full pipeline
//            around that same provider call)
//   builtin  POST /api/v1/tasks/submit, builtin provider, taskType sentiment_analysis
// The first `warmup` rounds are discarded. overhead p50 = p50(fake) − p50(direct), likewise p99
// (a difference of percentiles, not the percentile of per-request differences). Per-stage times
// come from the task timeline the submit returns (millisecond timestamps, so only the means over
// many tasks are meaningful).

export interface LatencyStats { n: number; p50Ms: number; p90Ms: number; p99Ms: number; meanMs: number; minMs: number; maxMs: number }

export interface StageBreakdown {
  /** mean milliseconds per stage, from the previous timeline timestamp (createdAt for stage 1) */
  stagesMeanMs: { stage: number; name: string; meanMs: number }[]
  /** mean of (completedAt of stage 8 − createdAt) */
  pipelineMeanMs: number
  /** mean of (client wall time − pipeline time): HTTP, validation, auth, the insert, serialisation */
  outsideMeanMs: number
}

export interface OverheadResult {
  method: string
  warmup: number
  samples: number
  direct: LatencyStats
  submitFake: LatencyStats
  submitBuiltin: LatencyStats
  overheadP50Ms: number
  overheadP99Ms: number
  /** p50(fake) − p50(builtin): what the HTTP provider call adds over the in-process provider */
  fakeMinusBuiltinP50Ms: number
  /** the fake provider's own handling time (its fetch handler: request JSON parse + reply) */
  fakeHandling: { requests: number; p50Us: number; p99Us: number; meanUs: number } | null
  /** requests the fake provider saw during the measured rounds (should be 2 × samples) */
  fakeRequestsExpected: number
  stagesFake: StageBreakdown | null
  stagesBuiltin: StageBreakdown | null
  failures: { kind: string; status: number; body: string }[]
  failureCount: number
}

export interface OverheadOptions {
  taskgateUrl: string
  accessToken: string
  agentId: string
  /** base URL of bench/fake-openai.ts, without /v1 */
  fakeUrl: string
  fakeModel: string
  fakeKey: string
  warmup: number
  samples: number
  onProgress?: (done: number, total: number) => void
}

export const OVERHEAD_METHOD = [
  'one client, sequential requests (fetch with keep-alive from bench/run.ts); each round calls, in rotating order:',
  '  direct   POST fake-openai /v1/chat/completions with the exact body/headers TaskGate sends (provider + loopback HTTP)',
  '  fake     POST /api/v1/tasks/submit, model fake-gpt (full pipeline around that same provider call)',
  '  builtin  POST /api/v1/tasks/submit, builtin provider (no HTTP provider call)',
  'overhead p50 = p50(fake) − p50(direct); p99 likewise (difference of percentiles)',
].join('\n')

const FAKE_PROMPT = 'Summarise in one sentence: the team shipped the release on time and the customers were happy with it.'
const BUILTIN_PROMPT = 'The new release is fast and the support team was wonderful, although the setup guide could be clearer.'

export function stats(xs: number[]): LatencyStats {
  const s = [...xs].sort((a, b) => a - b)
  const pct = (p: number) => (s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]! : NaN)
  return {
    n: s.length, p50Ms: pct(50), p90Ms: pct(90), p99Ms: pct(99),
    meanMs: s.length ? s.reduce((a, b) => a + b, 0) / s.length : NaN, minMs: s.length ? s[0]! : NaN, maxMs: s.length ? s[s.length - 1]! : NaN,
  }
}

interface Timeline { stage: number; name: string; at: string }
interface TaskDetail { status?: string; provider?: string; createdAt?: string; timeline?: Timeline[] }

class StageAcc {
  private sums = new Map<number, { name: string; sum: number; n: number }>()
  private pipelineSum = 0
  private outsideSum = 0
  private n = 0

  add(task: TaskDetail, wallMs: number): void {
    if (!task.createdAt || !Array.isArray(task.timeline) || task.timeline.length === 0) return
    let prev = Date.parse(task.createdAt)
    const start = prev
    for (const t of [...task.timeline].sort((a, b) => a.stage - b.stage)) {
      const at = Date.parse(t.at)
      const e = this.sums.get(t.stage) ?? { name: t.name, sum: 0, n: 0 }
      e.sum += at - prev
      e.n++
      this.sums.set(t.stage, e)
      prev = at
    }
    this.pipelineSum += prev - start
    this.outsideSum += wallMs - (prev - start)
    this.n++
  }

  result(): StageBreakdown | null {
    if (!this.n) return null
    return {
      stagesMeanMs: [...this.sums.entries()].sort((a, b) => a[0] - b[0]).map(([stage, e]) => ({ stage, name: e.name, meanMs: e.sum / e.n })),
      pipelineMeanMs: this.pipelineSum / this.n,
      outsideMeanMs: this.outsideSum / this.n,
    }
  }
}

export async function measureOverhead(o: OverheadOptions): Promise<OverheadResult> {
  const directUrl = `${o.fakeUrl}/v1/chat/completions`
  // What src/compute/providers/remote.ts sends for a task with this prompt (stage 3 sends the
  // prompt as the single user message; max_tokens defaults to 1024).
  const directInit = {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${o.fakeKey}` },
    body: JSON.stringify({ model: o.fakeModel, messages: [{ role: 'user', content: FAKE_PROMPT }], max_tokens: 1024 }),
  }
  const submitUrl = `${o.taskgateUrl}/api/v1/tasks/submit`
  const submitHeaders = { 'content-type': 'application/json', authorization: `Bearer ${o.accessToken}` }
  const fakeBody = JSON.stringify({ agentId: o.agentId, taskType: 'general', model: o.fakeModel, prompt: FAKE_PROMPT })
  const builtinBody = JSON.stringify({ agentId: o.agentId, taskType: 'sentiment_analysis', prompt: BUILTIN_PROMPT })

  const times = { direct: [] as number[], fake: [] as number[], builtin: [] as number[] }
  const stageFake = new StageAcc()
  const stageBuiltin = new StageAcc()
  const failures: OverheadResult['failures'] = []
  let failureCount = 0
  const fail = (kind: string, status: number, body: string) => {
    failureCount++
    if (failures.length < 5) failures.push({ kind, status, body: body.slice(0, 500) })
  }

  const direct = async (measured: boolean) => {
    const t0 = performance.now()
    const res = await fetch(directUrl, directInit)
    const body = (await res.json().catch(() => null)) as { choices?: { message?: { content?: unknown } }[] } | null
    const ms = performance.now() - t0
    if (res.status !== 200 || typeof body?.choices?.[0]?.message?.content !== 'string') { fail('direct', res.status, JSON.stringify(body)); return }
    if (measured) times.direct.push(ms)
  }
  const submit = async (kind: 'fake' | 'builtin', measured: boolean) => {
    const t0 = performance.now()
    const res = await fetch(submitUrl, { method: 'POST', headers: submitHeaders, body: kind === 'fake' ? fakeBody : builtinBody })
    const text = await res.text()
    const ms = performance.now() - t0
    let task: TaskDetail | null = null
    try { task = JSON.parse(text) as TaskDetail } catch { /* reported below */ }
    const wantProvider = kind === 'fake' ? 'fake' : 'builtin'
    if (res.status !== 200 || task?.status !== 'COMPLETED' || task.provider !== wantProvider) { fail(`submit ${kind}`, res.status, text); return }
    if (!measured) return
    times[kind].push(ms)
    ;(kind === 'fake' ? stageFake : stageBuiltin).add(task, ms)
  }

  const total = o.warmup + o.samples
  for (let i = 0; i < total; i++) {
    const measured = i >= o.warmup
    if (i === o.warmup) await fetch(`${o.fakeUrl}/stats/reset`, { method: 'POST' }).then((r) => r.arrayBuffer())
    const calls = [() => direct(measured), () => submit('fake', measured), () => submit('builtin', measured)]
    for (let k = 0; k < 3; k++) await calls[(i + k) % 3]!()
    if (o.onProgress && (i + 1) % 50 === 0) o.onProgress(i + 1, total)
  }

  const fs = (await fetch(`${o.fakeUrl}/stats`).then((r) => r.json()).catch(() => null)) as { requests: number; handlingUs: { p50: number; p99: number; mean: number } } | null
  const d = stats(times.direct)
  const sf = stats(times.fake)
  return {
    method: OVERHEAD_METHOD,
    warmup: o.warmup,
    samples: o.samples,
    direct: d,
    submitFake: sf,
    submitBuiltin: stats(times.builtin),
    overheadP50Ms: sf.p50Ms - d.p50Ms,
    overheadP99Ms: sf.p99Ms - d.p99Ms,
    fakeMinusBuiltinP50Ms: sf.p50Ms - stats(times.builtin).p50Ms,
    fakeHandling: fs ? { requests: fs.requests, p50Us: fs.handlingUs.p50, p99Us: fs.handlingUs.p99, meanUs: fs.handlingUs.mean } : null,
    fakeRequestsExpected: 2 * o.samples,
    stagesFake: stageFake.result(),
    stagesBuiltin: stageBuiltin.result(),
    failures,
    failureCount,
  }
}
