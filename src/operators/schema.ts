import { t } from 'elysia'
import { DateTime, Email, Id, Nullable, PROBLEM_CODE, StatusEnum, TierEnum } from '../http/schemas'

export const OperatorProfile = t.Object({
  id: t.String(),
  identityLogin: t.String(),
  tier: TierEnum,
  tierOverride: Nullable(TierEnum),
  effectiveTier: TierEnum,
  status: StatusEnum,
  hasApiKey: t.Boolean(),
  displayName: t.String(),
  email: t.String(),
  flags: t.Object({}, { additionalProperties: true, description: 'killSwitch (boolean), admin (boolean), …' }),
  walletAddress: Nullable(t.String()),
  firstTaskAt: Nullable(DateTime),
  pioneerPoints: t.Number(),
})

export const AdminOperator = t.Composite([OperatorProfile, t.Object({ role: t.String(), createdAt: DateTime, updatedAt: DateTime })])

/**
 * What sign-up and setup accept: the server trims and lower-cases a login, then requires
 * LOGIN_PATTERN (operators/service.ts). Stated here on the raw value, so the document and the
 * schema Elysia enforces admit exactly that (surrounding whitespace, either letter case); anything
 * else → 400 INVALID_LOGIN. (Lower-casing maps one non-ASCII letter to ASCII, the Kelvin sign to
 * `k`: this pattern refuses it, as the document says.)
 */
const login = t.String({ minLength: 2, maxLength: 64, pattern: '^\\s*[A-Za-z0-9][A-Za-z0-9_.@-]{1,63}\\s*$', description: 'letters, digits, and _ . @ -, starting with a letter or digit; case-insensitive (stored lower-cased), surrounding whitespace ignored', [PROBLEM_CODE]: 'INVALID_LOGIN' })
const password = t.String({ minLength: 8, maxLength: 256 })

export const LoginBody = t.Object({ login: t.String({ minLength: 1, maxLength: 64 }), password: t.String({ minLength: 1, maxLength: 256 }) })
export const SignupBody = t.Object({
  login, password,
  email: t.Optional(Email),
  displayName: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
})
export const SetupBody = t.Composite([SignupBody, t.Object({ token: t.String({ minLength: 1, maxLength: 128 }) })])

export const TokenResponse = t.Object({ accessToken: t.String(), tokenType: t.Literal('Bearer'), expiresIn: t.Integer({ description: 'seconds' }) })

export const OperatorIdParams = t.Object({ id: Id(64, 'operator id (`op_…`)') })
export const AdminOperatorPatch = t.Object({
  tierOverride: t.Optional(Nullable(TierEnum)),
  status: t.Optional(StatusEnum),
}, { additionalProperties: false, minProperties: 1 })

export const GithubStartQuery = t.Object({ ui: t.Optional(t.String({ maxLength: 8 })) })
export const GithubCallbackQuery = t.Object({
  code: t.Optional(t.String({ maxLength: 512 })), state: t.Optional(t.String({ maxLength: 2048 })),
  error: t.Optional(t.String({ maxLength: 256 })),
})
