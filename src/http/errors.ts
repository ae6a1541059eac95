// RFC 9457 problem+json: the error shape of the service (docs/api.md, "Errors and statuses"), and
// the same problem in OpenAI's error shape on the OpenAI-compatible routes (docs/doors.md, "Errors").
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

/** A field path as OpenAI names a `param`: `/body/messages/0/content` → `messages.0.content`. */
const paramOf = (path: string | undefined): string | null => path?.replace(/^\/(body\/)?/, '').replaceAll('/', '.') || null

/**
 * The OpenAI-compatible routes (docs/doors.md): their errors, unmatched paths under /v1/ included,
 * take OpenAI's shape; /v1/prior/ (the upload route kept from the anchor API) keeps problem+json.
 */
export const isOpenAiPath = (path: string): boolean => path.startsWith('/v1/') && !path.startsWith('/v1/prior/')

/** OpenAI's error `type` for a status (what its clients map to their error classes). */
function openAiType(status: number): string {
  if (status === 401) return 'authentication_error'
  if (status === 402) return 'insufficient_quota'
  if (status === 403) return 'permission_error'
  if (status === 404) return 'not_found_error'
  if (status === 429) return 'rate_limit_error'
  if (status >= 500) return status === 503 || status === 507 ? 'service_unavailable' : 'server_error'
  return 'invalid_request_error'
}

/**
 * A problem in OpenAI's error shape: `{ error: { message, type, code, param } }`, with TaskGate's
 * code in lower case. A 402 carries the x402 payment requirements in `x402`; a validation error
 * names its first field in `param` and lists all of them in `errors`; an answer about a recorded
 * task names it in `taskgate` (`taskId`, `approvalId`, `failureCode`).
 */
export function openAiErrorBody(status: number, code: ProblemCode, detail: string, requestId: string, extra: Record<string, unknown> = {}) {
  const errors = extra.errors as FieldError[] | undefined
  const { x402Version, accepts, needed, balance, taskId, approvalId, failureCode } = extra as Record<string, unknown>
  return {
    error: { message: detail, type: openAiType(status), code: code.toLowerCase(), param: paramOf(errors?.[0]?.path), request_id: requestId },
    ...(errors ? { errors } : {}),
    ...(taskId ? { taskgate: { taskId, ...(approvalId ? { approvalId } : {}), ...(failureCode ? { failureCode } : {}) } } : {}),
    ...(status === 402 && accepts ? { x402: { x402Version, accepts, needed, balance } } : {}),
  }
}
