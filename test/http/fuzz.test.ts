// Property-based fuzzing generated from the server's own /openapi.json (fast-check).
//
// For every operation and every credential kind (none, a bearer token, an operator API key, an
// agent key, and the admin's token on admin routes), valid, boundary and invalid inputs (path,
// query and header parameters, request bodies) are generated from the operation's schemas
// (helpers/schema-arb.ts) and sent to one live server. Each input is classified by the
// validator (Ajv against the same schemas), not by how it was generated.
//
// Inputs are generated from the document with its patterns (fast-check's stringMatching), formats
// (date-time, email, uri …), enums, bounds and lengths (helpers/schema-arb.ts), so most "valid"
// cases are inputs a generated client or Schemathesis would send.
//
// Properties, always enforced (whatever TASKGATE_VALIDATE_RESPONSES says):
//   - no 5xx (and no hang: every answer within 20 s)
//   - every error is application/problem+json with the response's status and a string code
//   - conformance: an input the document admits is not refused with a schema-level 400 (issue 30).
//     A 400 on an admitted input must carry one of STATE_CODES below: refusals that depend on
//     the server's state or the caller's plan (an unknown model, cursor or nonce, a tier cap, a
//     URL that resolves to a private address), which no schema can state. Any other 400 code —
//     VALIDATION_FAILED, the codes schemas name (INVALID_CID, INVALID_LOGIN …), the handler's own
//     shape checks (FILE_REQUIRED …), or a code not classified yet — fails the test: the schema
//     must say what the server accepts, or the server must accept what the schema says.
// Properties that need the document to be complete (reported in test-results/contract-mismatches.json,
// enforced with TASKGATE_VALIDATE_RESPONSES=strict, the default):
//   - the response matches the document (helpers/contract.ts: documented status, media type,
//     schema, and every event of an event stream against its itemSchema)
//   - an input the document excludes gets a 4xx
//
// Seeded: the seed is printed; FUZZ_SEED=<n> reproduces the inputs. FUZZ_RUNS scales the number
// of cases (default 1).
import { afterAll, describe, expect, test } from 'bun:test'
import fc from 'fast-check'
import { recordMismatches, STRICT } from '../helpers/contract'
import { createOwner, errorCode, fillPath, isOpenAiPath, LIFTED_LIMITS_ENV, operationsOf, randomAddress, send, type Operation, type Param } from '../helpers/operations'
import { SchemaArbs } from '../helpers/schema-arb'
import { startServer, type Res } from '../helpers/server'

const s = await startServer({
  ...LIFTED_LIMITS_ENV,
  TASKGATE_FAUCET_COOLDOWN_HOURS: '0', TASKGATE_UPLOAD_BYTES_PER_DAY: '1000000000', TASKGATE_X402_MAX_PAID_PER_HOUR: '1000000000',
})
afterAll(async () => { await s.cleanup() })

const contract = (await s.contract())!
if (!contract) throw new Error('GET /openapi.json failed')
const operations = operationsOf(contract)
const arbs = new SchemaArbs((ref) => contract.deref({ $ref: ref }))
/** Parameters: at most 512 characters each (the request line and headers must fit the HTTP server's limit). */
const paramArbs = new SchemaArbs((ref) => contract.deref({ $ref: ref }), 512)

const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : (Date.now() ^ (Math.random() * 0x7fffffff)) | 0
const SCALE = Number(process.env.FUZZ_RUNS ?? 1) || 1
console.error(`fuzz: seed ${SEED} (FUZZ_SEED=${SEED} reproduces the inputs), ${operations.length} operations`)

// ------------------------------------------------------------------ fixtures

