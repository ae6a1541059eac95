// Bearer tokens: HS256 JWTs through @elysiajs/jwt, expiry read from the service clock.
import { jwt } from '@elysiajs/jwt'
import { Elysia } from 'elysia'
import type { Clock } from '../clock'

export interface TokenClaims { sub: string; tv: number; typ?: string; exp: number }

export class TokenService {
  private signer: { sign(v: Record<string, unknown>): Promise<string>; verify(t?: string, o?: Record<string, unknown>): Promise<false | Record<string, unknown>> }

  // Verified access tokens → claims, so a busy client's token is checked cryptographically once.
  // Revocation does not depend on it: every request still compares the token version in the database.
  private verified = new Map<string, TokenClaims & Record<string, unknown>>()

  private constructor(private clock: Clock, public ttlSeconds: number, key: CryptoKey) {
    const app = new Elysia().use(jwt({ name: 'jwt', secret: key as unknown as string, alg: 'HS256', iss: 'taskgate' }))
    this.signer = (app.decorator as unknown as { jwt: TokenService['signer'] }).jwt
  }

  /** Imports the HMAC key once (passing raw bytes made jose import it on every verify: ~100 µs). */
  static async create(secret: string, clock: Clock, ttlSeconds: number): Promise<TokenService> {
    const key = await crypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify'])
    return new TokenService(clock, ttlSeconds, key)
  }

  /** Access token for an operator; `tv` is the operator's token version (logout bumps it). */
  async issue(operatorId: string, tokenVersion: number, ttlSeconds = this.ttlSeconds, typ = 'access'): Promise<{ accessToken: string; tokenType: 'Bearer'; expiresIn: number }> {
    const exp = Math.floor(this.clock.now() / 1000) + ttlSeconds
    const accessToken = await this.signer.sign({ sub: operatorId, tv: tokenVersion, typ, exp })
    return { accessToken, tokenType: 'Bearer', expiresIn: ttlSeconds }
  }

  /** Signs a short-lived opaque state (OAuth), verified with verifyState. */
  async signState(data: Record<string, unknown>, ttlSeconds: number): Promise<string> {
    return this.signer.sign({ ...data, typ: 'state', exp: Math.floor(this.clock.now() / 1000) + ttlSeconds })
  }

  /**
   * An access token's claims when it was verified before: the claims (unexpired), null (expired),
   * or undefined when it was not (verify() checks it). Synchronous, so a request whose token is
   * known is authenticated without a turn of the event loop.
   */
  known(token: string): (TokenClaims & Record<string, unknown>) | null | undefined {
    const hit = this.verified.get(token)
    if (!hit) return undefined
    if (hit.exp * 1000 > this.clock.now()) return hit
    this.verified.delete(token)
    return null
  }

  async verify(token: string, typ = 'access'): Promise<(TokenClaims & Record<string, unknown>) | null> {
    if (typ === 'access') {
      const hit = this.known(token)
      if (hit !== undefined) return hit
    }
    const claims = await this.signer.verify(token, { currentDate: this.clock.date(), algorithms: ['HS256'], issuer: 'taskgate' })
    if (!claims || claims.typ !== typ) return null
    if (typ === 'access' && (typeof claims.sub !== 'string' || typeof claims.tv !== 'number')) return null
    if (typ === 'access') {
      if (this.verified.size >= 10_000) this.verified.delete(this.verified.keys().next().value!)
      this.verified.set(token, claims as TokenClaims & Record<string, unknown>)
    }
    return claims as TokenClaims & Record<string, unknown>
  }
}
