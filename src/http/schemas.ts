// Shapes shared by many routes.
import { t } from 'elysia'
import { ProblemError } from './errors'

export const Problem = t.Object({
  type: t.String(), title: t.String(), status: t.Integer(), detail: t.String(), code: t.String(), requestId: t.String(),
  errors: t.Optional(t.Array(t.Object({ path: t.String(), message: t.String() }))),
}, { $id: 'Problem', description: 'RFC 9457 problem details; `code` is stable.' })

export const Success = t.Object({ success: t.Boolean() })
export const TierEnum = t.Union([t.Literal('FREE'), t.Literal('PRO'), t.Literal('ENTERPRISE')])
export const StatusEnum = t.Union([t.Literal('ACTIVE'), t.Literal('SUSPENDED'), t.Literal('BANNED')])
export const DateTime = t.String({ format: 'date-time' })
/**
 * A non-negative integer in the query string. Declared as a digit string and range-checked by
 * queryInt(): Elysia's numeric query coercion behaves differently inside the compiled binary
 * (ranges were not enforced there), so we do not rely on it.
 */
export const QueryInt = (description: string) => t.String({ pattern: '^[0-9]{1,9}$', description })

export function queryInt(name: string, raw: string | undefined, o: { min: number; max: number; def: number }): number {
  if (raw === undefined) return o.def
  const n = Number(raw)
  if (!Number.isInteger(n) || n < o.min || n > o.max) {
    throw new ProblemError(400, 'VALIDATION_FAILED', `invalid query: /query/${name} must be an integer from ${o.min} to ${o.max}`, { errors: [{ path: `/query/${name}`, message: `must be an integer from ${o.min} to ${o.max}` }] })
  }
  return n
}

/** `?page` (from 1) and `?limit` (1–100, default 20), range-checked. */
export const pageQuery = (q: { page?: string; limit?: string }) => ({
  page: queryInt('page', q.page, { min: 1, max: 1_000_000, def: 1 }),
  limit: queryInt('limit', q.limit, { min: 1, max: 100, def: 20 }),
})

export const Nullable = <T extends Parameters<typeof t.Union>[0][number]>(s: T) => t.Union([s, t.Null()])
