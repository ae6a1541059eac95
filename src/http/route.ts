// Routes are declared as data first (method, path, credentials, schemas, docs) and then bound to
// Elysia by http/app.ts. The same declarations produce the OpenAPI document, so what a route
// accepts and what the docs say cannot drift apart.
import type { Static, TSchema } from '@sinclair/typebox'
import type { AuthKind, Principal } from './auth'
import type { ProblemCode } from './problem-codes'

export type { AuthKind } from './auth'

/** A response header: a description, or a name from http/openapi.ts HEADERS (e.g. 'Location'). */
export type HeaderDoc = string | { description: string; schema?: Record<string, unknown>; required?: boolean }

/** One event of a text/event-stream response: what `event:` names and what `data:` holds. */
export interface SseEventDoc { description: string; data?: TSchema }

/**
 * An OpenAPI link from a response to an operation that uses what it returned. `route` names the
 * target as `METHOD /path` of its declaration (e.g. 'GET /api/v1/tasks/:id'); values are OpenAPI
 * runtime expressions such as '$response.body#/id'.
 */
export interface LinkDoc { route: string; parameters?: Record<string, string>; requestBody?: unknown; description?: string }

export interface ResponseDoc {
  description: string
  schema?: TSchema
  contentType?: string
  /** Several media types, each with its schema (null: bytes of that type). */
  content?: Record<string, TSchema | null>
  /** Response headers besides the ones every response carries (x-request-id, RateLimit-*). */
  headers?: Record<string, HeaderDoc>
  /** text/event-stream responses: the events, by `event:` name (the document describes each as an OpenAPI 3.2 itemSchema variant: http/openapi.ts sseItemSchema). */
  events?: Record<string, SseEventDoc>
  links?: Record<string, LinkDoc>
  /**
   * TaskGate problem codes this success answer may carry inside its body, not as a problem: the
   * JSON-RPC errors of /a2a name them in their `data` (published as this response's `x-problem-codes`).
   */
  problemCodes?: readonly ProblemCode[]
}

/** Request headers a route reads (documented as header parameters; see http/openapi.ts REQUEST_HEADERS). */
export type RequestHeader = 'Idempotency-Key' | 'PAYMENT-SIGNATURE' | 'X-PAYMENT' | 'X-402-Payment' | 'Last-Event-ID' | 'Accept' | 'x-taskgate-agent-id' | 'x-taskgate-task-type' | 'x-taskgate-action'

export interface HandlerCtx<P, Q, B, A extends AuthKind> {
  params: P
  query: Q
  body: B
  auth: A extends 'none' ? null : A extends 'optional' ? Principal | null : Principal
  request: Request
  requestId: string
  /** The client's address, read when first asked for (a system call, ~1 µs); do not destructure it where it is rarely needed. */
  ip: string
  /** The raw body of an `upload` route, read after authentication within the upload limit. */
  readBody: () => Promise<Uint8Array>
  set: { status?: number; headers: Record<string, string | number> }
}

export interface RouteDef<P extends TSchema = TSchema, Q extends TSchema = TSchema, B extends TSchema = TSchema, A extends AuthKind = AuthKind> {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  path: string // Elysia syntax: /api/v1/operator/keys/:keyId
  auth: A
  /** Admin role required (bearer only). */
  admin?: boolean
  /** Reachable by SUSPENDED and BANNED operators (profile, export). */
  allowInactive?: boolean
  /** Also accept the bearer token as ?access_token= (EventSource clients). */
  queryToken?: boolean
  /** Takes multipart/form-data uploads (the upload body limit applies; the body is read after authentication). */
  upload?: boolean
  /** Streams or waits longer than the idle timeout (event streams, ?wait=): the connection's idle timeout is lifted. */
  longLived?: boolean
  summary: string
  description?: string
  tags: string[]
  params?: P
  query?: Q
  body?: B
  /** Documented responses; the success one first. Error responses are added automatically. */
  responses: Record<number, ResponseDoc>
  /**
   * Problem statuses this route answers besides the ones its declaration implies (http/openapi.ts
   * derives 400 VALIDATION_FAILED, 401/403/429 of its credentials, 413/415, 507 STORAGE_FULL …),
   * each with its problem codes (http/problem-codes.ts).
   */
  errors?: ErrorMap
  /** Request headers this route reads. */
  requestHeaders?: readonly RequestHeader[]
  /** Whether the route writes to storage (507 STORAGE_FULL on a full disk). Default: every method but GET. */
  writes?: boolean
  /** Security alternatives of a route that checks a credential of its own (auth 'none', e.g. the metrics token). */
  ownSecurity?: Record<string, string[]>[]
  /** Leave out of /openapi.json (UI pages, the docs themselves). */
  hidden?: boolean
  handler: (ctx: HandlerCtx<Static<P>, Static<Q>, Static<B>, A>) => unknown
}

/** Identity function that gives a route declaration its types. */
export function defineRoute<P extends TSchema = TSchema, Q extends TSchema = TSchema, B extends TSchema = TSchema, A extends AuthKind = AuthKind>(def: RouteDef<P, Q, B, A>): RouteDef {
  return def as unknown as RouteDef
}

export type ErrorMap = Partial<Record<number, readonly ProblemCode[]>>

/** Merges `errors` declarations (e.g. a route's own codes and the payment gate's). */
export function errorsOf(...parts: ErrorMap[]): ErrorMap {
  const out: Record<number, ProblemCode[]> = {}
  for (const p of parts) for (const [k, v] of Object.entries(p)) out[Number(k)] = [...new Set([...(out[Number(k)] ?? []), ...(v ?? [])])]
  return out
}
