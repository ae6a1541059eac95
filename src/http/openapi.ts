// OpenAPI 3.2 document generated from the route declarations (http/route.ts). It is built once, at
// its first request, from copies of the same enforced schemas Elysia validates with
// (http/request-schema.ts), so it is the same on every instance with the same configuration
// whatever requests came first.
//
// Per operation it lists: every status with its problem codes (derived from the declaration —
// input, credentials, body limits, storage — plus the route's own `errors`), header parameters
// and response headers, the media type and schema of every response (event streams per event, as
// an OpenAPI 3.2 `itemSchema`), security alternatives, and links to the operations that use what
// it returns. Why 3.2 and how each part is written: docs/api.md.
import type { TSchema } from '@sinclair/typebox'
import { REQUEST_ID_PATTERN } from './app'
import { BEARER_KEY_RULE, BOTH_CREDENTIALS_RULE } from './auth'
import { isProblemCode, PROBLEM_CODES, type ProblemCode } from './problem-codes'
import { requestSchema, type Where } from './request-schema'
import type { AuthKind, HeaderDoc, ResponseDoc, RouteDef, SseEventDoc } from './route'
import { OpenAiError, PaymentRequired, Problem, PROBLEM_CODE, QUERY_INT, type IntBounds } from './schemas'
import { isOpenAiPath } from './errors'

export interface OpenApiOptions {
  version: string
  /** The public URL (TASKGATE_PUBLIC_URL); without one the document names no server (= relative to itself). */
  publicUrl?: string
  jsonBodyLimit: number
  uploadBodyLimit: number
  bearerRpm: number
}

type Json = Record<string, unknown>

/**
 * Requests whose request line and headers exceed Bun's HTTP parser limit (16 KiB, the runtime's
 * `--max-http-header-size`) are answered by Bun itself, before the application sees them: 431
 * with no body and no x-request-id. Neither `fetch` nor `error` of Bun.serve is called, and no
 * Bun.serve option changes the answer (docs/api.md, "Oversized requests").
 */
export const OVERSIZED_RULE = 'A request whose request line (the URL with its query string) and headers together exceed 16 KiB is refused by the HTTP server before TaskGate sees it: **431** with **no body** (not problem+json) and no `x-request-id`; the connection is closed. This applies to every operation; keep query strings and headers short (send large values in a JSON body).'

/** The rule for members a request body does not name, as the document states it. */
export const UNKNOWN_MEMBERS_RULE = 'Request bodies are closed: a JSON body member that the operation\'s schema does not name is refused with 400 `VALIDATION_FAILED`, and `errors` names it (`{ "path": "/body/<member>", "message": "unknown member…" }`); every object in a request schema says `additionalProperties: false`. Nothing is silently dropped. Unknown query parameters are ignored. Response objects are open: clients ignore members they do not know (new ones may be added).'

const TITLES: Record<number, string> = {
  400: 'Bad Request', 401: 'Unauthorized', 402: 'Payment Required', 403: 'Forbidden', 404: 'Not Found', 406: 'Not Acceptable',
  409: 'Conflict', 413: 'Content Too Large', 415: 'Unsupported Media Type', 429: 'Too Many Requests', 503: 'Service Unavailable', 507: 'Insufficient Storage',
}

const hdr = (description: string, schema: Json = { type: 'string' }, required = false): Json => ({ description, required, schema })

