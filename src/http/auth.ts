// The one place that decides who is calling. Each route declares which credential kinds it
// accepts (http/route.ts); this module enforces it, checks operator status and admin role,
// applies the rate limits (per key; per operator for bearer tokens), re-validates the credential
// of long-lived streams, and holds the agent-bound key rules (docs/security.md, "An agent key").
import type { Clock } from '../clock'
import { KEY_SERVICE_PREFIX, type ApiKeyRow, type KeyService } from '../keys/service'
import { assertActive, type OperatorRow, type OperatorService } from '../operators/service'
import type { TokenClaims, TokenService } from '../operators/tokens'
import { badRequest, forbidden, ProblemError, unauthorized } from './errors'
import { rateLimitHeaders, setRateLimitHeaders, SlidingWindowLimiter, type WindowStore } from './ratelimit'
import type { StreamGuard } from './sse'

/** What re-validating a principal later needs (the presented key, or the token's version and expiry). */
export type Credential =
  | { kind: 'apiKey'; presented: string }
  | { kind: 'bearer'; tokenVersion: number; expiresAt: number }

export interface Principal {
  operator: OperatorRow
  via: 'bearer' | 'apiKey'
  key: ApiKeyRow | null
  /** Set for principals built from a request; internal ones (the test-run key) have none. */
  credential?: Credential
}

export interface AuthOptions {
  /** Requests per minute per operator with a bearer token. */
  bearerRpm: number
  /** How often open event streams re-check their credential. */
  streamCheckMs: number
  /** Where the request counts live (default: this process's memory; PostgreSQL mode: the database). */
  windows?: WindowStore
}

/** Which credentials a route accepts. `optional` = none required, but a valid one is resolved. */
export type AuthKind = 'none' | 'optional' | 'bearer' | 'apiKey' | 'either'

interface AuthRule { auth: AuthKind; admin?: boolean; allowInactive?: boolean; queryToken?: boolean }

/**
 * When a request sends both a bearer token (Authorization or ?access_token=) and an API key: both
 * are checked, each must be valid, and both must belong to the same operator; otherwise 401
 * (INVALID_TOKEN, INVALID_API_KEY, or CREDENTIAL_CONFLICT for two operators). The credential the
 * operation accepts then acts, the bearer token when it accepts both. Published in the OpenAPI
 * document (info and securitySchemes).
 */
export const BOTH_CREDENTIALS_RULE = 'When a request sends both a bearer token (`Authorization: Bearer`, or `?access_token=` on event streams) and an API key (`x-api-key`), both are checked: each must be valid and both must belong to the same operator, otherwise 401 (`INVALID_TOKEN`, `INVALID_API_KEY`, or `CREDENTIAL_CONFLICT` when they belong to different operators). The credential the operation accepts then acts for the request — the bearer token when it accepts both — and only that one counts against its rate limit. Operations that take no credential ignore both.'

/**
 * An API key may also be sent as `Authorization: Bearer <key>` (a value with the key prefix `tg_`),
 * as OpenAI, MCP and A2A clients send it. Published in the OpenAPI document and docs/api.md.
 */
export const BEARER_KEY_RULE = 'An API key may also be sent as `Authorization: Bearer tg_…` (how OpenAI, MCP and A2A clients send it): on operations that accept an API key it acts exactly as in `x-api-key` (same lookup, rate limit, agent scoping and revocation). On operations that accept only a bearer token it is not a token: 401 `INVALID_TOKEN`. Sent together with `x-api-key`, the two must be the same key; two different keys → 401 (`INVALID_API_KEY` when one is not valid, else `CREDENTIAL_CONFLICT`).'

const KIND_TEXT: Record<AuthKind, string> = {
  none: 'no credential', optional: 'an optional credential', bearer: 'a bearer token (Authorization: Bearer …)',
  apiKey: 'an API key (x-api-key header)', either: 'a bearer token or an API key',
}

/**
 * An agent-bound key acts only for its own agent: naming another agent → 403 AGENT_KEY_MISMATCH.
 * Operator keys and bearer tokens act for any of the operator's agents (ownership is checked by the caller).
 */
export function assertActsFor(p: Principal, agentId: string | null | undefined): void {
  if (p.key?.agentId && agentId != null && agentId !== p.key.agentId) {
    throw forbidden('AGENT_KEY_MISMATCH', 'an agent-bound key can only act for its own agent')
  }
}

/** The agent a request acts for: the one it names (checked with assertActsFor), else the key's own agent. */
export function actingAgent(p: Principal, named: string | null | undefined): string | null {
  assertActsFor(p, named)
  return named ?? p.key?.agentId ?? null
}

