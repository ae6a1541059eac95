// Binds route declarations to Elysia and wraps every request with: request id, body-size limits,
// problem+json errors, one log line, and metrics.
import { Elysia, ValidationError } from 'elysia'
import { requestLogger, type Logger } from '../log'
import type { Authenticator } from './auth'
import { ProblemError, problemResponse, type FieldError } from './errors'
import type { HttpMetrics } from './metrics'
import type { RouteDef } from './route'

export interface RequestInfo { requestId: string; route: string | null; readonly ip: string }

const requestInfo = new WeakMap<Request, RequestInfo>()
export const infoOf = (r: Request): RequestInfo => requestInfo.get(r) ?? { requestId: 'unknown', route: null, ip: '' }

const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/

export interface HttpOptions {
  routes: RouteDef[]
  auth: Authenticator
  log: Logger
  metrics: HttpMetrics
  jsonBodyLimit: number
  uploadBodyLimit: number
}

interface CompiledRoute { method: string; re: RegExp; path: string }

export function createHttp(o: HttpOptions) {
  const compiled: CompiledRoute[] = o.routes.map((r) => ({
    method: r.method,
    path: r.path,
    re: new RegExp('^' + r.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z0-9_]+/g, '[^/]+').replace(/\\\*$/, '.*') + '/?$'),
  }))

  const app = new Elysia({ aot: true })
    .onParse(async ({ request, contentType }) => {
      if (contentType?.startsWith('multipart/form-data')) return undefined
      const text = await readLimited(request, o.jsonBodyLimit)
      if (text.trim() === '') return null
      try {
        return JSON.parse(text)
      } catch {
        throw new ProblemError(400, 'INVALID_JSON', 'the request body is not valid JSON')
      }
    })
    .onError(({ code, error, request }) => {
      const rid = infoOf(request).requestId
      // Elysia wraps errors thrown while parsing the body in a ParseError.
      if (code === 'PARSE' && (error as Error).cause instanceof ProblemError) error = (error as Error).cause as ProblemError
      if (error instanceof ProblemError) return problemResponse(error.status, error.code, error.detail, rid, error.extra, error.headers)
      if (code === 'VALIDATION' || error instanceof ValidationError) {
        const v = error as ValidationError
        const errors: FieldError[] = []
        try {
          for (const e of v.all) {
            const path = `/${v.type}${'path' in e ? e.path : ''}`
            if (!errors.some((x) => x.path === path)) errors.push({ path, message: 'message' in e ? String(e.message) : 'invalid value' })
          }
        } catch { /* fall back to the summary below */ }
        if (errors.length === 0) errors.push({ path: `/${v.type}`, message: 'invalid value' })
        return problemResponse(400, 'VALIDATION_FAILED', `invalid ${v.type}: ${errors[0]!.path} ${errors[0]!.message}`, rid, { errors })
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
    })

  for (const def of o.routes) {
    // Credentials are checked in `transform`, i.e. before body/query validation. Public routes only
    // record their route there (for logs and metrics of validation errors), when they validate input.
    const validates = !!(def.params || def.query || def.body)
    const hook: Record<string, unknown> = def.auth === 'none' ? (validates ? { transform: (c: { request: Request }) => { infoOf(c.request).route = def.path } } : {}) : {
      transform: async (c: { request: Request; set: { headers: Record<string, string | number> } } & Record<string, unknown>) => {
        infoOf(c.request).route = def.path
        c.principal = await o.auth.authenticate(c.request, def, c.set.headers)
      },
    }
    if (def.params) hook.params = def.params
    if (def.query) hook.query = def.query
    if (def.body) hook.body = def.body
    app.route(def.method, def.path, ((c: Record<string, unknown> & { request: Request }) => {
      const info = infoOf(c.request)
      info.route = def.path
      return def.handler({
        params: c.params, query: c.query, body: c.body, auth: c.principal as never,
        request: c.request, requestId: info.requestId, get ip() { return info.ip }, set: c.set,
      } as never)
    }) as never, hook as never)
  }
  app.compile()

  const reqLog = requestLogger(o.log)

  async function fetch(request: Request, server: { requestIP(r: Request): { address: string } | null }): Promise<Response> {
    const t0 = performance.now()
    const sent = request.headers.get('x-request-id')
    let ip: string | undefined
    const info: RequestInfo = {
      requestId: sent && REQUEST_ID_RE.test(sent) ? sent : crypto.randomUUID(), route: null,
      get ip() { return (ip ??= server.requestIP(request)?.address ?? '') }, // only the routes that need it pay for it
    }
    requestInfo.set(request, info)
    let res: Response
    const len = Number(request.headers.get('content-length') ?? 0)
    const limit = request.headers.get('content-type')?.startsWith('multipart/form-data') ? o.uploadBodyLimit : o.jsonBodyLimit
    if (len > limit) res = problemResponse(413, 'BODY_TOO_LARGE', `request body exceeds ${limit} bytes`, info.requestId, { limit })
    else res = await app.handle(request)
    res.headers.set('x-request-id', info.requestId)
    const ms = performance.now() - t0
    const route = info.route ?? (res.status < 400 ? 'static' : 'unmatched')
    o.metrics.observe(request.method, route, res.status, ms / 1000)
    reqLog.info({ method: request.method, route, status: res.status, ms: Math.round(ms * 100) / 100, requestId: info.requestId }, 'request')
    return res
  }

  return { app, fetch }
}

/** Reads a request body as text, failing with 413 once it grows past `limit` bytes. */
async function readLimited(request: Request, limit: number): Promise<string> {
  if (!request.body) return ''
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
  return Buffer.concat(chunks).toString('utf8')
}

function serializeError(e: unknown) {
  return e instanceof Error ? { type: e.name, message: e.message, stack: e.stack } : { message: String(e) }
}