/** Response headers shared by many operations (components.headers). */
const HEADERS: Record<string, Json> = {
  'x-request-id': hdr('The request id: the one the client sent when it matched the pattern (see the `x-request-id` parameter), else a new unique, UUID-shaped id. Logs carry it.', { type: 'string', pattern: REQUEST_ID_PATTERN }, true),
  'RateLimit-Limit': hdr('Requests allowed per window for the credential used (the API key, or the operator\'s bearer tokens).', { type: 'integer', minimum: 0 }),
  'RateLimit-Remaining': hdr('Requests left in the current window.', { type: 'integer', minimum: 0 }),
  'RateLimit-Reset': hdr('Seconds until the window resets.', { type: 'integer', minimum: 0 }),
  'RateLimit-Policy': hdr('`<limit>;w=<window seconds>`', { type: 'string', pattern: '^[0-9]+;w=[0-9]+$' }),
  'Retry-After': hdr('Seconds to wait before retrying.', { type: 'integer', minimum: 0 }, true),
  'WWW-Authenticate': hdr('The credentials the server accepts: `Bearer realm="taskgate", ApiKey header="x-api-key"`.'),
  Location: hdr('Where the resource can be read (relative URL).'),
  Link: hdr('`<relative URL>; rel="next"`: the next page (RFC 8288), present only when there is one.'),
  'idempotent-replayed': hdr('`true` when the answer replays an earlier request with the same Idempotency-Key (nothing was charged again).', { type: 'string', enum: ['true'] }),
  'X-PAYMENT-RESPONSE': hdr('x402 v1 (and the legacy X-402-Payment): base64 JSON `{ success, transaction, network: "base-sepolia", payer }`, the payment settled for this request.'),
  'PAYMENT-RESPONSE': hdr('x402 v2: base64 JSON `{ success, transaction, network: "eip155:84532", payer }`, the payment settled for this request.'),
  'PAYMENT-REQUIRED': hdr('x402 v2: base64 JSON `{ x402Version: 2, error?, resource: { url, description, mimeType }, accepts: [{ scheme: "exact", network: "eip155:84532", amount, asset, payTo, maxTimeoutSeconds, extra: { name, version } }] }`, the same payment as the body\'s v1 `accepts`.'),
  'X-RateLimit-Reset': hdr('Unix time (seconds) at which the paying wallet\'s hourly x402 limit resets.', { type: 'integer', minimum: 0 }),
  'Set-Cookie': hdr('The GitHub sign-in state cookie (HttpOnly, SameSite=Lax, Path=/api/v1/auth/github).'),
  ETag: hdr('`"<cid>.<format>"`'),
  'Cache-Control': hdr('Caching: CIDs are immutable (`public, max-age=29030400, immutable`); event streams `no-cache`.'),
  'X-Ipfs-Roots': hdr('The root CID of the content.'),
  'x-taskgate-task-id': hdr('The task a door call made (GET /api/v1/tasks/{id}).'),
  'x-taskgate-receipt-cid': hdr('The CID of the task\'s signed receipt (GET /api/v1/public/proof/{cid}).'),
  'x-taskgate-attestation-uid': hdr('The UID of the task\'s EAS offchain attestation (GET /api/v1/attestations/{uid}).'),
  'x-taskgate-approval-id': hdr('The approval request holding the task (GET /api/v1/approvals/{id}).'),
}
const RATE_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy']