const admin = await s.setupAdmin()
const me = await createOwner(s, admin, 'fuzzer', 'fz')
/** Resources the destructive operations may consume, so the fuzzer's own stay usable. */
const spare = {
  agents: await Promise.all([1, 2].map(async (i) => (await s.post('/api/v1/agents/register', { displayName: `spare ${i}`, capabilities: ['general'] }, { token: me.token })).body.agentId as string)),
  keys: await Promise.all([1, 2, 3].map(async (i) => (await s.createKey(me.token, `spare ${i}`)).id)),
  victim: (await s.get('/api/v1/auth/me', { token: await s.signup('victim') })).body.id as string,
  logoutToken: await s.signup('logout-victim'),
  provider: (await s.post('/api/v1/admin/providers', { name: 'fuzz-victim', kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', models: ['fuzz-victim-model'], keys: [{ key: 'sk-fuzz-victim-000000' }] }, { token: admin })).body?.id as string | undefined,
}

type Cred = 'none' | 'bearer' | 'opKey' | 'agentKey' | 'admin'
const credHeaders = (c: Cred, op: Operation): { token?: string; key?: string } => {
  switch (c) {
    case 'none': return {}
    case 'bearer': return { token: op.key === 'POST /api/v1/auth/logout' ? spare.logoutToken : me.token }
    case 'opKey': return { key: me.key.key }
    case 'agentKey': return { key: me.agent.apiKey }
    case 'admin': return { token: admin }
  }
}

/**
 * 400 codes that may refuse an input the document admits: they depend on state the document
 * cannot know (docs/api.md, "What the schemas cannot say"). Every other 400 code on an admitted
 * input fails the conformance property.
 */
const STATE_CODES = new Set([
  'UNKNOWN_MODEL', // the models of the providers configured now
  'INVALID_CURSOR', // ?before= must be one of the caller's records
  'INVALID_NONCE', 'NONCE_EXPIRED', 'INVALID_SIGNATURE', // wallet binding: a nonce issued to the caller, signed by the wallet
  'RATE_LIMIT_TOO_HIGH', // the caller's tier cap
  'WEBHOOK_URL_NOT_ALLOWED', // where the host resolves (DNS), checked when the URL is used
  'PAGE_TOO_DEEP', // how many tasks the filters leave
  'OAUTH_STATE_INVALID', // a GitHub sign-in state this server issued
  'BUILTIN_PROVIDER_EXISTS', // there is one builtin provider
  // the doors (docs/doors.md): what a foreign client may send but TaskGate does not run, named by its param
  'UNSUPPORTED_PARAMETER', // a role, content part or item type the pipeline does not run
  'AGENT_ID_REQUIRED', // which agent depends on the credential (an agent-bound key names its own)
  'INVALID_ACTION_HEADER', // the JSON object inside a string header
  'PROMPT_REQUIRED', 'PROMPT_TOO_LONG', // the conversation as rendered into the task's prompt
  'INVALID_TASK_TYPE', // metadata.taskType or x-taskgate-task-type, a free string in the client's protocol
])

/**
 * Body members whose schema another change is replacing (URL parsing instead of a pattern,
 * issue 30 coordination): a schema-level 400 that names only these is recorded, not enforced.
 */
const PENDING_MEMBERS = ['/body/callbackUrl', '/body/approvalWebhookUrl']

/** Operations never fuzzed: they would change the ground the fuzzer stands on. */
const SKIP = new Set(['POST /api/v1/admin/clock/advance'])

/** Ids of real resources to put in path parameters (besides generated ones), by operation and name. */
function realValues(op: Operation, p: Param): string[] {
  const t = op.template
  switch (p.name) {
    case 'agentId': return op.method === 'DELETE' ? spare.agents : [me.agent.agentId, me.agentB.agentId]
    case 'keyId': return op.method === 'DELETE' ? spare.keys : [me.key.id]
    case 'operatorId': return [me.operatorId, spare.victim]
    case 'jobId': return [me.job.jobId]
    case 'uid': return me.task.attestationUid ? [me.task.attestationUid] : []
    case 'hash': return [me.txHash]
    case 'address': case 'wallet': case 'walletAddress': return [me.wallet]
    case 'cid': return [me.upload.cid, me.task.ipfsCid, me.task.receiptCid].filter((x): x is string => !!x)
    case 'taskId': return [me.task.id]
    case 'id':
      if (t.includes('/tasks/')) return [me.task.id]
      if (t.includes('/admin/operators/')) return [spare.victim]
      if (t.includes('/admin/providers/')) return spare.provider ? [spare.provider] : []
      return []
    default: return []
  }
}

/** Body members that name resources get real values half of the time. */
const BODY_REAL: Record<string, () => string[]> = {
  agentId: () => [me.agent.agentId], operatorId: () => [me.operatorId, spare.victim], wallet: () => [me.wallet, randomAddress()],
  walletAddress: () => [me.wallet], taskId: () => [me.task.id], jobId: () => [me.job.jobId],
}

// ------------------------------------------------------------------ cases

type Kind = 'valid' | 'boundary' | 'invalid'
interface Case {
  kind: Kind
  /** Where the invalid case breaks the schema. */
  target: string
  path: Record<string, string>
  query: Record<string, string>
  headers: Record<string, string>
  body: { mediaType: string; value: unknown } | null
}

const serialize = (v: unknown): string => typeof v === 'string' ? v : v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v)
const safePathValue = (v: string) => (v === '' || v === '.' || v === '..' ? 'x' : v)
const headerSafe = (v: string) => /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(v)

/** A param value: small `wait`, so that no case waits for long on purpose. */
function paramArb(op: Operation, p: Param, mode: 'valid' | 'boundary'): fc.Arbitrary<unknown> {
  if (p.name === 'wait') return fc.constantFrom(0, 1)
  const gen = mode === 'valid' ? paramArbs.valid(p.schema, p.name) : paramArbs.boundary(p.schema, p.name)
  const real = p.in === 'path' ? realValues(op, p) : []
  return real.length ? fc.oneof({ arbitrary: fc.constantFrom(...real), weight: 2 }, { arbitrary: gen, weight: 1 }) : gen
}

function bodyArb(op: Operation, mode: Kind, mediaType: string): fc.Arbitrary<unknown> {
  const schema = op.body!.content[mediaType]
  const base = mode === 'invalid' ? arbs.invalid(schema) : mode === 'boundary' ? arbs.boundary(schema) : arbs.valid(schema)
  if (mode === 'invalid') return base
  return fc.tuple(base, fc.boolean()).map(([v, useReal]) => {
    if (!useReal || !v || typeof v !== 'object' || Array.isArray(v)) return v
    const o = { ...(v as Record<string, unknown>) }
    for (const k of Object.keys(o)) { const r = Object.hasOwn(BODY_REAL, k) ? BODY_REAL[k]!() : undefined; if (r?.length) o[k] = r[Math.abs(hash(JSON.stringify(o))) % r.length] }
    return o
  })
}

function caseArb(op: Operation): fc.Arbitrary<Case> {
  const inPath = op.params.filter((p) => p.in === 'path')
  const inQuery = op.params.filter((p) => p.in === 'query')
  const inHeader = op.params.filter((p) => p.in === 'header' && !['authorization', 'x-api-key', 'content-type', 'content-length'].includes(p.name.toLowerCase()))
  const mediaTypes = Object.keys(op.body?.content ?? {}).filter((m) => m === 'application/json' || m.endsWith('+json') || m === 'multipart/form-data')
  const targets = [...inPath.map((p) => `path:${p.name}`), ...inQuery.map((p) => `query:${p.name}`), ...inHeader.map((p) => `header:${p.name}`), ...(mediaTypes.length ? ['body'] : [])]
  const kinds: fc.Arbitrary<Kind> = targets.length
    ? fc.oneof({ arbitrary: fc.constant('valid' as Kind), weight: 4 }, { arbitrary: fc.constant('boundary' as Kind), weight: 2 }, { arbitrary: fc.constant('invalid' as Kind), weight: 4 })
    : fc.constant('valid' as Kind)
  return kinds.chain((kind) => fc.constantFrom(...(targets.length ? targets : ['-'])).chain((target) => {
    const mode = kind === 'boundary' ? 'boundary' : 'valid'
    const pick = (p: Param): fc.Arbitrary<unknown> => (kind === 'invalid' && target === `${p.in}:${p.name}` ? paramArbs.invalid(p.schema, p.name) : paramArb(op, p, mode))
    const optional = (p: Param) => (kind === 'invalid' && target === `${p.in}:${p.name}`)
      ? fc.oneof(pick(p), fc.constant(undefined)) // a required parameter left out is invalid too
      : p.required ? pick(p) : fc.option(pick(p), { nil: undefined, freq: 2 })
    const rec = (ps: Param[]) => fc.tuple(...ps.map(optional)).map((vals) => Object.fromEntries(ps.map((p, i) => [p.name, vals[i]]).filter(([, v]) => v !== undefined)))
    const body: fc.Arbitrary<Case['body']> = mediaTypes.length
      ? fc.constantFrom(...mediaTypes).chain((mt) => {
        const omit = !op.body!.required && kind !== 'invalid'
        const value = bodyArb(op, kind === 'invalid' && target === 'body' ? 'invalid' : mode, mt).map((value) => ({ mediaType: mt, value }))
        return omit ? fc.option(value, { nil: null, freq: 6 }) : value
      })
      : fc.constant(null)
    return fc.record({ path: rec(inPath), query: rec(inQuery), headers: rec(inHeader), body }).map((r) => ({
      kind, target,
      path: Object.fromEntries(inPath.map((p) => [p.name, safePathValue(serialize((r.path as Record<string, unknown>)[p.name] ?? 'x'))])),
      query: Object.fromEntries(Object.entries(r.query as Record<string, unknown>).map(([k, v]) => [k, serialize(v)])),
      headers: Object.fromEntries(Object.entries(r.headers as Record<string, unknown>).map(([k, v]) => [k, serialize(v)]).filter(([, v]) => headerSafe(v as string))),
      body: r.body,
    }))
  }))
}

/** A string parameter value as the schema sees it (numbers and booleans from their text). */
function typedParam(schema: unknown, raw: string): unknown {
  const types = arbs.types(schema)
  if (!types || types.has('string')) return raw
  if ((types.has('integer') || types.has('number')) && /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/.test(raw)) return Number(raw)
  if (types.has('boolean') && (raw === 'true' || raw === 'false')) return raw === 'true'
  if (types.has('null') && raw === 'null') return null
  return raw
}

/** Why the document excludes this input (empty: it admits it). */
function excluded(op: Operation, c: Case): string[] {
  const why: string[] = []
  for (const p of op.params) {
    if (p.in === 'cookie') continue
    const raw = p.in === 'path' ? c.path[p.name] : p.in === 'query' ? c.query[p.name] : p.in === 'header' ? c.headers[p.name] : undefined
    if (raw === undefined) { if (p.required && (p.in !== 'header' || !['authorization', 'x-api-key'].includes(p.name.toLowerCase()))) why.push(`${p.in} ${p.name}: required`); continue }
    for (const m of contract.validate(`fuzz ${op.key} ${p.in} ${p.name}`, p.schema, typedParam(p.schema, raw))) why.push(`${p.in} ${p.name}: ${m}`)
  }
  if (op.body) {
    if (!c.body) { if (op.body.required) why.push('body: required') }
    else {
      // multipart: the form's fields as the schema's object (each part a string, as sent)
      const value = c.body.mediaType === 'multipart/form-data' && c.body.value && typeof c.body.value === 'object' && !Array.isArray(c.body.value)
        ? Object.fromEntries(Object.entries(c.body.value).map(([k, v]) => [k, serialize(v)])) : c.body.value
      for (const m of contract.validate(`fuzz ${op.key} body ${c.body.mediaType}`, op.body.content[c.body.mediaType], value)) why.push(`body: ${m}`)
    }
  }
  return why
}

function formOf(value: unknown): FormData {
  const form = new FormData()
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) {
      // a file part (with a file name) or a plain field, as clients send either
      const asFile = (k === 'file' && (hash(serialize(v)) & 1) === 0) || (typeof v === 'string' && v.length > 64)
      form.append(k, asFile ? new Blob([serialize(v)], { type: 'application/octet-stream' }) : serialize(v))
    }
  }
  return form
}

