// RFC 9457 problem+json: the only error shape the service answers with (docs/api.md, "Errors and statuses").
import type { ProblemCode } from './problem-codes'

export interface FieldError { path: string; message: string }

const TITLES: Record<number, string> = {
  400: 'Bad Request', 401: 'Unauthorized', 402: 'Payment Required', 403: 'Forbidden', 404: 'Not Found',
  405: 'Method Not Allowed', 406: 'Not Acceptable', 409: 'Conflict', 410: 'Gone', 413: 'Content Too Large',
  415: 'Unsupported Media Type', 422: 'Unprocessable Content', 429: 'Too Many Requests',
  500: 'Internal Server Error', 503: 'Service Unavailable', 507: 'Insufficient Storage',
}

export class ProblemError extends Error {
  constructor(
    public status: number,
    public code: ProblemCode,
    public detail: string,
    public extra: Record<string, unknown> = {},
    public headers: Record<string, string> = {},
  ) {
    super(detail)
  }
}

export const badRequest = (code: ProblemCode, detail: string, extra?: Record<string, unknown>) => new ProblemError(400, code, detail, extra)
export const unauthorized = (code: ProblemCode, detail: string) =>
  new ProblemError(401, code, detail, {}, { 'www-authenticate': 'Bearer realm="taskgate", ApiKey header="x-api-key"' })
export const forbidden = (code: ProblemCode, detail: string, extra?: Record<string, unknown>) => new ProblemError(403, code, detail, extra)
export const notFound = (what = 'resource') => new ProblemError(404, 'NOT_FOUND', `${what} not found`)
/** 429 with `retryAfterSeconds` in the body and the matching Retry-After header. */
export const tooManyRequests = (code: ProblemCode, detail: string, retryAfterSeconds: number, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) => {
  const wait = Math.max(1, Math.ceil(retryAfterSeconds))
  return new ProblemError(429, code, detail, { retryAfterSeconds: wait, ...extra }, { 'retry-after': String(wait), ...headers })
}
export const conflict = (code: ProblemCode, detail: string, extra?: Record<string, unknown>) => new ProblemError(409, code, detail, extra)

export function problemBody(status: number, code: ProblemCode, detail: string, requestId: string, extra: Record<string, unknown> = {}) {
  return {
    type: `urn:taskgate:problem:${code.toLowerCase()}`,
    title: TITLES[status] ?? 'Error',
    status,
    detail,
    code,
    requestId,
    ...extra,
  }
}

export function problemResponse(status: number, code: ProblemCode, detail: string, requestId: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(problemBody(status, code, detail, requestId, extra)), {
    status,
    headers: { 'content-type': 'application/problem+json', 'x-request-id': requestId, 'x-content-type-options': 'nosniff', ...headers },
  })
}