/** Request headers routes may read (components.parameters). */
const PARAMETERS: Record<string, Json> = {
  RequestId: { name: 'x-request-id', in: 'header', required: false, description: `Optional, never refused. A request id to carry through the logs: a value matching \`${REQUEST_ID_PATTERN}\` (1–128 letters, digits and \`._:-\`) is used as this request's id and echoed in the response. Any other value, the empty one included, is ignored: the request gets a new unique, UUID-shaped id, and the value sent is neither echoed nor logged (a correlation header cannot fail a request, nor inject into logs).`, schema: { type: 'string' } },
  IdempotencyKey: { name: 'Idempotency-Key', in: 'header', required: false, description: 'Makes retries safe: a retry with the same key is applied once (the operation\'s description says what a replay answers).', schema: { type: 'string', minLength: 1, maxLength: 255 } },
  PaymentSignature: { name: 'PAYMENT-SIGNATURE', in: 'header', required: false, description: 'x402 v2 payment: base64 JSON `{ x402Version: 2, accepted, payload: { signature, authorization: { from, to, value, validAfter, validBefore, nonce } }, resource? }`, an EIP-3009 transferWithAuthorization signed by the payer over an entry of the `PAYMENT-REQUIRED` header of a 402 answer (`accepted`). Always verified when present (402 PAYMENT_* when not valid); `PAYMENT-RESPONSE` confirms it. Send one payment header per request.', schema: { type: 'string' } },
  XPayment: { name: 'X-PAYMENT', in: 'header', required: false, description: 'x402 v1 payment: base64 JSON `{ x402Version: 1, scheme: "exact", network, payload: { signature, authorization: { from, to, value, validAfter, validBefore, nonce } } }`, an EIP-3009 transferWithAuthorization signed by the payer over the `accepts` of a 402 answer. Always verified when present (402 PAYMENT_* when not valid).', schema: { type: 'string' } },
  X402Payment: { name: 'X-402-Payment', in: 'header', required: false, description: 'Legacy payment: base64 JSON `{ txHash, payer, amount, chainId: 84532 }` naming an earlier mock USDC transfer from the operator\'s bound wallet to the payment gate (e.g. the faucet\'s `x402PaymentHeader`).', schema: { type: 'string' } },
  LastEventId: { name: 'Last-Event-ID', in: 'header', required: false, description: 'Resume an event stream after this event id (EventSource sends it on reconnect); a value that is not a positive event id replays from the start.', schema: { type: 'string' } },
  AgentId: { name: 'x-taskgate-agent-id', in: 'header', required: false, description: 'The agent the call acts for. An agent-bound key acts as its agent (another agent here → 403 AGENT_KEY_MISMATCH); an operator key or a bearer token must name one (missing → 400 AGENT_ID_REQUIRED).', schema: { type: 'string', maxLength: 128 } },
  TaskTypeHeader: { name: 'x-taskgate-task-type', in: 'header', required: false, description: 'The task type (default `general`, or `metadata.taskType`); unknown → 400 INVALID_TASK_TYPE.', schema: { type: 'string' } },
  ActionHeader: { name: 'x-taskgate-action', in: 'header', required: false, description: 'What an approval judges: the JSON object that `action` is on POST /api/v1/tasks/submit (`requestedValue` above the approval threshold holds the call: 403 `approval_required`). Not JSON, or not that shape → 400 INVALID_ACTION_HEADER.', schema: { type: 'string' } },
  Accept: { name: 'Accept', in: 'header', required: false, description: '`application/vnd.ipld.car` or `application/vnd.ipld.raw` choose the format when `?format=` is absent.', schema: { type: 'string' } },
  AccessToken: { name: 'access_token', in: 'query', required: false, description: 'The bearer token, for EventSource clients that cannot send headers (same as `Authorization: Bearer`, which wins when both are sent; empty = not sent).', schema: { type: 'string' } },
}
const HEADER_PARAMS: Record<string, string> = {
  'Idempotency-Key': 'IdempotencyKey', 'PAYMENT-SIGNATURE': 'PaymentSignature', 'X-PAYMENT': 'XPayment', 'X-402-Payment': 'X402Payment', 'Last-Event-ID': 'LastEventId', Accept: 'Accept',
  'x-taskgate-agent-id': 'AgentId', 'x-taskgate-task-type': 'TaskTypeHeader', 'x-taskgate-action': 'ActionHeader',
}

/** The security requirement alternatives of each credential kind. */
function security(r: RouteDef): Record<string, string[]>[] {
  if (r.ownSecurity) return r.ownSecurity
  const auth: AuthKind = r.admin ? 'bearer' : r.auth
  const alts: Record<AuthKind, Record<string, string[]>[]> = {
    none: [], optional: [{}, { bearer: [] }, { apiKey: [] }], bearer: [{ bearer: [] }], apiKey: [{ apiKey: [] }], either: [{ bearer: [] }, { apiKey: [] }],
  }
  const list = alts[auth]
  return r.queryToken ? [...list, { accessToken: [] }] : list
}

