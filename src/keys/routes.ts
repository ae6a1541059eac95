// HTTP for operator API keys (bearer only).
import { t } from 'elysia'
import { effectiveTier } from '../operators/service'
import { defineRoute } from '../http/route'
import { Success } from '../http/schemas'
import type { Services } from '../services'
import { ApiKeyPreview, ApiKeyRecord, CreatedKey, CreateKeyBody, KeyIdParams, ListKeysQuery } from './schema'
import { keyPreview, keyPrefixOf, keyRecord } from './service'

export function keyRoutes(s: Services) {
  const tags = ['API keys']
  return [
    defineRoute({
      method: 'POST', path: '/api/v1/operator/keys', auth: 'bearer', tags, body: CreateKeyBody,
      summary: 'Generate an API key (the full key is returned once)',
      description: 'Keys per tier (test and agent-bound keys not counted): FREE 3, PRO 25, ENTERPRISE unlimited → 403 KEY_LIMIT_REACHED. rateLimitRpm above the tier cap → 400 RATE_LIMIT_TOO_HIGH.',
      errors: { 400: ['RATE_LIMIT_TOO_HIGH'], 403: ['KEY_LIMIT_REACHED'] },
      responses: { 200: { description: 'created', schema: CreatedKey, links: { revoke: { route: 'DELETE /api/v1/operator/keys/:keyId', parameters: { keyId: '$response.body#/id' }, description: 'revoke this key' } } } },
      handler: ({ auth, body }) => {
        const { key, row } = s.keys.createOperatorKey(auth.operator.id, effectiveTier(auth.operator), body)
        return { key, id: row.id, createdAt: new Date(row.createdAt).toISOString(), keyPrefix: keyPrefixOf(row), label: row.label!, rateLimitRpm: row.rateLimitRpm }
      },
    }),
    defineRoute({
      method: 'GET', path: '/api/v1/operator/keys', auth: 'bearer', tags, query: ListKeysQuery,
      summary: 'List active API keys (never the full key)',
      description: '`?shape=preview` returns the alternative `{ id, name, preview, createdAt, lastUsedAt }` shape.',
      responses: { 200: { description: 'keys', schema: t.Union([t.Array(ApiKeyRecord), t.Array(ApiKeyPreview)]) } },
      handler: ({ auth, query }) => {
        const keys = s.keys.list(auth.operator.id)
        return query.shape === 'preview' ? keys.map(keyPreview) : keys.map(keyRecord)
      },
    }),
    defineRoute({
      method: 'DELETE', path: '/api/v1/operator/keys/:keyId', auth: 'bearer', tags, params: KeyIdParams,
      summary: 'Revoke an API key (effective on the very next request)',
      errors: { 404: ['NOT_FOUND'] },
      responses: { 200: { description: 'revoked', schema: Success } },
      handler: ({ auth, params }) => { s.keys.revoke(auth.operator.id, params.keyId); return { success: true } },
    }),
  ]
}
