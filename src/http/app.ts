// Binds route declarations to Elysia. Every request takes Elysia's lifecycle with the same hooks:
// request id, body-size limits, authentication, validation, problem+json errors, security headers,
// one metric and one log line.
import type { TSchema } from '@sinclair/typebox'
import { ValueErrorType } from '@sinclair/typebox/errors'
import { Elysia, ValidationError } from 'elysia'
import { isDatabaseBusy, isStorageFull, type StorageMonitor } from '../db/storage'
import { DatabaseUnavailable, PgError } from '../db/pg/connection'
import { requestLogger, type Logger } from '../log'
import type { Authenticator } from './auth'
import { isOpenAiPath, openAiErrorBody, ProblemError, problemBody, type FieldError } from './errors'
import { isProblemCode, type ProblemCode } from './problem-codes'
import type { HttpMetrics } from './metrics'
import { stringRuleMessage, validatorSchema } from './request-schema'
import type { RouteDef } from './route'
import { PROBLEM_CODE } from './schemas'

type Server = { requestIP(r: Request): { address: string } | null; timeout(r: Request, seconds: number): void }

/**
 * A request's id, route template once known and start (onRequest puts it on Elysia's context as
 * `rq`): a class, so each costs one plain allocation.
 */
class RequestState {
  route: string | null = null
  readonly t0 = performance.now()
  private address: string | undefined
  constructor(readonly requestId: string, private request: Request, private app: { server: Server | null }) {}
  get ip(): string { return (this.address ??= this.app.server?.requestIP(this.request)?.address ?? '') } // only the routes that need it pay for it
  /** Lifts the connection's idle timeout for this request (event streams, long waits). */
  holdOpen(): void { this.app.server?.timeout(this.request, 0) }
}

/** What a handler gets (HandlerCtx): its prototype holds the lazily read members. */
class HandlerContext {
  constructor(
    readonly params: unknown, readonly query: unknown, readonly body: unknown, readonly auth: unknown, readonly request: Request,
    readonly set: HandlerSet, private info: RequestState, private uploadLimit: number,
  ) {}
  get requestId(): string { return this.info.requestId }
  get ip(): string { return this.info.ip }
  get readBody(): () => Promise<Uint8Array> { return () => readLimited(this.request, this.uploadLimit) }
}

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

/** Elysia's context as our hooks see it (`rq`: set by onRequest; `principal`: by the route's transform). */
type Ctx = {
  request: Request; path: string; rq: RequestState; principal?: unknown; body: unknown; params?: unknown; query?: unknown
  set: HandlerSet; code?: string | number; error?: unknown; responseValue?: unknown
}

const tooLarge = (limit: number) => new ProblemError(413, 'BODY_TOO_LARGE', `request body exceeds ${limit} bytes`, { limit })

/** Whether the declared length is over the limit: 413 before anything is read (chunked bodies are cut while read). */
const declaredOver = (request: Request, limit: number): boolean => Number(request.headers.get('content-length') ?? 0) > limit

/**
 * Every route on one Elysia app, each request through one lifecycle (docs/architecture.md, "The
 * path of a request"): onRequest (request id, headers), parse (body limit, JSON), transform
 * (route, credentials, rate limits), validation, handler, onError (problem+json), mapResponse
 * (page headers, the metric and the log line). The caller adds its own routes (the console's
 * files) and starts it with `listen`, which hands each route to Bun's router.
 */