export const operationId = (method: string, path: string) =>
  `${method.toLowerCase()}${toDocPath(path).replace(/[{}]/g, '').split(/[/_.-]/).filter(Boolean).map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')}`
const toDocPath = (p: string) => p.replace(/:([A-Za-z0-9_]+)/g, '{$1}')

// ---------------------------------------------------------------- schemas as the document shows them

/**
 * TypeBox schemas are JSON Schema already. For the document this drops TypeBox's `$id`, undoes
 * Elysia's coercion unions in response schemas (`anyOf: [{ type: string, format: integer }, { type:
 * integer }]`), shows query integers (digit strings to the server) as integers with their bounds,
 * folds unions of constants into `enum`, and turns x-problem-code into a sentence.
 */
export function docSchema(s: unknown): Json {
  return fold(JSON.parse(JSON.stringify(s ?? {}))) as Json
}

function fold(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(fold)
  if (!v || typeof v !== 'object') return v
  let o = v as Json
  const any = o.anyOf as Json[] | undefined
  if (any?.length === 2 && any[0]?.type === 'string' && ['integer', 'numeric', 'boolean'].includes(String(any[0]?.format))) {
    const { anyOf: _a, ...rest } = o
    o = { ...rest, ...any[1] }
  }
  const out: Json = {}
  for (const [k, x] of Object.entries(o)) {
    if (k === '$id' || k === QUERY_INT || k === PROBLEM_CODE) continue
    out[k] = k === 'properties' && x && typeof x === 'object'
      ? Object.fromEntries(Object.entries(x as Json).map(([n, s]) => [n, fold(s)]))
      : fold(x)
  }
  const bounds = o[QUERY_INT] as IntBounds | undefined
  if (bounds) {
    delete out.pattern
    delete out.maxLength
    Object.assign(out, { type: 'integer', minimum: bounds.minimum, maximum: bounds.maximum, default: bounds.default })
  }
  const consts = out.anyOf as Json[] | undefined
  if (consts && consts.length > 1 && consts.every((c) => 'const' in c && Object.keys(c).every((key) => key === 'const' || key === 'type') && c.type === consts[0]!.type)) {
    delete out.anyOf
    out.type = consts[0]!.type
    out.enum = consts.map((c) => c.const)
  }
  if (typeof o[PROBLEM_CODE] === 'string') {
    const note = `Otherwise 400 ${o[PROBLEM_CODE]}.`
    out.description = out.description ? `${out.description}. ${note}`.replace(/\.\. /, '. ') : note
  }
  return out
}

/** Problem codes named by x-problem-code anywhere in a request schema. */
function schemaCodes(v: unknown, into: Set<ProblemCode>): void {
  if (Array.isArray(v)) { v.forEach((x) => schemaCodes(x, into)); return }
  if (!v || typeof v !== 'object') return
  const o = v as Json
  if (o[PROBLEM_CODE] !== undefined) {
    if (!isProblemCode(o[PROBLEM_CODE])) throw new Error(`schema names ${String(o[PROBLEM_CODE])}, which is not in PROBLEM_CODES (src/http/problem-codes.ts)`)
    into.add(o[PROBLEM_CODE])
  }
  for (const x of Object.values(o)) schemaCodes(x, into)
}

const enforced = (s: TSchema, where: Where) => docSchema(requestSchema(s, where))

// ---------------------------------------------------------------- statuses