/**
 * The agent a door's call acts for (docs/doors.md, "Credentials"): the one named (`named`: header
 * x-taskgate-agent-id, or the door's own field), checked with assertActsFor, else the agent-bound
 * key's own; none → 400 AGENT_ID_REQUIRED. `where` says where a caller names it.
 */
export function doorAgent(p: Principal, named: string | null | undefined, where = 'header x-taskgate-agent-id'): string {
  const agentId = actingAgent(p, named)
  if (!agentId) throw badRequest('AGENT_ID_REQUIRED', `name the agent in ${where} (an agent-bound key acts as its agent)`)
  return agentId
}

/**
 * Whether the caller may read an operator's resource (task, task events, compute job): the same
 * operator, and for an agent-bound key only its own agent's. Callers answer 404 when not.
 */
export function canRead(p: Principal | null | undefined, r: { operatorId: string; agentId: string | null }): boolean {
  if (!p || p.operator.id !== r.operatorId) return false
  return !p.key?.agentId || p.key.agentId === r.agentId
}

export class Authenticator {
  readonly limiter: SlidingWindowLimiter

  constructor(
    private tokens: TokenService, private operators: OperatorService, private keys: KeyService, private clock: Clock,
    private opts: AuthOptions = { bearerRpm: 600, streamCheckMs: 2000 },
  ) {
    this.limiter = new SlidingWindowLimiter(clock, 60_000, opts.windows)
  }

  /**
   * The request's principal (null for public routes, and for optional ones without a credential),
   * or a problem thrown. Synchronous (no turn of the event loop) for an API key and for a bearer
   * token verified before; a promise otherwise.
   */
  authenticate(request: Request, rule: AuthRule, headersOut: Record<string, string | number>): Principal | null | Promise<Principal | null> {
    if (rule.auth === 'none') return null
    const authz = request.headers.get('authorization')
    const headerBearer = authz && /^bearer\s+/i.test(authz) ? authz.replace(/^bearer\s+/i, '').trim() : null
    let bearer = headerBearer
    if (!bearer && rule.queryToken) bearer = new URL(request.url).searchParams.get('access_token')
    const apiKey = request.headers.get('x-api-key')
    const takesBearer = rule.auth === 'bearer' || rule.auth === 'either' || rule.auth === 'optional'
    const takesKey = (rule.auth === 'apiKey' || rule.auth === 'either' || rule.auth === 'optional') && !rule.admin

    // An API key sent as `Authorization: Bearer tg_…` (how OpenAI, MCP and A2A clients send it):
    // on routes that take a key it is that key, as if sent in x-api-key (BEARER_KEY_RULE). On
    // routes that do not, it stays a bearer token and fails as any bad token does (INVALID_TOKEN).
    if (takesKey && headerBearer?.startsWith(KEY_SERVICE_PREFIX)) {
      if (apiKey !== null && apiKey !== headerBearer) {
        // Two different keys: each must be valid (checked, not counted); which one would act is not theirs to leave open.
        const viaBearer = this.fromApiKey(headerBearer, headersOut, false)
        const viaKey = this.fromApiKey(apiKey, headersOut, false)
        throw unauthorized('CREDENTIAL_CONFLICT', viaBearer.operator.id !== viaKey.operator.id
          ? 'the API keys in Authorization and x-api-key belong to different operators; send one credential'
          : 'Authorization and x-api-key carry two different API keys; send one')
      }
      return this.admit(this.fromApiKey(headerBearer, headersOut), rule)
    }

    if (bearer && apiKey) {
      // Both sent (BOTH_CREDENTIALS_RULE): each must be valid and both must belong to the same
      // operator, else 401. The one the route accepts acts (the bearer token when it takes both);
      // only that one is counted against its rate limit.
      const useBearer = takesBearer
      if (!useBearer && !takesKey) throw unauthorized('CREDENTIAL_NOT_ACCEPTED', `this endpoint accepts ${KIND_TEXT[rule.admin ? 'bearer' : rule.auth]}`)
      const both = (viaBearer: Principal) => {
        const viaKey = this.fromApiKey(apiKey, headersOut, !useBearer)
        if (viaBearer.operator.id !== viaKey.operator.id) throw unauthorized('CREDENTIAL_CONFLICT', 'the bearer token and the API key belong to different operators; send one credential')
        return this.admit(useBearer ? viaBearer : viaKey, rule)
      }
      const viaBearer = this.fromBearer(bearer, headersOut, useBearer)
      return viaBearer instanceof Promise ? viaBearer.then(both) : both(viaBearer)
    }
    if (takesBearer && bearer) {
      const viaBearer = this.fromBearer(bearer, headersOut)
      return viaBearer instanceof Promise ? viaBearer.then((p) => this.admit(p, rule)) : this.admit(viaBearer, rule)
    }
    if (takesKey && apiKey) return this.admit(this.fromApiKey(apiKey, headersOut), rule)
    if (rule.auth === 'optional') return null
    if (bearer || apiKey || authz) throw unauthorized('CREDENTIAL_NOT_ACCEPTED', `this endpoint accepts ${KIND_TEXT[rule.admin ? 'bearer' : rule.auth]}`)
    throw unauthorized('UNAUTHENTICATED', `authentication required: send ${KIND_TEXT[rule.admin ? 'bearer' : rule.auth]}`)
  }

