// Shapes shared by many routes.
import { t } from 'elysia'
import { ProblemError } from './errors'

export const Problem = t.Object({
  type: t.String(), title: t.String(), status: t.Integer(), detail: t.String(), code: t.String(), requestId: t.String(),
  errors: t.Optional(t.Array(t.Object({ path: t.String(), message: t.String() }))),
}, { $id: 'Problem', description: 'RFC 9457 problem details; `code` is stable (see `x-problem-codes`). Some problems carry more members, named in their operation\'s description (e.g. `task`, `retryAfterSeconds`, `limit`, `allowed`).' })

/** Errors of the OpenAI-compatible routes (/v1/…, docs/doors.md): OpenAI's shape, TaskGate's code in lower case. */
export const OpenAiError = t.Object({
  error: t.Object({
    message: t.String(), type: t.String({ description: 'invalid_request_error, authentication_error, insufficient_quota, permission_error, not_found_error, rate_limit_error, server_error, service_unavailable' }),
    code: t.String({ description: 'the problem code in lower case (see `x-problem-codes`)' }), param: t.Union([t.String(), t.Null()]), request_id: t.String(),
  }),
  errors: t.Optional(t.Array(t.Object({ path: t.String(), message: t.String() }))),
  taskgate: t.Optional(t.Object({ taskId: t.String(), approvalId: t.Optional(t.String()), failureCode: t.Optional(t.String()) }, { description: 'the task the answer is about, when one was recorded' })),
  x402: t.Optional(t.Object({}, { additionalProperties: true, description: '402 only: the x402 payment requirements (`x402Version`, `accepts`, `needed`, `balance`)' })),
}, { $id: 'OpenAiError' })

/** 402 answers: a problem that also carries the x402 v1 payment requirements (v2: the PAYMENT-REQUIRED header). */
export const PaymentRequired = t.Composite([Problem, t.Object({
  x402Version: t.Literal(1),
  accepts: t.Array(t.Object({
    scheme: t.Literal('exact'), network: t.String({ description: 'base-sepolia in testnet' }),
    maxAmountRequired: t.String({ pattern: '^[0-9]+$', description: 'USDC base units (6 decimals)' }),
    resource: t.String(), description: t.String(), mimeType: t.String(),
    payTo: t.String({ pattern: '^0x[0-9a-fA-F]{40}$' }), maxTimeoutSeconds: t.Integer(),
    asset: t.String({ pattern: '^0x[0-9a-fA-F]{40}$', description: 'the mock USDC contract address' }),
    extra: t.Object({ name: t.String(), version: t.String() }, { description: 'EIP-712 domain name and version of the asset (EIP-3009)' }),
  }), { minItems: 1 }),
  error: t.String({ description: 'x402 clients show this' }),
  needed: t.Optional(t.Integer({ description: 'credits this request costs (INSUFFICIENT_CREDITS)' })),
  balance: t.Optional(t.Integer({ description: 'the operator\'s credit balance (INSUFFICIENT_CREDITS)' })),
})], { $id: 'PaymentRequired', description: 'Problem details with the x402 v1 payment requirements (`x402Version`, `accepts`); the `PAYMENT-REQUIRED` header carries the same payment in x402 v2. Pay with `PAYMENT-SIGNATURE` (v2) or `X-PAYMENT` (v1) and retry.' })

export const Success = t.Object({ success: t.Boolean() })
export const TierEnum = t.Union([t.Literal('FREE'), t.Literal('PRO'), t.Literal('ENTERPRISE')])
export const StatusEnum = t.Union([t.Literal('ACTIVE'), t.Literal('SUSPENDED'), t.Literal('BANNED')])
export const DateTime = t.String({ format: 'date-time' })

/**
 * Schema keyword naming the problem code a value refused by this (sub)schema gets instead of
 * VALIDATION_FAILED (e.g. an unknown task type → 400 INVALID_TASK_TYPE). http/app.ts applies it;
 * the OpenAPI document lists the code under the operation's 400.
 */
export const PROBLEM_CODE = 'x-problem-code'

/** Ids the service issues: a type prefix and base58 or slug characters (`op_…`, `agent_…`, `task_…`). */
export const ID_PATTERN = '^[A-Za-z0-9_-]+$'
export const Id = (maxLength = 64, description?: string) => t.String({ minLength: 1, maxLength, pattern: ID_PATTERN, ...(description ? { description } : {}) })

/** An EVM address, any letter case (answers use the EIP-55 checksum). Anything else → 400 INVALID_ADDRESS. */
export const EvmAddress = (description = 'EVM address (0x + 40 hex digits, any letter case)') =>
  t.String({ minLength: 42, maxLength: 42, pattern: '^0x[0-9a-fA-F]{40}$', description, [PROBLEM_CODE]: 'INVALID_ADDRESS' })