/** Every problem status an operation can answer, with its codes. */
export function problemStatuses(r: RouteDef): Map<number, Set<ProblemCode>> {
  const out = new Map<number, Set<ProblemCode>>()
  const add = (status: number, ...codes: ProblemCode[]) => { const set = out.get(status) ?? new Set<ProblemCode>(); for (const c of codes) set.add(c); out.set(status, set) }
  const carriesBody = r.method !== 'GET'
  if (r.params || r.query || r.body) {
    const codes = new Set<ProblemCode>(['VALIDATION_FAILED'])
    for (const s of [r.params, r.query, r.body]) if (s) schemaCodes(s, codes)
    add(400, ...codes)
  }
  if (carriesBody) {
    add(413, 'BODY_TOO_LARGE')
    if (!r.upload) { add(400, 'INVALID_JSON'); add(415, 'UNSUPPORTED_MEDIA_TYPE') }
  }
  if (r.auth !== 'none') {
    const takesKey = !r.admin && (r.auth === 'apiKey' || r.auth === 'either' || r.auth === 'optional')
    add(401, 'INVALID_TOKEN', 'INVALID_API_KEY', 'CREDENTIAL_CONFLICT')
    if (r.auth !== 'optional') add(401, 'UNAUTHENTICATED', 'CREDENTIAL_NOT_ACCEPTED')
    if (takesKey) add(401, 'TEST_KEY_EXHAUSTED')
    if (!r.allowInactive) add(403, 'OPERATOR_SUSPENDED', 'OPERATOR_BANNED')
    if (r.admin) add(403, 'ADMIN_REQUIRED')
    add(429, 'RATE_LIMITED')
  }
  if (r.writes ?? r.method !== 'GET') add(507, 'STORAGE_FULL')
  add(503, 'DATABASE_BUSY', 'DATABASE_UNAVAILABLE') // PostgreSQL mode: reads too (a statement timeout, the database unreachable)
  for (const [status, codes] of Object.entries(r.errors ?? {})) add(Number(status), ...(codes ?? []))
  for (const codes of out.values()) for (const c of codes) if (!(c in PROBLEM_CODES)) throw new Error(`${r.method} ${r.path}: problem code ${c} is not in http/problem-codes.ts`)
  return new Map([...out.entries()].sort((a, b) => a[0] - b[0]))
}

// ---------------------------------------------------------------- the document