  /** The checks every principal passes once its credential is valid: an active operator, an admin for admin routes. */
  private admit(principal: Principal, rule: AuthRule): Principal {
    if (!rule.allowInactive) assertActive(principal.operator)
    if (rule.admin && principal.operator.role !== 'admin') throw forbidden('ADMIN_REQUIRED', 'this endpoint is for administrators')
    return principal
  }

  /**
   * Whether a principal's credential still holds, with the same cached lookups as a request: the
   * key is not revoked (or the token version unchanged and the token not expired) and the operator
   * is still ACTIVE. Principals without a credential (internal ones) hold while the operator is active.
   */
  stillValid(p: Principal): boolean {
    const c = p.credential
    if (c?.kind === 'apiKey') {
      const found = this.keys.resolve(c.presented)
      if (!found || found.key.id !== p.key?.id) return false
    } else if (c?.kind === 'bearer') {
      if (c.expiresAt <= this.clock.now()) return false
    }
    const op = this.operators.byId(p.operator.id)
    if (!op || op.status !== 'ACTIVE') return false
    if (c?.kind === 'bearer' && op.tokenVersion !== c.tokenVersion) return false
    return true
  }

  /** How an event stream opened by `p` watches its end: the client leaving, or the credential failing. */
  streamGuard(p: Principal, signal: AbortSignal): StreamGuard {
    return { signal, checkMs: this.opts.streamCheckMs, stillValid: () => this.stillValid(p) }
  }

  /** `use`: the credential acts for this request (rate-limited); else it is only checked. */
  private fromBearer(token: string, headersOut: Record<string, string | number>, use = true): Principal | Promise<Principal> {
    const known = this.tokens.known(token)
    return known === undefined ? this.tokens.verify(token).then((claims) => this.bearerPrincipal(claims, headersOut, use)) : this.bearerPrincipal(known, headersOut, use)
  }

  private bearerPrincipal(claims: TokenClaims | null, headersOut: Record<string, string | number>, use: boolean): Principal {
    if (!claims) throw unauthorized('INVALID_TOKEN', 'the bearer token is invalid or expired')
    const operator = this.operators.byId(claims.sub)
    if (!operator || operator.tokenVersion !== claims.tv) throw unauthorized('INVALID_TOKEN', 'the bearer token has been revoked')
    if (use) this.limit(`bearer:${operator.id}`, this.opts.bearerRpm, 'for this operator\'s bearer tokens', headersOut)
    return { operator, via: 'bearer', key: null, credential: { kind: 'bearer', tokenVersion: claims.tv, expiresAt: claims.exp * 1000 } }
  }

  private fromApiKey(presented: string, headersOut: Record<string, string | number>, use = true): Principal {
    const found = this.keys.resolve(presented)
    if (!found) throw unauthorized('INVALID_API_KEY', 'the API key is invalid or has been revoked')
    const { key, operator } = found
    if (key.isTestKey && (key.testUsesRemaining ?? 0) <= 0) throw unauthorized('TEST_KEY_EXHAUSTED', 'this diagnostic test key has no uses left')
    if (use) {
      this.limit(`key:${key.id}`, key.rateLimitRpm, 'for this key', headersOut)
      this.keys.touch(key.id)
    }
    return { operator, via: 'apiKey', key, credential: { kind: 'apiKey', presented } }
  }

  /** Sliding-window limit: RateLimit-* headers on every answer, 429 RATE_LIMITED with Retry-After past it. */
  private limit(bucket: string, rpm: number, scope: string, headersOut: Record<string, string | number>): void {
    const d = this.limiter.hit(bucket, rpm)
    if (!d.allowed) throw new ProblemError(429, 'RATE_LIMITED', `rate limit of ${rpm} requests per minute exceeded ${scope}`, { retryAfterSeconds: d.retryAfter }, rateLimitHeaders(d))
    setRateLimitHeaders(headersOut, d)
  }
}
