import { t } from 'elysia'
import { DateTime, Nullable } from '../http/schemas'

export const TosVersionId = t.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9._-]+$', description: 'a version name, e.g. `1` or `2026-03-27`' })

export const TosVersionView = t.Object({
  version: t.String(), text: t.String(), textHash: t.String({ description: 'keccak256 of the text (UTF-8), as signed in acceptances' }),
  publishedAt: DateTime, current: t.Boolean({ description: 'whether this is the current version (the newest)' }),
})

export const PublishTosBody = t.Object({ version: TosVersionId, text: t.String({ minLength: 1, maxLength: 100_000 }) })

export const TosStatus = t.Object({
  accepted: t.Boolean({ description: 'true when the current version is accepted' }),
  acceptedAt: Nullable(DateTime), version: Nullable(t.String({ description: 'the version of the acceptance shown (the current one when accepted, else the latest accepted)' })),
  ipfsCid: Nullable(t.String({ description: 'CID of the signed acceptance document' })), currentVersion: t.String(),
})

export const TosAcceptBody = t.Object({ version: TosVersionId })

export const TosAcceptResult = t.Object({
  accepted: t.Boolean(), ipfsCid: Nullable(t.String({ description: 'CID of the signed acceptance document (EIP-712 typed data, signature, signer)' })),
  taskId: t.String({ description: 'the system task (`taskType: "system"`) that records the acceptance' }), acceptedAt: DateTime,
})

export const TosAcceptanceRecord = t.Object({ operatorId: t.String(), version: t.String(), ipfsCid: t.String(), taskId: t.String(), acceptedAt: DateTime })