export function buildOpenApi(routes: RouteDef[], o: OpenApiOptions) {
  const visible = routes.filter((r) => !r.hidden)
  const ids = new Map(routes.map((r) => [`${r.method} ${r.path}`, r.hidden ? null : operationId(r.method, r.path)]))
  const paths: Record<string, Record<string, unknown>> = {}
  let statusCount = 0

  for (const r of visible) {
    const path = toDocPath(r.path)
    const auth = r.auth !== 'none'
    const common = (extra: Record<string, HeaderDoc> = {}, rate = auth) => headers(r, { ...(rate ? Object.fromEntries(RATE_HEADERS.map((h) => [h, h])) : {}), ...extra })

    // parameters: path and query from the enforced schemas, then headers
    const parameters: unknown[] = []
    for (const [where, schema] of [['path', r.params], ['query', r.query]] as const) {
      if (!schema) continue
      const s = enforced(schema, where === 'path' ? 'params' : 'query')
      const required = new Set((s.required as string[] | undefined) ?? [])
      for (const [name, p0] of Object.entries((s.properties ?? {}) as Record<string, Json>)) {
        const { description, ...p } = p0
        parameters.push({ name, in: where, required: where === 'path' || required.has(name), ...(description ? { description } : {}), schema: p })
      }
    }
    if (r.queryToken) parameters.push({ $ref: '#/components/parameters/AccessToken' })
    for (const h of r.requestHeaders ?? []) parameters.push({ $ref: `#/components/parameters/${HEADER_PARAMS[h]}` })
    parameters.push({ $ref: '#/components/parameters/RequestId' })

    // responses: the declared ones, then the problems
    const responses: Record<string, unknown> = {}
    for (const [code, doc] of Object.entries(r.responses) as [string, ResponseDoc][]) {
      const res: Json = { description: doc.problemCodes ? `${doc.description}. Codes its errors may name: ${doc.problemCodes.map((c) => `\`${c}\``).join(', ')}` : doc.description }
      if (doc.problemCodes) res['x-problem-codes'] = [...doc.problemCodes]
      const content = responseContent(doc)
      if (content) res.content = content
      res.headers = common(doc.headers)
      if (doc.links) {
        res.links = Object.fromEntries(Object.entries(doc.links).map(([name, l]) => {
          const target = ids.get(l.route)
          if (!target) throw new Error(`${r.method} ${r.path}: link ${name} names ${l.route}, which is not a documented route`)
          return [name, { operationId: target, ...(l.parameters ? { parameters: l.parameters } : {}), ...(l.requestBody !== undefined ? { requestBody: l.requestBody } : {}), ...(l.description ? { description: l.description } : {}) }]
        }))
      }
      responses[code] = res
      statusCount++
    }
    for (const [status, codes] of problemStatuses(r)) {
      const list = [...codes]
      const extra: Record<string, HeaderDoc> = {}
      if (status === 401) extra['WWW-Authenticate'] = 'WWW-Authenticate'
      if (status === 429 || status === 503 || status === 507) extra['Retry-After'] = 'Retry-After'
      if (status === 429 && r.errors?.[402]) extra['X-RateLimit-Reset'] = 'X-RateLimit-Reset'
      if (status === 402) extra['PAYMENT-REQUIRED'] = 'PAYMENT-REQUIRED'
      const schema = status === 402 ? '#/components/schemas/PaymentRequired' : '#/components/schemas/Problem'
      // The OpenAI-compatible routes answer the same problems in OpenAI's error shape.
      const content = isOpenAiPath(r.path)
        ? { 'application/json': { schema: { $ref: '#/components/schemas/OpenAiError', properties: { error: { properties: { code: { type: 'string', enum: list.map((c) => c.toLowerCase()) } } } } } } }
        : { 'application/problem+json': { schema: { $ref: schema, properties: { code: { type: 'string', enum: list } } } } }
      const declared = responses[String(status)] as Json | undefined // a route's own answer with this status (another media type) stays beside the problem
      if (declared) statusCount--
      responses[String(status)] = {
        description: `${declared ? `${declared.description} ` : ''}${TITLES[status] ?? 'Error'}. ${list.map((c) => `\`${c}\`: ${PROBLEM_CODES[c]}`).join('; ')}.`,
        'x-problem-codes': list,
        headers: common(extra, auth || status === 429),
        content: { ...(declared?.content as Json | undefined), ...content },
      }
      statusCount++
    }

    const op: Json = {
      operationId: operationId(r.method, r.path),
      summary: r.summary, tags: r.tags, security: security(r), 'x-taskgate-auth': r.admin ? 'admin' : r.auth,
    }
    if (r.description) op.description = r.description
    op.parameters = parameters
    const body = requestBody(r, o)
    if (body) op.requestBody = body
    responses['431'] = { $ref: '#/components/responses/RequestHeaderFieldsTooLarge' }
    op.responses = Object.fromEntries(Object.entries(responses).sort((a, b) => Number(a[0]) - Number(b[0])))
    ;(paths[path] ??= {})[r.method.toLowerCase()] = op
  }

  const operations = Object.values(paths).reduce((n, p) => n + Object.keys(p).length, 0)
  return {
    openapi: '3.2.0',
    info: {
      title: 'TaskGate API', version: o.version,
      description: [
        'Self-hosted gateway for AI agents: operators, API keys, agents, an 8-stage task pipeline with verifiable receipts, compute, credits and x402 payments.',
        '**Errors.** Every error is RFC 9457 `application/problem+json` with a stable `code` (`x-problem-codes` at the top of this document says what each means), except under `/v1/` (the OpenAI-compatible routes), where the same problem takes OpenAI\'s error shape `{ error: { message, type, code, param } }` with the code in lower case (schema `OpenAiError`). Each operation lists every status it can answer; each problem status lists its codes in its description, in `x-problem-codes`, and as the `enum` of `code` in its schema. A 402 carries the x402 payment requirements: v1 in the body (`x402Version`, `accepts`), v2 in the `PAYMENT-REQUIRED` header.',
        `**Request bodies.** ${UNKNOWN_MEMBERS_RULE} A JSON body that is not an object where the operation takes one → 400 \`VALIDATION_FAILED\`. Bodies over ${o.jsonBodyLimit} bytes (${o.uploadBodyLimit} on upload operations) → 413 \`BODY_TOO_LARGE\`, whatever the content type; multipart/form-data anywhere but upload operations → 415.`,
        `**Credentials.** Operator bearer tokens (\`POST /api/v1/auth/login\`) or API keys (\`x-api-key\`), as each operation's \`security\` lists (alternatives). ${BEARER_KEY_RULE} ${BOTH_CREDENTIALS_RULE}`,
        `**Rate limits.** API keys have their own per-minute limit (\`rateLimitRpm\`); bearer tokens share one per operator (${o.bearerRpm}/min). Every authenticated answer carries \`RateLimit-Limit\`, \`RateLimit-Remaining\`, \`RateLimit-Reset\` and \`RateLimit-Policy\`; past the limit → 429 \`RATE_LIMITED\` with \`Retry-After\`.`,
        '**Storage.** On a full disk, operations that write answer 507 `STORAGE_FULL` with `Retry-After`; reads keep working. When another process (a CLI command on the data dir) holds the database\'s write lock for more than 5 s, they answer 503 `DATABASE_BUSY` with `Retry-After` and write nothing. In PostgreSQL mode any operation answers 503 `DATABASE_UNAVAILABLE` with `Retry-After` within about 2 s while the database cannot be reached, and 503 `DATABASE_BUSY` when a statement or lock wait passes its timeout; text holding U+0000 is refused with 400 `VALIDATION_FAILED` (PostgreSQL cannot store it).',
        `**Oversized requests.** ${OVERSIZED_RULE}`,
        '**Event streams** (`text/event-stream`) are described per event by the media type\'s `itemSchema` (OpenAPI 3.2): each event is `{ event, data, id }` as an SSE parser delivers it, `data` a string holding JSON (`contentMediaType: application/json`) whose schema is the `contentSchema` of the variant its `event` names (`oneOf`). `: ping` comments and the `retry:` hint are not events.',
        `**Statuses listed:** ${statusCount} over ${operations} operations, plus 431 on every operation (see above). Every response but the 431 carries \`x-request-id\`.`,
      ].join('\n\n'),
    },
    ...(o.publicUrl ? { servers: [{ url: o.publicUrl }] } : {}),
    'x-problem-codes': PROBLEM_CODES,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: `An operator's access token from POST /api/v1/auth/login (or sign-up, setup, GitHub). A value starting with \`tg_\` is an API key, not a token (scheme \`apiKey\`). ${BOTH_CREDENTIALS_RULE}` },
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: `tg_test_… / tg_live_… keys from POST /api/v1/operator/keys, or an agent-bound key from agent registration (acts only for its agent). ${BEARER_KEY_RULE} ${BOTH_CREDENTIALS_RULE}` },
        accessToken: { type: 'apiKey', in: 'query', name: 'access_token', description: 'The bearer token as a query parameter, on event streams only (EventSource cannot send headers).' },
        metricsToken: { type: 'http', scheme: 'bearer', description: 'TASKGATE_METRICS_TOKEN, when the server sets one (for /metrics only).' },
      },
      parameters: PARAMETERS,
      headers: HEADERS,
      responses: { RequestHeaderFieldsTooLarge: { description: `Request Header Fields Too Large. ${OVERSIZED_RULE}` } },
      schemas: { Problem: docSchema(Problem), PaymentRequired: docSchema(PaymentRequired), OpenAiError: docSchema(OpenAiError) },
    },
    paths,
  }
}

