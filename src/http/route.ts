// Routes are declared as data first (method, path, credentials, schemas, docs) and then bound to
// Elysia by http/app.ts. The same declarations produce the OpenAPI document, so what a route
// accepts and what the docs say cannot drift apart.
import type { Static, TSchema } from '@sinclair/typebox'
import type { Principal } from './auth'

/** Which credentials a route accepts. `optional` = none required, but a valid one is resolved. */
export type AuthKind = 'none' | 'optional' | 'bearer' | 'apiKey' | 'either'

export interface ResponseDoc { description: string; schema?: TSchema; contentType?: string }

export interface HandlerCtx<P, Q, B, A extends AuthKind> {
  params: P
  query: Q
  body: B
  auth: A extends 'none' ? null : A extends 'optional' ? Principal | null : Principal
  request: Request
  requestId: string
  ip: string
  /** The raw body of an `upload` route, read after authentication within the upload limit. */
  readBody: () => Promise<Uint8Array>
  set: { status?: number | string; headers: Record<string, string | number> }
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
  /** Leave out of /openapi.json (UI pages, the docs themselves). */
  hidden?: boolean
  handler: (ctx: HandlerCtx<Static<P>, Static<Q>, Static<B>, A>) => unknown
}

/** Identity function that gives a route declaration its types. */
export function defineRoute<P extends TSchema = TSchema, Q extends TSchema = TSchema, B extends TSchema = TSchema, A extends AuthKind = AuthKind>(def: RouteDef<P, Q, B, A>): RouteDef {
  return def as unknown as RouteDef
}
