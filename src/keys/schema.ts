import { t } from 'elysia'
import { TIER_LIMITS } from '../config'
import { DateTime, Id, Nullable } from '../http/schemas'

const caps = Object.entries(TIER_LIMITS).map(([tier, l]) => `${tier} ${l.maxRpm}`).join(', ')
const defaults = Object.entries(TIER_LIMITS).map(([tier, l]) => `${tier} ${l.defaultRpm}`).join(', ')
const maxCap = Math.max(...Object.values(TIER_LIMITS).map((l) => l.maxRpm))

export const ApiKeyRecord = t.Object({
  id: t.String(),
  label: Nullable(t.String()),
  keyPrefix: t.String({ description: 'first 4 characters, "...", last 4 characters' }),
  rateLimitRpm: t.Integer(),
  lastUsedAt: Nullable(DateTime),
  createdAt: DateTime,
  isTestKey: t.Boolean(),
  testUsesRemaining: Nullable(t.Integer()),
  agentId: Nullable(t.String({ description: 'set for agent-bound keys' })),
})

export const ApiKeyPreview = t.Object({ id: t.String(), name: Nullable(t.String()), preview: t.String(), createdAt: DateTime, lastUsedAt: Nullable(DateTime) })

export const CreateKeyBody = t.Object({
  name: t.String({ minLength: 1, maxLength: 100, description: 'label of the key' }),
  rateLimitRpm: t.Optional(t.Integer({ minimum: 1, maximum: maxCap, description: `requests per minute for this key. Default by tier: ${defaults}. Cap by tier: ${caps}; above the caller's cap → 400 RATE_LIMIT_TOO_HIGH` })),
})

export const CreatedKey = t.Object({
  key: t.String({ description: 'the full key: shown only in this response' }),
  id: t.String(), createdAt: DateTime, keyPrefix: t.String(), label: t.String(), rateLimitRpm: t.Integer(),
})

export const ListKeysQuery = t.Object({ shape: t.Optional(t.Union([t.Literal('record'), t.Literal('preview')])) })
export const KeyIdParams = t.Object({ keyId: Id(64, 'key id (`key_…`)') })
