// HTTP for identity: login, signup, logout, profile, first-run setup, GitHub OAuth, admin.
import { t } from 'elysia'
import type { Services } from '../services'
import { ProblemError, forbidden, notFound } from '../http/errors'
import { defineRoute } from '../http/route'
import { Success, TierEnum } from '../http/schemas'
import { randomToken } from '../lib/ids'
import { LoginGuard } from './login-guard'
import { effectiveTier } from './service'
import {
  AdminOperator, AdminOperatorPatch, GithubCallbackQuery, GithubStartQuery, LoginBody, OperatorIdParams,
  OperatorProfile, SetupBody, SignupBody, TokenResponse,
} from './schema'

const OAUTH_COOKIE = 'tg_oauth'

export function operatorRoutes(s: Services) {
  const tag = ['Auth']
  const issue = (op: { id: string; tokenVersion: number }) => s.tokens.issue(op.id, op.tokenVersion)
  const lim = s.config.login
  const guard = new LoginGuard(s.clock, lim, s.rateWindows) // sign-in and sign-up brute-force limits (docs/foundation.md, "Logins")

  return [
    defineRoute({
      method: 'GET', path: '/api/v1/auth/options', auth: 'none', tags: tag,
      summary: 'Sign-in options (setup pending, sign-up, GitHub)',
      responses: { 200: { description: 'options', schema: t.Object({ setupRequired: t.Boolean(), signup: t.Boolean(), github: t.Boolean(), phase: t.String() }) } },
      handler: () => ({ setupRequired: s.setup.pending, signup: s.config.signup, github: s.config.github.enabled, phase: s.config.phase }),
    }),
    defineRoute({
      method: 'POST', path: '/api/v1/setup', auth: 'none', tags: tag, body: SetupBody,
      summary: 'Create the first (admin) operator with the one-time setup token printed at start',
      errors: { 400: ['INVALID_LOGIN', 'WEAK_PASSWORD'], 401: ['INVALID_SETUP_TOKEN'], 409: ['SETUP_COMPLETE', 'LOGIN_TAKEN'] },
      responses: { 201: { description: 'admin created; signed in', schema: TokenResponse } },
      handler: async ({ body, set }) => {
        if (!s.setup.pending) throw new ProblemError(409, 'SETUP_COMPLETE', 'setup is already complete; sign in instead')
        s.setup.check(body.token)
        const op = await s.operators.createFirstAdmin({ login: body.login, password: body.password, email: body.email, displayName: body.displayName })
        s.setup.close()
        s.log.info({ operatorId: op.id }, 'first operator created through setup')
        set.status = 201
        return issue(op)
      },
    }),
    defineRoute({
      method: 'POST', path: '/api/v1/auth/login', auth: 'none', tags: tag, body: LoginBody,
      summary: 'Sign in with login and password',
      description: `Wrong password and unknown login get the same 401 INVALID_CREDENTIALS. Brute-force limits per sliding 15 minutes: ${lim.failuresPerLoginAddress} failures for one login from one client address, ${lim.failuresPerLogin} for one login from all addresses, ${lim.failuresPerAddress} from one address for any login. Each attempt is counted as a failure before the password is checked (so parallel guesses cannot slip through) and given back when the password is right. Past a limit every attempt in that scope, the right password included, gets 429 TOO_MANY_LOGIN_ATTEMPTS with \`Retry-After\`, \`retryAfterSeconds\` and RateLimit-* headers; \`taskgate token --login <login>\` on the server still mints a token. A body refused by validation (400) or a 429 counts toward nothing.`,
      writes: false, // failed attempts are counted in memory: sign-in works on a full disk
      errors: { 401: ['INVALID_CREDENTIALS'], 429: ['TOO_MANY_LOGIN_ATTEMPTS'] },
      responses: { 200: { description: 'signed in', schema: TokenResponse } },
      handler: async ({ body, ip }) => {
        const slot = guard.reserveLogin(s.operators.normalizeLogin(body.login), ip) // counted before the slow check; 429 when exhausted
        let op
        try { op = await s.operators.checkPassword(body.login, body.password) } catch (e) { slot.release(); throw e }
        if (!op) throw new ProblemError(401, 'INVALID_CREDENTIALS', 'login or password is wrong') // the slot stays counted
        slot.release() // a success is not a failure (and wipes nothing else)
        return issue(op)
      },
    }),
    defineRoute({
      method: 'POST', path: '/api/v1/auth/signup', auth: 'none', tags: tag, body: SignupBody,
      summary: 'Create an operator account (when open sign-up is enabled)',
      description: `At most ${lim.signupsPerAddressPerHour} accepted sign-ups per client address per sliding hour; past that, 429 SIGNUP_RATE_LIMITED with \`Retry-After\` and \`retryAfterSeconds\`. Refused sign-ups (400, 409 LOGIN_TAKEN, 429) do not count.`,
      errors: { 400: ['INVALID_LOGIN', 'WEAK_PASSWORD'], 403: ['SIGNUP_DISABLED'], 409: ['LOGIN_TAKEN'], 429: ['SIGNUP_RATE_LIMITED'] },
      responses: { 201: { description: 'created; signed in', schema: TokenResponse } },
      handler: async ({ body, set, ip }) => {
        if (!s.config.signup) throw forbidden('SIGNUP_DISABLED', 'open sign-up is disabled on this server; ask an administrator for an account')
        const slot = guard.reserveSignup(ip) // reserved before the slow hash; given back unless the account is created
        let op
        try { op = await s.operators.create({ login: body.login, password: body.password, email: body.email, displayName: body.displayName }) } catch (e) { slot.release(); throw e }
        set.status = 201
        return issue(op)
      },
    }),
    defineRoute({
      method: 'POST', path: '/api/v1/auth/logout', auth: 'bearer', allowInactive: true, tags: tag,
      summary: 'Sign out everywhere: every bearer token of this operator stops working',
      responses: { 200: { description: 'signed out', schema: Success } },
      handler: ({ auth }) => { s.operators.bumpTokenVersion(auth.operator.id); return { success: true } },
    }),
    defineRoute({
      method: 'GET', path: '/api/v1/auth/me', auth: 'bearer', allowInactive: true, tags: tag,
      summary: 'The signed-in operator profile',
      responses: { 200: { description: 'profile', schema: OperatorProfile } },
      handler: ({ auth }) => s.operators.profile(auth.operator),
    }),
    defineRoute({
      method: 'GET', path: '/api/v1/whoami', auth: 'either', tags: tag,
      summary: 'Who is calling: resolves a bearer token or an API key',
      description: 'Handy for checking a key from a script. The RateLimit-* headers show the budget of the key (API key) or of the operator (bearer token).',
      responses: { 200: { description: 'caller', schema: t.Object({ operatorId: t.String(), identityLogin: t.String(), effectiveTier: TierEnum, via: t.Union([t.Literal('bearer'), t.Literal('apiKey')]), keyId: t.Union([t.String(), t.Null()]), agentId: t.Union([t.String(), t.Null()]) }) } },
      handler: ({ auth }) => ({
        operatorId: auth.operator.id, identityLogin: auth.operator.login, effectiveTier: effectiveTier(auth.operator),
        via: auth.via, keyId: auth.key?.id ?? null, agentId: auth.key?.agentId ?? null,
      }),
    }),
    defineRoute({
      method: 'GET', path: '/api/v1/auth/github', auth: 'none', tags: tag, query: GithubStartQuery,
      summary: 'Start GitHub sign-in (302 to GitHub)',
      description: 'Available when TASKGATE_GITHUB_CLIENT_ID and _SECRET are set. `?ui=1` makes the callback redirect to the admin UI with the token in the URL fragment.',
      errors: s.github ? {} : { 404: ['NOT_FOUND'] }, // GitHub sign-in not configured
      responses: { 302: { description: 'redirect to GitHub', headers: { Location: 'Location', 'Set-Cookie': 'Set-Cookie' } } },
      handler: async ({ query, set }) => {
        if (!s.github) throw notFound('GitHub sign-in')
        const nonce = randomToken(16)
        const state = await s.tokens.signState({ n: nonce, ui: query.ui === '1' }, 600)
        set.status = 302
        set.headers.location = s.github.authorizeUrl(`${s.baseUrl()}/api/v1/auth/github/callback`, state)
        set.headers['set-cookie'] = `${OAUTH_COOKIE}=${nonce}; Path=/api/v1/auth/github; Max-Age=600; HttpOnly; SameSite=Lax`
        return ''
      },
    }),
    defineRoute({
      method: 'GET', path: '/api/v1/auth/github/callback', auth: 'none', tags: tag, query: GithubCallbackQuery,
      summary: 'GitHub OAuth callback: answers with a bearer token (JSON), or redirects to the UI',
      writes: true, // creates the operator on a first sign-in
      errors: s.github ? { 400: ['OAUTH_STATE_INVALID'], 401: ['OAUTH_DENIED', 'OAUTH_FAILED'], 403: ['SIGNUP_DISABLED'], 409: ['LOGIN_TAKEN'] } : { 404: ['NOT_FOUND'] },
      responses: {
        200: { description: 'signed in', schema: TokenResponse, headers: { 'Set-Cookie': 'Set-Cookie' } },
        302: { description: 'redirect to the UI with #access_token=', headers: { Location: 'Location', 'Set-Cookie': 'Set-Cookie' } },
      },
      handler: async ({ query, request, set }) => {
        if (!s.github) throw notFound('GitHub sign-in')
        if (query.error) throw new ProblemError(401, 'OAUTH_DENIED', `GitHub sign-in was not completed (${query.error})`)
        if (!query.code || !query.state) throw new ProblemError(400, 'OAUTH_STATE_INVALID', 'code and state are required')
        const state = await s.tokens.verify(query.state, 'state')
        const cookie = (request.headers.get('cookie') ?? '').split(/;\s*/).find((c) => c.startsWith(`${OAUTH_COOKIE}=`))?.slice(OAUTH_COOKIE.length + 1)
        if (!state || !cookie || state.n !== cookie) throw new ProblemError(400, 'OAUTH_STATE_INVALID', 'the sign-in state is invalid or expired; start again')
        const gh = await s.github.exchange(query.code, `${s.baseUrl()}/api/v1/auth/github/callback`)
        const op = await s.operators.fromGithub(gh, s.config.signup)
        const token = await issue(op)
        set.headers['set-cookie'] = `${OAUTH_COOKIE}=; Path=/api/v1/auth/github; Max-Age=0; HttpOnly; SameSite=Lax`
        if (state.ui) {
          set.status = 302
          set.headers.location = `${s.baseUrl()}/#access_token=${encodeURIComponent(token.accessToken)}&expires_in=${token.expiresIn}`
          return ''
        }
        return token
      },
    }),
    defineRoute({
      method: 'GET', path: '/api/v1/admin/operators', auth: 'bearer', admin: true, tags: ['Admin'],
      summary: 'List operators',
      responses: { 200: { description: 'operators', schema: t.Array(AdminOperator) } },
      handler: () => s.operators.list().map((op) => s.operators.adminView(op)),
    }),
    defineRoute({
      method: 'PATCH', path: '/api/v1/admin/operators/:id', auth: 'bearer', admin: true, tags: ['Admin'],
      params: OperatorIdParams, body: AdminOperatorPatch,
      summary: 'Set an operator\'s tier override and/or status',
      description: 'Status: ACTIVE ⇄ SUSPENDED, any → BANNED (final). A tier override takes effect at once for limits.',
      errors: { 404: ['NOT_FOUND'], 409: ['CANNOT_SUSPEND_SELF', 'INVALID_STATUS_TRANSITION'] },
      responses: { 200: { description: 'updated operator', schema: AdminOperator } },
      handler: ({ params, body, auth }) => {
        if (params.id === auth.operator.id && body.status && body.status !== 'ACTIVE') throw new ProblemError(409, 'CANNOT_SUSPEND_SELF', 'an administrator cannot suspend or ban their own account')
        return s.operators.adminView(s.operators.update(params.id, body))
      },
    }),
  ]
}
