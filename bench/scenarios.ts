// The load scenarios of bench/run.ts. To benchmark a new route, append an entry: GET scenarios run
// with plain wrk flags; any other method, a body or `luaScript` makes run.ts generate a wrk Lua
// script (wrk.method / wrk.body / wrk.headers, then your Lua, which may define request(),
// response() or init()). Every scenario is sent once with fetch() before the load and must
// answer `expectStatus` (and pass `verify`), so a broken route fails the bench instead of
// benchmarking error responses.
//
// group 'pipeline' scenarios are full task submissions: they are listed in their own table, use
// their own duration (--pipeline-duration) and connection count, and count as successful only the
// responses that match `success` (a wrk Lua response() hook counts them); the headline number is
// successes per second (tasks/s), not requests per second.

export interface BenchContext {
  /** base URL of the bare Bun.serve hello-world */
  bareUrl: string
  /** base URL of dist/taskgate */
  taskgateUrl: string
  /** bearer token of the ENTERPRISE operator "bench" */
  accessToken: string
  /** creates a fresh API key (rateLimitRpm 1,000,000, the ENTERPRISE cap) and returns it */
  newApiKey(name: string): Promise<string>
  /** agent "bench" of the operator, capabilities general + sentiment_analysis, model builtin */
  agentId: string
}

type Dyn<T> = T | ((ctx: BenchContext) => T | Promise<T>)

export interface Target {
  /** req/s must be at least this fraction of the baseline scenario's req/s */
  minRatioToBaseline?: number
  /** p99 latency must be below this many milliseconds */
  maxP99Ms?: number
  /** p50 latency must be below this many milliseconds */
  maxP50Ms?: number
}

export interface Scenario {
  name: string
  server: 'bare' | 'taskgate'
  /** default GET */
  method?: string
  path: string
  headers?: Dyn<Record<string, string>>
  /** objects are sent as JSON (Content-Type: application/json unless a header says otherwise) */
  body?: Dyn<string | object>
  /** extra Lua appended to the generated wrk script */
  luaScript?: string
  /** status the preflight request must get (default 200); wrk counts other statuses as non-2xx */
  expectStatus?: number
  /** extra preflight check on the response text; return an error message to fail */
  verify?: (status: number, text: string) => string | null
  /** the scenario every ratio is computed against (exactly one); measured again right after each route with a ratio goal */
  baseline?: boolean
  /** this scenario's max RSS is the headline "RSS under load" figure */
  rssHeadline?: boolean
  targets?: Target
  /** 'routes' (default): the per-route table; 'pipeline': the pipeline table (see the top) */
  group?: 'routes' | 'pipeline'
  /** wrk -c for this scenario (default --connections) */
  connections?: number
  /** wrk -t for this scenario (default --threads) */
  threads?: number
  /**
   * A response is a success only with this status and a body containing this text. Generates Lua
   * setup()/response()/done() hooks, so `luaScript` must not define those.
   */
  success?: { status: number; bodyContains: string }
  /** best-of-group successes/s must reach this (checked over all scenarios with the same value) */
  minSuccessPerS?: number
}

const jsonField = (field: string, want: unknown) => (_status: number, text: string): string | null => {
  try {
    const got = (JSON.parse(text) as Record<string, unknown>)[field]
    return got === want ? null : `expected ${field}=${JSON.stringify(want)}, got ${JSON.stringify(got)}`
  } catch {
    return `expected JSON, got ${text.slice(0, 200)}`
  }
}

/** The task every pipeline scenario submits: builtin provider (the agent's default model). */
const SENTIMENT_PROMPT = 'The new release is fast and the support team was wonderful, although the setup guide could be clearer.'
export const PIPELINE_TASKS_PER_S = 1000

/** Issue 12: p99 at C=16 and p50 at C=1 (milliseconds). */
const PIPELINE_LATENCY: Record<number, Target> = { 1: { maxP50Ms: 1.5 }, 16: { maxP99Ms: 20 } }

const pipeline = (connections: number): Scenario => ({
  name: `pipeline builtin c=${connections}`, group: 'pipeline', server: 'taskgate', method: 'POST', path: '/api/v1/tasks/submit',
  connections, threads: connections >= 64 ? 2 : 1,
  // The operator's bearer token: no per-key rate limit (an agent-bound key gets the tier's 6,000 rpm).
  headers: (ctx) => ({ authorization: `Bearer ${ctx.accessToken}` }),
  body: (ctx) => ({ agentId: ctx.agentId, taskType: 'sentiment_analysis', prompt: SENTIMENT_PROMPT }),
  success: { status: 200, bodyContains: '"status":"COMPLETED"' },
  verify: jsonField('status', 'COMPLETED'),
  minSuccessPerS: PIPELINE_TASKS_PER_S,
  targets: PIPELINE_LATENCY[connections],
})

export const SCENARIOS: Scenario[] = [
  { name: 'bare Bun.serve /', server: 'bare', path: '/', baseline: true },
  { name: 'GET /healthz', server: 'taskgate', path: '/healthz', verify: jsonField('status', 'ok'), targets: { minRatioToBaseline: 0.6 } },
  {
    name: 'GET /api/v1/whoami (x-api-key)', server: 'taskgate', path: '/api/v1/whoami',
    // A fresh key per scenario: the 1,000,000 rpm budget is per key and per sliding minute.
    headers: async (ctx) => ({ 'x-api-key': await ctx.newApiKey('bench-whoami') }),
    verify: jsonField('via', 'apiKey'),
    rssHeadline: true,
    targets: { minRatioToBaseline: 0.5, maxP99Ms: 5 },
  },
  { name: 'GET /api/v1/config/public', server: 'taskgate', path: '/api/v1/config/public' },
  {
    name: 'GET /api/v1/auth/me (bearer)', server: 'taskgate', path: '/api/v1/auth/me',
    headers: (ctx) => ({ authorization: `Bearer ${ctx.accessToken}` }),
    verify: jsonField('identityLogin', 'bench'),
  },
  pipeline(1),
  pipeline(16),
  pipeline(64),
]