function headers(r: RouteDef, list: Record<string, HeaderDoc>): Json {
  const out: Json = { 'x-request-id': { $ref: '#/components/headers/x-request-id' } }
  for (const [name, h] of Object.entries(list)) {
    if (typeof h === 'string') {
      if (!HEADERS[h]) throw new Error(`${r.method} ${r.path}: unknown response header ${h}`)
      out[name] = { $ref: `#/components/headers/${h}` }
    } else out[name] = { description: h.description, required: h.required ?? false, schema: h.schema ?? { type: 'string' } }
  }
  return out
}

function responseContent(doc: ResponseDoc): Json | null {
  const stream = doc.events ? { 'text/event-stream': { itemSchema: sseItemSchema(doc.events) } } : null
  if (doc.content) {
    return { ...Object.fromEntries(Object.entries(doc.content).map(([mt, s]) => [mt, s ? { schema: docSchema(s) } : {}])), ...stream }
  }
  if (stream) return stream
  if (doc.schema) return { [doc.contentType ?? 'application/json']: { schema: docSchema(doc.schema) } }
  if (doc.contentType) return { [doc.contentType]: doc.contentType.startsWith('text/') ? { schema: { type: 'string' } } : {} }
  return null
}

/**
 * The OpenAPI 3.2 `itemSchema` of an event stream: one parsed server-sent event (OpenAPI 3.2
 * "Special Considerations for Server-Sent Events": `event`, `data`, `id` strings and `retry` an
 * integer, after parsing per the HTML event-stream rules, so comments and a `retry:`-only block are
 * not items). `data` is a string; the JSON it holds is described with `contentMediaType` and
 * `contentSchema`, one `oneOf` variant per event name (`event` const). Every event this service
 * sends names its event and carries a numeric `id:` (http/sse.ts).
 */
