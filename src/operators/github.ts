// GitHub OAuth (authorization code flow). Endpoints are configurable so tests and GitHub
// Enterprise Server can point elsewhere (docs/foundation.md, "Logins").
import type { Config } from '../config'
import { ProblemError } from '../http/errors'

export interface GithubUser { id: string; login: string; name: string | null; email: string | null }

export class GithubClient {
  constructor(private cfg: Config['github']) {}

  authorizeUrl(redirectUri: string, state: string): string {
    const u = new URL(`${this.cfg.webUrl}/login/oauth/authorize`)
    u.searchParams.set('client_id', this.cfg.clientId)
    u.searchParams.set('redirect_uri', redirectUri)
    u.searchParams.set('scope', 'read:user user:email')
    u.searchParams.set('state', state)
    u.searchParams.set('allow_signup', 'false')
    return u.toString()
  }

  async exchange(code: string, redirectUri: string): Promise<GithubUser> {
    const tokenRes = await fetch(`${this.cfg.webUrl}/login/oauth/access_token`, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: this.cfg.clientId, client_secret: this.cfg.clientSecret, code, redirect_uri: redirectUri }),
      signal: AbortSignal.timeout(10_000),
    }).catch(() => null)
    const tokenJson = (await tokenRes?.json().catch(() => null)) as { access_token?: string; error?: string } | null
    if (!tokenRes?.ok || !tokenJson?.access_token) {
      throw new ProblemError(401, 'OAUTH_FAILED', `GitHub did not accept the authorization code${tokenJson?.error ? ` (${tokenJson.error})` : ''}`)
    }
    const userRes = await fetch(`${this.cfg.apiUrl}/user`, {
      headers: { accept: 'application/vnd.github+json', authorization: `Bearer ${tokenJson.access_token}`, 'user-agent': 'taskgate' },
      signal: AbortSignal.timeout(10_000),
    }).catch(() => null)
    const u = (await userRes?.json().catch(() => null)) as { id?: number | string; login?: string; name?: string; email?: string } | null
    if (!userRes?.ok || u?.id == null || typeof u.login !== 'string') throw new ProblemError(401, 'OAUTH_FAILED', 'could not read the GitHub user')
    return { id: String(u.id), login: u.login, name: u.name ?? null, email: u.email ?? null }
  }
}
