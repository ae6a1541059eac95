// The one place that decides who is calling. Each route declares which credential kinds it
// accepts (http/route.ts); this module enforces it, checks operator status and admin role, and
// applies the per-key rate limit.
import type { Clock } from '../clock'
import type { ApiKeyRow, KeyService } from '../keys/service'
import { assertActive, type OperatorRow, type OperatorService } from '../operators/service'
import type { TokenService } from '../operators/tokens'
import { forbidden, ProblemError, unauthorized } from './errors'
import { rateLimitHeaders, SlidingWindowLimiter } from './ratelimit'
import type { AuthKind } from './route'

export interface Principal {
  operator: OperatorRow
  via: 'bearer' | 'apiKey'
  key: ApiKeyRow | null
}

interface AuthRule { auth: AuthKind; admin?: boolean; allowInactive?: boolean; queryToken?: boolean }

const KIND_TEXT: Record<AuthKind, string> = {
  none: 'no credential', optional: 'an optional credential', bearer: 'a bearer token (Authorization: Bearer …)',
  apiKey: 'an API key (x-api-key header)', either: 'a bearer token or an API key',
}

export class Authenticator {
  readonly limiter: SlidingWindowLimiter

  constructor(private tokens: TokenService, private operators: OperatorService, private keys: KeyService, clock: Clock) {
    this.limiter = new SlidingWindowLimiter(clock)
  }

  async authenticate(request: Request, rule: AuthRule, headersOut: Record<string, string | number>): Promise<Principal | null> {
    if (rule.auth === 'none') return null
    const authz = request.headers.get('authorization')
    let bearer = authz && /^bearer\s+/i.test(authz) ? authz.replace(/^bearer\s+/i, '').trim() : null
    if (!bearer && rule.queryToken) bearer = new URL(request.url).searchParams.get('access_token')
    const apiKey = request.headers.get('x-api-key')
    const takesBearer = rule.auth === 'bearer' || rule.auth === 'either' || rule.auth === 'optional'
    const takesKey = (rule.auth === 'apiKey' || rule.auth === 'either' || rule.auth === 'optional') && !rule.admin

    let principal: Principal | null = null
    if (takesBearer && bearer) principal = await this.fromBearer(bearer)
    else if (takesKey && apiKey) principal = this.fromApiKey(apiKey, headersOut)
    else if (rule.auth === 'optional') return null
    else if (bearer || apiKey || authz) {
      throw unauthorized('CREDENTIAL_NOT_ACCEPTED', `this endpoint accepts ${KIND_TEXT[rule.admin ? 'bearer' : rule.auth]}`)
    } else throw unauthorized('UNAUTHENTICATED', `authentication required: send ${KIND_TEXT[rule.admin ? 'bearer' : rule.auth]}`)

    if (!rule.allowInactive) assertActive(principal.operator)
    if (rule.admin && principal.operator.role !== 'admin') throw forbidden('ADMIN_REQUIRED', 'this endpoint is for administrators')
    return principal
  }

  private async fromBearer(token: string): Promise<Principal> {
    const claims = await this.tokens.verify(token)
    if (!claims) throw unauthorized('INVALID_TOKEN', 'the bearer token is invalid or expired')
    const operator = this.operators.byId(claims.sub)
    if (!operator || operator.tokenVersion !== claims.tv) throw unauthorized('INVALID_TOKEN', 'the bearer token has been revoked')
    return { operator, via: 'bearer', key: null }
  }

  private fromApiKey(presented: string, headersOut: Record<string, string | number>): Principal {
    const found = this.keys.resolve(presented)
    if (!found) throw unauthorized('INVALID_API_KEY', 'the API key is invalid or has been revoked')
    const { key, operator } = found
    if (key.isTestKey && (key.testUsesRemaining ?? 0) <= 0) throw unauthorized('TEST_KEY_EXHAUSTED', 'this diagnostic test key has no uses left')
    const d = this.limiter.hit(`key:${key.id}`, key.rateLimitRpm)
    const h = rateLimitHeaders(d)
    if (!d.allowed) throw new ProblemError(429, 'RATE_LIMITED', `rate limit of ${key.rateLimitRpm} requests per minute exceeded for this key`, { retryAfterSeconds: d.retryAfter }, h)
    Object.assign(headersOut, h)
    this.keys.touch(key.id)
    return { operator, via: 'apiKey', key }
  }
}