export function sseItemSchema(events: Record<string, SseEventDoc>): Json {
  const names = Object.keys(events)
  return {
    type: 'object',
    description: `One server-sent event as an SSE parser delivers it: \`event\` (${names.map((n) => `\`${n}\``).join(', ')}), \`data\` (a JSON text; its schema per event below), \`id\` (resume with \`Last-Event-ID\`). \`: ping\` comments keep the stream alive and are not events.`,
    required: ['event', 'data', 'id'],
    properties: {
      event: { type: 'string', enum: names },
      data: { type: 'string', contentMediaType: 'application/json' },
      id: { type: 'string', pattern: '^[1-9][0-9]*$' },
      retry: { type: 'integer', minimum: 0 },
    },
    oneOf: names.map((name) => {
      const e = events[name]!
      return {
        title: name,
        description: e.description,
        properties: {
          event: { const: name },
          data: { contentMediaType: 'application/json', contentSchema: e.data ? docSchema(e.data) : {} },
        },
      }
    }),
  }
}

function requestBody(r: RouteDef, o: OpenApiOptions): Json | null {
  if (r.upload) {
    return {
      required: true,
      description: `A JSON document (stored as JSON) or a multipart/form-data upload. At most ${o.uploadBodyLimit} bytes.`,
      'x-body-limit': o.uploadBodyLimit,
      content: {
        'application/json': { schema: { description: 'any JSON value' } },
        'multipart/form-data': {
          schema: {
            type: 'object', required: ['file'],
            properties: {
              file: { type: 'string', contentMediaType: 'application/octet-stream', description: 'the bytes to store: a file part, or a plain form field (its text, UTF-8)' },
              name: { type: 'string', description: 'a name to return with the CID (default: the file name)' },
            },
          },
        },
      },
    }
  }
  if (!r.body) return null
  const schema = enforced(r.body, 'body')
  const optional = Array.isArray(schema.anyOf) && (schema.anyOf as Json[]).some((s) => s.type === 'null')
  return {
    required: !optional,
    ...(optional ? { description: 'May be empty (same as `null`).' } : {}),
    'x-body-limit': o.jsonBodyLimit,
    content: { 'application/json': { schema } },
  }
}