/** Sends one case (event streams: status and headers only). */
async function sendCase(op: Operation, url: string, cred: Cred, c: Case): Promise<Res> {
  const headers: Record<string, string> = { ...c.headers }
  let raw: BodyInit | undefined
  let body: unknown
  if (c.body) {
    if (c.body.mediaType === 'multipart/form-data') raw = formOf(c.body.value)
    else { body = c.body.value; headers['content-type'] = c.body.mediaType }
  }
  return send(s, op, url, { ...credHeaders(cred, op), body, raw, headers })
}

const stats = { cases: 0, admitted: 0, excluded: 0, admittedRefused: 0, stateRefused: 0, pending: 0, excludedAccepted: 0, statuses: new Map<number, number>() }

/**
 * Operations whose admitted cases cost a password hash (Argon2id, 64 MiB: ~0.3 s each on 2 cores)
 * get fewer cases, so the file stays within a minute.
 */
const COSTLY: Record<string, number> = { 'POST /api/v1/auth/signup': 0.4, 'POST /api/v1/auth/login': 0.5 }

function credsOf(op: Operation): [Cred, number][] {
  const n = (x: number) => Math.max(1, Math.round(x * SCALE * (COSTLY[op.key] ?? 1)))
  // the credentials an operation accepts get most of the cases; the others are refused early
  const full = n(50), half = n(25), weak = n(8)
  switch (op.auth) {
    case 'none': return [['none', full], ['bearer', weak], ['opKey', weak], ['agentKey', weak]]
    case 'optional': return [['none', n(20)], ['bearer', n(20)], ['opKey', n(20)], ['agentKey', n(20)]]
    case 'bearer': return [['none', weak], ['bearer', full], ['opKey', weak], ['agentKey', weak]]
    case 'apiKey': return [['none', weak], ['bearer', weak], ['opKey', n(35)], ['agentKey', n(35)]]
    case 'either': return [['none', weak], ['bearer', half], ['opKey', half], ['agentKey', half]]
    case 'admin': return [['none', weak], ['bearer', weak], ['opKey', weak], ['agentKey', weak], ['admin', full]]
    default: return [['none', half], ['bearer', half], ['opKey', half], ['agentKey', half]]
  }
}