/** A 32-byte hex value (tx hashes, attestation UIDs, proofs). */
export const Hash32 = (description?: string) => t.String({ minLength: 66, maxLength: 66, pattern: '^0x[0-9a-fA-F]{64}$', ...(description ? { description } : {}) })

/**
 * The CIDs this node serves, as one exact regular expression: what the node issues, CIDv1
 * sha2-256 with the raw (`bafkrei…`) or dag-pb (`bafybei…`) codec in base32, and the same dag-pb
 * content as CIDv0 (`Qm…`, base58btc). The expression admits exactly those strings that decode to
 * such a CID (issue 30: the shape-only pattern before it admitted strings like `Qm` + 44 base58
 * digits that are no CID, which the server then refused), so a generated client, a validator and
 * the server agree; anything else, other CIDs included (they cannot be content of this node),
 * → 400 INVALID_CID. Built by cidPattern() below; test/unit/cid-pattern.test.ts checks it against
 * multiformats.
 */
export let CID_PATTERN: string // set below, after its helpers
export const Cid = (description = 'CID: CIDv1 sha2-256 in base32, raw (`bafkrei…`) or dag-pb (`bafybei…`), as this node issues, or CIDv0 `Qm…`') =>
  t.String({ minLength: 46, maxLength: 59, pattern: CID_PATTERN, description, [PROBLEM_CODE]: 'INVALID_CID' })

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567'

function cidPattern(): string {
  const v1 = (codec: number) => base32Exact([0x01, codec, 0x12, 0x20], 36)
  const v0lo = BigInt('0x1220' + '00'.repeat(32))
  const v0hi = BigInt('0x1220' + 'ff'.repeat(32))
  return `^(?:b${v1(0x55)}|b${v1(0x70)}|${digitRange(BASE58, toDigits(BASE58, v0lo), toDigits(BASE58, v0hi))})$`
}

/** A character class of the given characters, ranges merged (`[P-Za-e]`). */
function charClass(chars: string): string {
  const codes = [...new Set([...chars].map((c) => c.charCodeAt(0)))].sort((a, b) => a - b)
  if (codes.length === 1) return esc(String.fromCharCode(codes[0]!))
  let out = ''
  for (let i = 0; i < codes.length;) {
    let j = i
    while (j + 1 < codes.length && codes[j + 1] === codes[j]! + 1) j++
    out += j - i >= 2 ? `${esc(String.fromCharCode(codes[i]!))}-${esc(String.fromCharCode(codes[j]!))}` : codes.slice(i, j + 1).map((c) => esc(String.fromCharCode(c))).join('')
    i = j + 1
  }
  return `[${out}]`
}
const esc = (c: string) => c.replace(/[\\^$.*+?()[\]{}|-]/g, '\\$&')
const repeat = (cls: string, n: number) => (n === 0 ? '' : n === 1 ? cls : `${cls}{${n}}`)

/** The base58 (or other numeric-base) digits of n, most significant first. */
function toDigits(alphabet: string, n: bigint): string {
  const base = BigInt(alphabet.length)
  let out = ''
  for (let x = n; x > 0n; x /= base) out = alphabet[Number(x % base)] + out
  return out
}

/** The strings of lo.length digits from lo to hi (same length), in the alphabet's order. */
function digitRange(alphabet: string, lo: string, hi: string): string {
  if (lo.length !== hi.length) throw new Error('digitRange: lengths differ')
  if (lo === '') return ''
  const at = (c: string) => alphabet.indexOf(c)
  if (lo[0] === hi[0]) return esc(lo[0]!) + digitRange(alphabet, lo.slice(1), hi.slice(1))
  const rest = lo.length - 1
  const parts = [esc(lo[0]!) + atLeast(alphabet, lo.slice(1))]
  if (at(hi[0]!) - at(lo[0]!) > 1) parts.push(charClass(alphabet.slice(at(lo[0]!) + 1, at(hi[0]!))) + repeat(charClass(alphabet), rest))
  parts.push(esc(hi[0]!) + atMost(alphabet, hi.slice(1)))
  return `(?:${parts.join('|')})`
}
function atLeast(alphabet: string, s: string): string {
  if (s === '' || [...s].every((c) => c === alphabet[0])) return repeat(charClass(alphabet), s.length)
  const above = alphabet.slice(alphabet.indexOf(s[0]!) + 1)
  const parts = [esc(s[0]!) + atLeast(alphabet, s.slice(1))]
  if (above) parts.push(charClass(above) + repeat(charClass(alphabet), s.length - 1))
  return `(?:${parts.join('|')})`
}
function atMost(alphabet: string, s: string): string {
  if (s === '' || [...s].every((c) => c === alphabet[alphabet.length - 1])) return repeat(charClass(alphabet), s.length)
  const below = alphabet.slice(0, alphabet.indexOf(s[0]!))
  const parts = [esc(s[0]!) + atMost(alphabet, s.slice(1))]
  if (below) parts.push(charClass(below) + repeat(charClass(alphabet), s.length - 1))
  return `(?:${parts.join('|')})`
}

