// Binds route declarations to Elysia and wraps every request with: request id, body-size limits,
// problem+json errors, security headers, one log line, and metrics.
import type { TSchema } from '@sinclair/typebox'
import { ValueErrorType } from '@sinclair/typebox/errors'
import { Elysia, ValidationError } from 'elysia'
import { isDatabaseBusy, isStorageFull, type StorageMonitor } from '../db/storage'
import { requestLogger, type Logger } from '../log'
import type { Authenticator } from './auth'
import { ProblemError, problemResponse, type FieldError } from './errors'
import { isProblemCode, type ProblemCode } from './problem-codes'
import type { HttpMetrics } from './metrics'
import { stringRuleMessage, validatorSchema } from './request-schema'
import type { RouteDef } from './route'
import { PROBLEM_CODE } from './schemas'

export interface RequestInfo {
  requestId: string; route: string | null; readonly ip: string
  /** Lifts the connection's idle timeout for this request (event streams, long waits). */
  holdOpen(): void
}

type Server = { requestIP(r: Request): { address: string } | null; timeout(r: Request, seconds: number): void }

/** A request's id, route and (read on demand) client address: a class, so each costs one plain allocation. */
class RequestState implements RequestInfo {
  route: string | null = null
  private address: string | undefined
  constructor(readonly requestId: string, private request: Request, private server: Server) {}
  get ip(): string { return (this.address ??= this.server.requestIP(this.request)?.address ?? '') } // only the routes that need it pay for it
  holdOpen(): void { this.server.timeout(this.request, 0) }
}

/** What a handler gets (HandlerCtx): its prototype holds the lazily read members. */
class HandlerContext {
  constructor(
    readonly params: unknown, readonly query: unknown, readonly body: unknown, readonly auth: unknown, readonly request: Request,
    readonly requestId: string, readonly set: HandlerSet, private info: RequestInfo, private uploadLimit: number,
  ) {}
  get ip(): string { return this.info.ip }
  get readBody(): () => Promise<Uint8Array> { return () => readLimited(this.request, this.uploadLimit) }
}

/** Requests that go through Elysia, whose hooks get only the Request (direct routes pass their state along). */
const requestInfo = new WeakMap<Request, RequestInfo>()
export const infoOf = (r: Request): RequestInfo => requestInfo.get(r) ?? { requestId: 'unknown', route: null, ip: '', holdOpen() {} }

/** UI pages: scripts, styles and everything else from this origin only; never framed. */
export const UI_CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

/**
 * A client's x-request-id is used (and echoed) only when it matches this; any other value, the
 * empty one included, is ignored and replaced, never echoed or logged (docs/api.md, "Request ids").
 */
export const REQUEST_ID_PATTERN = '^[A-Za-z0-9._:-]{1,128}$'
const REQUEST_ID_RE = new RegExp(REQUEST_ID_PATTERN)

/**
 * A new request id, UUID-shaped and unique: a random UUID drawn at start with its last 7 hex
 * digits replaced by a per-process counter (a request id needs to be unique, not unpredictable;
 * a fresh random UUID per request cost more than the rest of a health check).
 */
let idBase = crypto.randomUUID().slice(0, 29)
let idSeq = 0
const newRequestId = (): string => {
  // 7 hex digits of counter after 29 random characters; a new random base when the counter runs out.
  if (idSeq === 0xfffffff) { idBase = crypto.randomUUID().slice(0, 29); idSeq = 0 }
  return idBase + (0x10000000 + idSeq++).toString(16).slice(1) // int32 arithmetic: the fast path
}

export interface HttpOptions {
  routes: RouteDef[]
  auth: Authenticator
  log: Logger
  metrics: HttpMetrics
  jsonBodyLimit: number
  uploadBodyLimit: number
  storage?: StorageMonitor
}

interface CompiledRoute { method: string; re: RegExp; path: string; upload: boolean }