function hash(x: string): number {
  let h = 2166136261
  for (let i = 0; i < x.length; i++) { h ^= x.charCodeAt(i); h = Math.imul(h, 16777619) }
  return h | 0
}

const short = (v: unknown) => { const t = v === undefined ? '' : JSON.stringify(v) ?? ''; return t.length > 300 ? `${t.slice(0, 300)}…` : t }

async function runCase(op: Operation, cred: Cred, c: Case): Promise<void> {
  const qs = new URLSearchParams(c.query).toString()
  const url = fillPath(op.template, c.path) + (qs ? `?${qs}` : '')
  const why = excluded(op, c)
  const example = `${op.method} ${url} [${cred}]${Object.keys(c.headers).length ? ` headers=${short(c.headers)}` : ''}${c.body ? ` ${c.body.mediaType} ${short(c.body.value)}` : ''}`
  const r = await sendCase(op, url, cred, c)
  stats.cases++
  stats.statuses.set(r.status, (stats.statuses.get(r.status) ?? 0) + 1)
  if (r.status >= 500) throw new Error(`${r.status} for ${example}\n${r.text.slice(0, 500)}`)
  if (r.status >= 400) {
    const ct = r.headers.get('content-type') ?? ''
    const openAi = isOpenAiPath(op.template) && ct.startsWith('application/json') && typeof r.body?.error?.code === 'string' && typeof r.body?.error?.type === 'string' && typeof r.body?.error?.message === 'string'
    const jsonRpc = op.template === '/mcp' && r.status === 400 && r.body?.jsonrpc === '2.0' && typeof r.body?.error?.code === 'number'
    if (!openAi && !jsonRpc && (!ct.startsWith('application/problem+json') || r.body?.status !== r.status || typeof r.body?.code !== 'string' || typeof r.body?.title !== 'string' || typeof r.body?.type !== 'string')) {
      throw new Error(`error ${r.status} is not problem+json with its status and a code: ${ct} ${r.text.slice(0, 300)} for ${example}`)
    }
  }
  if (why.length === 0) {
    stats.admitted++
    if (r.status === 400 && STATE_CODES.has(errorCode(r)!)) stats.stateRefused++
    else if (r.status === 400) {
      const errors: { path: string; message: string }[] = r.body.errors ?? []
      const where = errors.map((e) => `${e.path} ${e.message}`).slice(0, 3).join('; ') || r.body.detail || r.body.error?.message
      const pending = errors.length > 0 && errors.every((e) => PENDING_MEMBERS.some((m) => e.path === m))
      recordMismatches([{ operation: op.key, status: 400, kind: pending ? 'fuzz-admitted-refused-pending' : 'fuzz-admitted-refused', message: `the document admits the input; the server refuses it: ${errorCode(r)} ${where}` }], { request: example, response: r.text, file: 'test/http/fuzz.test.ts' })
      if (pending) stats.pending++
      else {
        stats.admittedRefused++
        throw new Error(`admitted by the document but refused with 400 ${errorCode(r)} (${where}): ${example}`)
      }
    }
  } else {
    stats.excluded++
    if (r.status < 400) {
      stats.excludedAccepted++
      recordMismatches([{ operation: op.key, status: r.status, kind: 'fuzz-excluded-accepted', message: `the document excludes the input (${why[0]}); the server answers ${r.status}` }], { request: example, response: r.text, file: 'test/http/fuzz.test.ts' })
      if (STRICT) throw new Error(`excluded by the document (${why.join('; ')}) but answered ${r.status}: ${example}`)
    }
  }
}