export function createHttp(o: HttpOptions) {
  const reqLog = requestLogger(o.log)

  /** The problem for anything a route or Elysia threw (`code`: Elysia's error kind). */
  function problemOf(code: string | number | undefined, error: unknown, request: Request, rid: string): ProblemError {
    // Elysia wraps errors thrown while parsing the body in a ParseError.
    if (code === 'PARSE' && (error as Error).cause instanceof ProblemError) error = (error as Error).cause as ProblemError
    if (error instanceof ProblemError) return error
    if (isStorageFull(error)) {
      o.storage?.markFull(error)
      return new ProblemError(507, 'STORAGE_FULL', 'the server\'s storage is full: reads keep working; writes resume once space is freed', {}, { 'retry-after': '30' })
    }
    if (isDatabaseBusy(error)) return new ProblemError(503, 'DATABASE_BUSY', 'another process holds the database\'s write lock (a CLI command on this data dir?); nothing was written, retry shortly', {}, { 'retry-after': '1' })
    const pg = postgresProblem(error, o.storage)
    if (pg) return pg
    if (code === 'VALIDATION' || error instanceof ValidationError) return validationProblem(error as ValidationError)
    if (code === 'NOT_FOUND') return noRoute(request)
    if (code === 'PARSE') return new ProblemError(400, 'INVALID_BODY', 'the request body could not be parsed')
    o.log.error({ err: serializeError(error), requestId: rid }, 'unhandled error')
    return new ProblemError(500, 'INTERNAL', 'internal error; the request id identifies it in the logs')
  }

  /** No route for the method and path: 405 with Allow when Elysia's router knows the path for other methods, else 404. */
  function noRoute(request: Request): ProblemError {
    // A body over the JSON limit is refused first, as on every route.
    if (request.method !== 'GET' && declaredOver(request, o.jsonBodyLimit)) return tooLarge(o.jsonBodyLimit)
    const path = new URL(request.url).pathname
    const allow = allowedMethods(path)
    if (allow.length > 0 && !allow.includes(request.method)) {
      return new ProblemError(405, 'METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${path}`, { allow }, { allow: allow.join(', ') })
    }
    return new ProblemError(404, 'ROUTE_NOT_FOUND', `no route for ${request.method} ${path}`)
  }

  /** The methods Elysia's router has for a path (Elysia itself answers 404 for a known path with another method). */
  function allowedMethods(path: string): string[] {
    const exact = app.router.static[path] ?? (path.length > 1 && path.endsWith('/') ? app.router.static[path.slice(0, -1)] : undefined)
    if (exact) return Object.keys(exact)
    return METHODS.filter((m) => app.router.http.find(m, path) !== null)
  }

  /** JSON routes: the declared length against the limit, multipart refused, then the body read within the limit. */
  async function parseJson(c: { request: Request }, contentType: string): Promise<unknown> {
    if (declaredOver(c.request, o.jsonBodyLimit)) throw tooLarge(o.jsonBodyLimit)
    if (contentType.startsWith('multipart/form-data')) throw new ProblemError(415, 'UNSUPPORTED_MEDIA_TYPE', 'multipart/form-data is accepted only by upload routes; send JSON')
    const text = await readText(c.request, o.jsonBodyLimit)
    if (text.trim() === '') return null
    try {
      return JSON.parse(text)
    } catch {
      throw new ProblemError(400, 'INVALID_JSON', 'the request body is not valid JSON')
    }
  }
  /** Upload routes: only the declared length here; the handler reads the body after authentication (HandlerCtx.readBody). */
  const parseUpload = (c: { request: Request }): null => {
    if (declaredOver(c.request, o.uploadBodyLimit)) throw tooLarge(o.uploadBodyLimit)
    return null
  }

  // normalize: false — Elysia validates bodies as declared instead of silently stripping members
  // the schema does not name (http/request-schema.ts gives every body object additionalProperties: false).
  const app = new Elysia({ aot: true, normalize: false })
    .onRequest(function requestStart(c) {
      const x = c as unknown as Ctx
      const sent = x.request.headers.get('x-request-id')
      x.rq = new RequestState(sent && REQUEST_ID_RE.test(sent) ? sent : newRequestId(), x.request, app as never)
      x.set.headers['x-request-id'] = x.rq.requestId
      x.set.headers['x-content-type-options'] = 'nosniff'
    })
    .onError(function problem(c) {
      // The problem document is the answer's value: Elysia maps it like any other, with `set`.
      const x = c as unknown as Ctx
      const p = problemOf(x.code, x.error, x.request, x.rq.requestId)
      x.set.status = p.status
      Object.assign(x.set.headers, p.headers)
      if (isOpenAiPath(x.path)) {
        x.set.headers['content-type'] = 'application/json'
        return openAiErrorBody(p.status, p.code, p.detail, x.rq.requestId, p.extra)
      }
      x.set.headers['content-type'] = 'application/problem+json'
      return problemBody(p.status, p.code, p.detail, x.rq.requestId, p.extra)
    })
    // The last hook of every answer, a problem's too. The metric and the log line are made here and
    // not in onAfterResponse, whose setImmediate per request costs a tenth of a health check
    // (docs/performance.md, "Request path").
    .mapResponse(function requestDone(c) {
      const x = c as unknown as Ctx
      const res = x.responseValue
      // Only a handler's own Response can be a page. Its status is the answer's (Elysia keeps `set.status` for a 200).
      if (res instanceof Response) {
        if (res.status !== 200) x.set.status = res.status
        htmlHeaders(res)
      }
      const rq = x.rq
      const ms = performance.now() - rq.t0
      const status = x.set.status as number
      const route = rq.route ?? (status < 400 ? 'static' : 'unmatched')
      o.metrics.observe(x.request.method, route, status, ms / 1000)
      reqLog(x.request.method, route, status, ms, rq.requestId)
      return res as Response // unchanged, whatever it is: Elysia's error handler answers with what this returns
    })

  for (const def of o.routes) {
    // Credentials are checked in `transform`, i.e. before body/query validation.
    const rule = objectRule(def.body)
    const hook: Record<string, unknown> = {
      transform: def.auth === 'none'
        ? (c: Ctx) => { c.rq.route = def.path; if (rule) assertObjectBody(c.body, rule) }
        : async (c: Ctx) => {
          c.rq.route = def.path
          const principal = o.auth.authenticate(c.request, def, c.set.headers)
          c.principal = principal instanceof Promise ? await principal : principal // no extra turn for a known credential
          if (rule) assertObjectBody(c.body, rule)
        },
    }
    if (def.method !== 'GET') hook.parse = def.upload ? parseUpload : parseJson
    // Elysia compiles (and annotates) its own copies of the enforced schemas (http/request-schema.ts).
    if (def.params) hook.params = validatorSchema(def.params, 'params')
    if (def.query) hook.query = validatorSchema(def.query, 'query')
    if (def.body) hook.body = validatorSchema(def.body, 'body')
    // Elysia parses the query string only for handlers that read `c.query` (its sucrose inference).
    const handler = def.query
      ? (c: Ctx) => run(def, c.rq, c.params, c.query, c.body, c.principal, c.request, c.set, o.uploadBodyLimit)
      : (c: Ctx) => run(def, c.rq, c.params, {}, c.body, c.principal, c.request, c.set, o.uploadBodyLimit)
    app.route(def.method, def.path, handler as never, hook as never)
  }
  return app
}

/** A route's handler with its HandlerCtx. */
function run(def: RouteDef, rq: RequestState, params: unknown, query: unknown, body: unknown, principal: unknown, request: Request, set: HandlerSet, uploadLimit: number): unknown {
  if (def.longLived) rq.holdOpen()
  return def.handler(new HandlerContext(params ?? {}, query, body, principal ?? null, request, set, rq, uploadLimit) as never)
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']

type HandlerSet = { status?: number; headers: Record<string, string | number> }

/** Pages get the UI's security headers (a page that sets its own CSP, like /docs, keeps it). */
function htmlHeaders(res: Response): void {
  if (res.headers.get('content-type')?.startsWith('text/html')) {
    if (!res.headers.has('content-security-policy')) res.headers.set('content-security-policy', UI_CSP)
    res.headers.set('referrer-policy', 'no-referrer')
    res.headers.set('x-frame-options', 'DENY')
  }
}

/** Elysia's validation error as a problem: every failing field, with the problem code its schema names. */
/**
 * PostgreSQL mode's errors a client can act on (docs/scale-out.md, "Faults"): the database
 * unreachable, a statement or lock wait past TASKGATE_DATABASE_TIMEOUT_MS, a deadlock or
 * serialisation failure (the transaction was rolled back: retry), and text with U+0000, which
 * PostgreSQL's text cannot hold (SQLite stores it).
 */
function postgresProblem(error: unknown, storage: StorageMonitor | undefined): ProblemError | null {
  if (error instanceof DatabaseUnavailable) storage?.markFull(error) // work in flight waits for it (src/db/storage.ts)
  if (error instanceof DatabaseUnavailable) return new ProblemError(503, 'DATABASE_UNAVAILABLE', 'the database cannot be reached; nothing was written, retry shortly', {}, { 'retry-after': '2' })
  if (!(error instanceof PgError)) return null
  if (['57014', '55P03', '40001', '40P01'].includes(error.sqlState)) {
    return new ProblemError(503, 'DATABASE_BUSY', 'the database did not finish this in time (a lock held elsewhere, or a conflict); nothing was written, retry shortly', {}, { 'retry-after': '1' })
  }
  if (error.sqlState === '22021' || error.sqlState === '22P05') {
    return new ProblemError(400, 'VALIDATION_FAILED', 'text must not contain the character U+0000 (NUL)', { errors: [{ path: '', message: 'must not contain the character U+0000 (NUL)' }] })
  }
  return null
}

function validationProblem(v: ValidationError): ProblemError {
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
  return new ProblemError(400, code, `invalid ${v.type}: ${errors[0]!.path} ${errors[0]!.message}`, { errors })
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
      throw tooLarge(limit)
    }
    chunks.push(value)
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)
}

function serializeError(e: unknown) {
  return e instanceof Error ? { type: e.name, message: e.message, stack: e.stack } : { message: String(e) }
}