/**
 * Whether a body schema takes only a JSON object (or an object or null): then any other JSON
 * value (false, "abc", [1]) is refused before the handler runs, whatever the validator makes of it.
 */
function objectRule(schema: TSchema | undefined): 'object' | 'objectOrNull' | null {
  if (!schema) return null
  const sch = schema as { type?: string; anyOf?: { type?: string }[] }
  if (sch.type === 'object') return 'object'
  if (sch.anyOf?.length && sch.anyOf.every((m) => m.type === 'object' || m.type === 'null')) return sch.anyOf.some((m) => m.type === 'null') ? 'objectOrNull' : 'object'
  return null
}

function assertObjectBody(body: unknown, rule: 'object' | 'objectOrNull'): void {
  if (body === null && rule === 'objectOrNull') return
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) return
  throw new ProblemError(400, 'VALIDATION_FAILED', 'invalid body: the request body must be a JSON object', { errors: [{ path: '/body', message: 'must be a JSON object' }] })
}

export function createHttp(o: HttpOptions) {
  const compiled: CompiledRoute[] = o.routes.map((r) => ({
    method: r.method,
    path: r.path,
    re: new RegExp('^' + r.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+').replace(/\\\*$/, '.*') + '/?$'),
    upload: !!r.upload,
  }))
  const uploads = compiled.filter((c) => c.upload)
  const isUpload = (request: Request) => uploads.length > 0 && uploads.some((u) => u.method === request.method && u.re.test(new URL(request.url).pathname))

  /** The problem+json answer for anything a route or Elysia threw (`code`: Elysia's error kind). */
  function errorResponse(code: string | number, error: unknown, request: Request, rid = infoOf(request).requestId): Response {
    // Elysia wraps errors thrown while parsing the body in a ParseError.
    if (code === 'PARSE' && (error as Error).cause instanceof ProblemError) error = (error as Error).cause as ProblemError
    if (error instanceof ProblemError) return problemResponse(error.status, error.code, error.detail, rid, error.extra, error.headers)
    if (isStorageFull(error)) {
      o.storage?.markFull(error)
      return problemResponse(507, 'STORAGE_FULL', 'the server\'s storage is full: reads keep working; writes resume once space is freed', rid, {}, { 'retry-after': '30' })
    }
    if (isDatabaseBusy(error)) return problemResponse(503, 'DATABASE_BUSY', 'another process holds the database\'s write lock (a CLI command on this data dir?); nothing was written, retry shortly', rid, {}, { 'retry-after': '1' })
    if (code === 'VALIDATION' || error instanceof ValidationError) {
      const v = error as ValidationError
      const errors: FieldError[] = []
      // A value refused by a (sub)schema that names its own problem code (x-problem-code, e.g. an
      // unknown task type → INVALID_TASK_TYPE) gets that code; everything else VALIDATION_FAILED.
      let code: ProblemCode = 'VALIDATION_FAILED'
      try {
        for (const e of (v.all as Record<string, any>[]).flatMap((x) => leafErrors(x))) {
          const path = `/${v.type}${'path' in e ? e.path : ''}`
          const consts = e.type === ValueErrorType.Union && Array.isArray(e.schema?.anyOf) && e.schema.anyOf.every((x: Record<string, unknown>) => 'const' in x) ? e.schema.anyOf.map((x: Record<string, unknown>) => String(x.const)) : null
          const rule = typeof e.schema?.format === 'string' ? stringRuleMessage(e.schema.format, e.value) : null
          const message = e.type === ValueErrorType.ObjectAdditionalProperties ? 'unknown member: the schema does not name it'
            : consts ? `must be one of: ${consts.join(', ')}`
            : rule ?? ('message' in e ? String(e.message) : 'invalid value')
          if (code === 'VALIDATION_FAILED') code = problemCodeOf(e) ?? code
          if (!errors.some((x) => x.path === path)) errors.push({ path, message })
        }
      } catch { /* fall back to the summary below */ }
      if (errors.length === 0) errors.push({ path: `/${v.type}`, message: 'invalid value' })
      return problemResponse(400, code, `invalid ${v.type}: ${errors[0]!.path} ${errors[0]!.message}`, rid, { errors })
    }
    if (code === 'NOT_FOUND') {
      const path = new URL(request.url).pathname
      const allow = [...new Set(compiled.filter((c) => c.re.test(path)).map((c) => c.method))]
      if (allow.length > 0 && !allow.includes(request.method)) {
        return problemResponse(405, 'METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${path}`, rid, { allow }, { allow: allow.join(', ') })
      }
      return problemResponse(404, 'ROUTE_NOT_FOUND', `no route for ${request.method} ${path}`, rid)
    }
    if (code === 'PARSE') return problemResponse(400, 'INVALID_BODY', 'the request body could not be parsed', rid)
    o.log.error({ err: serializeError(error), requestId: rid }, 'unhandled error')
    return problemResponse(500, 'INTERNAL', 'internal error; the request id identifies it in the logs', rid)
  }

  // normalize: false — Elysia validates bodies as declared instead of silently stripping members
  // the schema does not name (http/request-schema.ts gives every body object additionalProperties: false).
  const app = new Elysia({ aot: true, normalize: false })
    .onParse(async ({ request, contentType }) => {
      // Upload routes read their own body after authentication (HandlerCtx.readBody); everywhere
      // else a multipart body is refused before anything is read.
      if (isUpload(request)) return null
      if (contentType?.startsWith('multipart/form-data')) throw new ProblemError(415, 'UNSUPPORTED_MEDIA_TYPE', 'multipart/form-data is accepted only by upload routes; send JSON')
      const text = await readText(request, o.jsonBodyLimit)
      if (text.trim() === '') return null
      try {
        return JSON.parse(text)
      } catch {
        throw new ProblemError(400, 'INVALID_JSON', 'the request body is not valid JSON')
      }
    })
    .onError(({ code, error, request }) => errorResponse(code, error, request))

  function callHandler(def: RouteDef, request: Request, info: RequestInfo, params: unknown, query: unknown, body: unknown, principal: unknown, set: HandlerSet): unknown {
    info.route = def.path
    if (def.longLived) info.holdOpen()
    return def.handler(new HandlerContext(params, query, body, principal, request, info.requestId, set, info, o.uploadBodyLimit) as never)
  }

  // GET routes without path parameters or a query schema (health, configuration, the caller's own
  // records …) are answered without Elysia's router and lifecycle: same authentication, handler and
  // problem answers, a third less time per request (docs/performance.md). Bun's router matches
  // their exact paths (`routes` below); anything else goes through Elysia.
  const direct = new Map<string, RouteDef>()
  for (const def of o.routes) if (def.method === 'GET' && !def.path.includes(':') && !def.params && !def.query && !def.body && !def.upload) direct.set(def.path, def)

  /**
   * A direct route's answer with every header set: JSON, text or a problem built here, or the
   * handler's own Response. Synchronous when the authentication and the handler are (a health
   * check, an API key, a known bearer token): no turn of the event loop for the request.
   */
  function answerDirect(def: RouteDef, request: Request, info: RequestInfo): Response | Promise<Response> {
    const set: HandlerSet = { headers: { 'x-request-id': info.requestId, 'x-content-type-options': 'nosniff' } }
    info.route = def.path
    const failed = (e: unknown) => errorResponse('UNKNOWN', e, request, info.requestId)
    const answer = (out: unknown) => (out instanceof Response ? htmlHeaders(toResponse(out, set)) : toResponse(out, set)) // only a handler's own Response can be a page
    const handle = (principal: unknown): Response | Promise<Response> => {
      const out = callHandler(def, request, info, {}, {}, undefined, principal, set)
      return out instanceof Promise ? out.then(answer).catch(failed) : answer(out)
    }
    try {
      const principal = def.auth === 'none' ? null : o.auth.authenticate(request, def, set.headers)
      return principal instanceof Promise ? principal.then(handle).catch(failed) : handle(principal)
    } catch (e) {
      return failed(e)
    }
  }

  for (const def of o.routes) {
    // Credentials are checked in `transform`, i.e. before body/query validation. Public routes only
    // record their route there (for logs and metrics of validation errors), when they validate input.
    const validates = !!(def.params || def.query || def.body)
    const rule = objectRule(def.body)
    const hook: Record<string, unknown> = def.auth === 'none' ? (validates ? {
      transform: (c: { request: Request; body: unknown }) => { infoOf(c.request).route = def.path; if (rule) assertObjectBody(c.body, rule) },
    } : {}) : {
      transform: async (c: { request: Request; body: unknown; set: { headers: Record<string, string | number> } } & Record<string, unknown>) => {
        infoOf(c.request).route = def.path
        c.principal = await o.auth.authenticate(c.request, def, c.set.headers)
        if (rule) assertObjectBody(c.body, rule)
      },
    }
    // Elysia compiles (and annotates) its own copies of the enforced schemas (http/request-schema.ts).
    if (def.params) hook.params = validatorSchema(def.params, 'params')
    if (def.query) hook.query = validatorSchema(def.query, 'query')
    if (def.body) hook.body = validatorSchema(def.body, 'body')
    app.route(def.method, def.path, ((c: Record<string, unknown> & { request: Request }) =>
      callHandler(def, c.request, infoOf(c.request), c.params, c.query, c.body, c.principal, c.set as HandlerSet)) as never, hook as never)
  }

  const reqLog = requestLogger(o.log)

  /** One request: the direct route's handler when Bun's router chose one, else Elysia. */
  function serve(request: Request, server: Server, directDef: RouteDef | null): Response | Promise<Response> {
    const t0 = performance.now()
    const sent = request.headers.get('x-request-id')
    const info = new RequestState(sent && REQUEST_ID_RE.test(sent) ? sent : newRequestId(), request, server)
    // The log line and the metrics, once the answer is there.
    const done = (res: Response): Response => {
      const ms = performance.now() - t0
      const route = info.route ?? (res.status < 400 ? 'static' : 'unmatched')
      o.metrics.observe(request.method, route, res.status, ms / 1000)
      reqLog(request.method, route, res.status, ms, info.requestId)
      return res
    }
    if (directDef) {
      const res = answerDirect(directDef, request, info)
      return res instanceof Promise ? res.then(done) : done(res)
    }
    requestInfo.set(request, info)
    const len = request.method === 'GET' ? 0 : Number(request.headers.get('content-length') ?? 0)
    // The declared length is checked before anything is read; chunked bodies are cut while streaming.
    const limit = len > o.jsonBodyLimit && isUpload(request) ? o.uploadBodyLimit : o.jsonBodyLimit
    if (len > limit) return done(problemResponse(413, 'BODY_TOO_LARGE', `request body exceeds ${limit} bytes`, info.requestId, { limit }))
    return app.handle(request).then((res) => {
      res.headers.set('x-request-id', info.requestId)
      res.headers.set('x-content-type-options', 'nosniff')
      return done(htmlHeaders(res))
    })
  }

  const fetch = (request: Request, server: Server): Response | Promise<Response> => serve(request, server, null)

  /**
   * The direct routes for Bun.serve's `routes`: Bun matches their paths natively, so these requests
   * never build a URL string or look a path up here. A query string still reaches them (none of
   * them reads one); HEAD is answered by Bun as GET without the body; anything else on these paths
   * (another method, a trailing slash) goes to `fetch` and Elysia as before.
   */
  const routes: Record<string, { GET: (request: Request, server: Server) => Response | Promise<Response> }> = {}
  for (const [path, def] of direct) routes[path] = { GET: (request, server) => serve(request, server, def) }

  return { app, fetch, routes }
}

type HandlerSet = { status?: number | string; headers: Record<string, string | number> }

/** Pages get the UI's security headers (a page that sets its own CSP, like /docs, keeps it). */
function htmlHeaders(res: Response): Response {
  if (res.headers.get('content-type')?.startsWith('text/html')) {
    if (!res.headers.has('content-security-policy')) res.headers.set('content-security-policy', UI_CSP)
    res.headers.set('referrer-policy', 'no-referrer')
    res.headers.set('x-frame-options', 'DENY')
  }
  return res
}

/** A handler's result as Elysia would answer it: a Response as is (plus set headers), JSON, or text. */
function toResponse(out: unknown, set: HandlerSet): Response {
  const headers = set.headers as Record<string, string>
  const status = Number(set.status ?? 200)
  if (out instanceof Response) {
    for (const k in headers) if (!out.headers.has(k)) out.headers.set(k, headers[k]!)
    return out
  }
  // `set.headers` is this request's own object: the content type goes into it instead of a copy.
  headers['content-type'] ??= typeof out === 'string' ? 'text/plain;charset=utf-8' : 'application/json;charset=utf-8'
  return new Response(typeof out === 'string' ? out : JSON.stringify(out), { status, headers })
}

/**
 * A refused union reports one error for the whole value. When exactly one variant fits the value's
 * shape (its errors all lie below the union's path, e.g. the object of an `{ … } | null` body),
 * its errors say what is wrong (the unknown member, the bad field) and replace the union's.
 */
function leafErrors(e: Record<string, any>, depth = 0): Record<string, any>[] {
  if (e.type !== ValueErrorType.Union || !Array.isArray(e.errors) || depth > 4) return [e]
  const variants = (e.errors as Iterable<Record<string, any>>[]).map((it) => [...it])
  e.errors = variants // iterators run once; keep the lists for problemCodeOf
  const fitting = variants.filter((list) => list.length > 0 && list.every((x) => x.path !== e.path))
  if (fitting.length !== 1) return [e]
  return fitting[0]!.flatMap((x) => leafErrors(x, depth + 1))
}

/**
 * The problem code a validation error carries: that of the (sub)schema that refused a value, looked
 * for through the variants of a refused union (e.g. the faucet's `{ wallet } | null` body).
 */
function problemCodeOf(e: Record<string, any>, depth = 0): ProblemCode | null {
  if (e.value !== undefined && isProblemCode(e.schema?.[PROBLEM_CODE])) return e.schema[PROBLEM_CODE]
  if (depth > 4 || !Array.isArray(e.errors)) return null
  for (const variant of e.errors) {
    for (const sub of variant as Iterable<Record<string, any>>) {
      const c = problemCodeOf(sub, depth + 1)
      if (c) return c
    }
  }
  return null
}

/**
 * A JSON body as text. With a declared length (already checked against the limit before anything
 * was read; HTTP framing stops the body there) Bun reads it natively; a chunked body is read as a
 * stream and cut at the limit.
 */
async function readText(request: Request, limit: number): Promise<string> {
  const declared = request.headers.get('content-length')
  if (declared !== null && Number(declared) <= limit) return request.text()
  return Buffer.from(await readLimited(request, limit)).toString('utf8')
}

/** Reads a request body, failing with 413 once it grows past `limit` bytes. */
async function readLimited(request: Request, limit: number): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array(0)
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit) {
      reader.cancel().catch(() => {})
      throw new ProblemError(413, 'BODY_TOO_LARGE', `request body exceeds ${limit} bytes`, { limit })
    }
    chunks.push(value)
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)
}

function serializeError(e: unknown) {
  return e instanceof Error ? { type: e.name, message: e.message, stack: e.stack } : { message: String(e) }
}
