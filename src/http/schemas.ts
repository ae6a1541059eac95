// Shapes shared by many routes.
import { t } from 'elysia'

export const Problem = t.Object({
  type: t.String(), title: t.String(), status: t.Integer(), detail: t.String(), code: t.String(), requestId: t.String(),
  errors: t.Optional(t.Array(t.Object({ path: t.String(), message: t.String() }))),
}, { $id: 'Problem', description: 'RFC 9457 problem details; `code` is stable.' })

export const Success = t.Object({ success: t.Boolean() })
export const TierEnum = t.Union([t.Literal('FREE'), t.Literal('PRO'), t.Literal('ENTERPRISE')])
export const StatusEnum = t.Union([t.Literal('ACTIVE'), t.Literal('SUSPENDED'), t.Literal('BANNED')])
export const DateTime = t.String({ format: 'date-time' })
export const Nullable = <T extends Parameters<typeof t.Union>[0][number]>(s: T) => t.Union([s, t.Null()])
