// Bearer tokens: HS256 JWTs through @elysiajs/jwt, expiry read from the service clock.
import { jwt } from '@elysiajs/jwt'
import { Elysia } from 'elysia'
import type { Clock } from '../clock'

export interface TokenClaims { sub: string; tv: number; typ?: string; exp: number }

export class TokenService {
  private signer: { sign(v: Record<string, unknown>): Promise<string>; verify(t?: string, o?: Record<string, unknown>): Promise<false | Record<string, unknown>> }

  constructor(secret: string, private clock: Clock, public ttlSeconds: number) {
    const app = new Elysia().use(jwt({ name: 'jwt', secret, alg: 'HS256', iss: 'taskgate' }))
    this.signer = (app.decorator as unknown as { jwt: TokenService['signer'] }).jwt
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

  async verify(token: string, typ = 'access'): Promise<(TokenClaims & Record<string, unknown>) | null> {
    const claims = await this.signer.verify(token, { currentDate: this.clock.date(), algorithms: ['HS256'], issuer: 'taskgate' })
    if (!claims || claims.typ !== typ) return null
    if (typ === 'access' && (typeof claims.sub !== 'string' || typeof claims.tv !== 'number')) return null
    return claims as TokenClaims & Record<string, unknown>
  }
}