// ------------------------------------------------------------------ the tests

const t0 = Date.now()
describe('fuzzing from /openapi.json', () => {
  test('the document has operations to fuzz, and the fixtures exist', () => {
    expect(operations.length).toBeGreaterThan(10)
    expect(me.task.id).toBeTruthy()
  })
  // logout last: it is the one operation that ends a credential the fuzzer could still need
  const ordered = [...operations.filter((o) => o.key !== 'POST /api/v1/auth/logout'), ...operations.filter((o) => o.key === 'POST /api/v1/auth/logout')]
  for (const op of ordered) {
    if (SKIP.has(op.key)) continue
    test(op.key, async () => {
      const arb = caseArb(op)
      for (const [cred, numRuns] of credsOf(op)) {
        const seed = (SEED ^ hash(`${op.key} ${cred}`)) | 0
        try {
          await fc.assert(fc.asyncProperty(arb, (c) => runCase(op, cred, c)), { seed, numRuns, endOnFailure: true })
        } catch (e) {
          // fast-check prints the whole counterexample; keep the message readable
          const cause = (e as Error).cause as Error | undefined
          const m = `${String((e as Error).message).replace(/\nHint: .*$/s, '')}${cause ? `\nbecause: ${cause.message ?? String(cause)}` : ''}`
          throw new Error(`[${cred}] ${m.length > 4000 ? `${m.slice(0, 2000)}\n…\n${m.slice(-2000)}` : m}`)
        }
      }
    }, 120_000)
  }
  test('summary', () => {
    const ms = Date.now() - t0
    const byStatus = [...stats.statuses.entries()].sort((a, b) => a[0] - b[0]).map(([k, v]) => `${k}×${v}`).join(' ')
    console.error(`fuzz: ${stats.cases} cases in ${(ms / 1000).toFixed(1)} s (seed ${SEED}); ${stats.admitted} admitted by the document, ${stats.excluded} excluded; ` +
      `admitted but refused with a schema-level 400: ${stats.admittedRefused} (on ${PENDING_MEMBERS.join(', ')}, not enforced yet: ${stats.pending}); admitted, refused by state (${[...STATE_CODES].join(', ')}): ${stats.stateRefused}; ` +
      `excluded but accepted: ${stats.excludedAccepted}; statuses ${byStatus}`)
    expect(stats.cases).toBeGreaterThan(0)
    expect(stats.admitted).toBeGreaterThan(stats.cases / 2) // the conformance property ran on most cases
  })
})