/**
 * The unpadded lower-case base32 (RFC 4648) encodings of every `length`-byte value that starts
 * with `prefix`: each character's five bits are fixed where they fall in the prefix, free in the
 * rest, and zero past the last byte (multiformats refuses non-zero trailing bits).
 */
function base32Exact(prefix: number[], length: number): string {
  const bits = length * 8
  const classes: string[] = []
  for (let i = 0; i * 5 < bits; i++) {
    let allowed = ''
    for (let v = 0; v < 32; v++) {
      let ok = true
      for (let b = 0; b < 5 && ok; b++) {
        const bit = i * 5 + b
        const value = (v >> (4 - b)) & 1
        if (bit >= bits) ok = value === 0
        else if (bit < prefix.length * 8) ok = value === ((prefix[bit >> 3]! >> (7 - (bit & 7))) & 1)
      }
      if (ok) allowed += BASE32[v]
    }
    classes.push(charClass(allowed))
  }
  let out = ''
  for (let i = 0; i < classes.length;) {
    let j = i
    while (j + 1 < classes.length && classes[j + 1] === classes[i]) j++
    out += repeat(classes[i]!, j - i + 1)
    i = j + 1
  }
  return out
}
CID_PATTERN = cidPattern()

/**
 * The e-mail rule, one regular expression for the server and the document alike (no `format`,
 * whose meaning differs between validators): local part of letters, digits and . _ % + -,
 * then a domain of at least two dot-separated labels. Linear to match (no overlapping repetition).
 */
export const EMAIL_PATTERN = '^[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\\.[A-Za-z0-9-]{1,63})+$'
export const Email = t.String({ maxLength: 254, pattern: EMAIL_PATTERN, description: 'e-mail address: `local@domain.tld` (letters, digits and `._%+-` before the @; dot-separated labels of letters, digits and `-` after it)' })

/**
 * An http(s) URL (webhooks, callbacks). Checked in this order (http/request-schema.ts): its length,
 * a scheme and no whitespace (a linear pattern), then the WHATWG URL parser (`format: uri`); never
 * one regular expression over the whole URL. Where it may point is the service's check
 * (lib/outbound.ts).
 */
export const HTTP_URL_PATTERN = '^[Hh][Tt][Tt][Pp][Ss]?://\\S+$'
export const HttpUrl = (description?: string) =>
  t.String({ minLength: 8, maxLength: 2048, format: 'uri', pattern: HTTP_URL_PATTERN, ...(description ? { description } : {}) })

/** Bounds of an integer query parameter: the server checks them (queryInt), the document states them. */
export interface IntBounds { minimum: number; maximum: number; default: number }
export const PAGE: IntBounds = { minimum: 1, maximum: 1_000_000, default: 1 }
export const LIMIT: IntBounds = { minimum: 1, maximum: 100, default: 20 }
export const WAIT: IntBounds = { minimum: 0, maximum: 120, default: 30 }

/** Schema keyword carrying the IntBounds of a QueryInt (the document shows it as an integer). */
export const QUERY_INT = 'x-query-integer'

/**
 * A non-negative integer in the query string. The server takes it as a digit string and range-checks
 * it with queryInt(): Elysia's numeric query coercion behaves differently inside the compiled binary
 * (ranges were not enforced there), so we do not rely on it. The OpenAPI document shows it as an
 * integer with these bounds; both refuse the same strings.
 */
export const QueryInt = (description: string, bounds: IntBounds) => t.String({ maxLength: 9, pattern: '^[0-9]{1,9}$', description, [QUERY_INT]: bounds })

export function queryInt(name: string, raw: string | undefined, b: IntBounds): number {
  if (raw === undefined) return b.default
  const n = Number(raw)
  if (!/^[0-9]{1,9}$/.test(raw) || !Number.isInteger(n) || n < b.minimum || n > b.maximum) {
    throw new ProblemError(400, 'VALIDATION_FAILED', `invalid query: /query/${name} must be an integer from ${b.minimum} to ${b.maximum}`, { errors: [{ path: `/query/${name}`, message: `must be an integer from ${b.minimum} to ${b.maximum}` }] })
  }
  return n
}

/** `?page` (from 1) and `?limit` (1–100, default 20), range-checked. */
export const pageQuery = (q: { page?: string; limit?: string }) => ({
  page: queryInt('page', q.page, PAGE),
  limit: queryInt('limit', q.limit, LIMIT),
})

/** `page` and `limit` query parameters. */
export const PageParams = {
  page: t.Optional(QueryInt('page number, from 1', PAGE)),
  limit: t.Optional(QueryInt('page size', LIMIT)),
}

export const Nullable = <T extends Parameters<typeof t.Union>[0][number]>(s: T) => t.Union([s, t.Null()])
