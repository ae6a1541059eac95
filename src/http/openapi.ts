// OpenAPI 3.1 document generated from the route declarations (http/route.ts).
import type { TSchema } from '@sinclair/typebox'
import type { RouteDef } from './route'
import { Problem } from './schemas'

const SECURITY: Record<string, Record<string, string[]>[]> = {
  none: [], optional: [{}, { bearer: [] }, { apiKey: [] }], bearer: [{ bearer: [] }], apiKey: [{ apiKey: [] }], either: [{ bearer: [] }, { apiKey: [] }],
}

/**
 * TypeBox schemas are JSON Schema already; this drops TypeBox's symbols and $id, and undoes
 * Elysia's coercion unions (`anyOf: [{ type: string, format: integer }, { type: integer }]`),
 * which describe what Elysia accepts in query strings rather than the API's types.
 */
const plain = (s: TSchema): Record<string, unknown> => {
  const { $id: _id, ...rest } = JSON.parse(JSON.stringify(s)) as Record<string, unknown>
  return unwrapCoercion(rest) as Record<string, unknown>
}

function unwrapCoercion(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(unwrapCoercion)
  if (!v || typeof v !== 'object') return v
  const o = v as Record<string, unknown>
  const any = o.anyOf as Record<string, unknown>[] | undefined
  if (any?.length === 2 && any[0]?.type === 'string' && ['integer', 'numeric', 'boolean'].includes(String(any[0]?.format))) {
    const { anyOf: _a, ...restOf } = o
    return unwrapCoercion({ ...restOf, ...any[1] })
  }
  return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, unwrapCoercion(x)]))
}

export function buildOpenApi(routes: RouteDef[], info: { version: string; serverUrl: string }) {
  const paths: Record<string, Record<string, unknown>> = {}
  for (const r of routes) {
    if (r.hidden) continue
    const path = r.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}')
    const parameters: unknown[] = []
    for (const [where, schema] of [['path', r.params], ['query', r.query]] as const) {
      if (!schema) continue
      const props = (schema as { properties?: Record<string, TSchema> }).properties ?? {}
      const required = new Set((schema as { required?: string[] }).required ?? [])
      for (const [name, p] of Object.entries(props)) {
        parameters.push({ name, in: where, required: where === 'path' || required.has(name), schema: plain(p), description: (p as { description?: string }).description })
      }
    }
    const auth = r.admin ? 'bearer' : r.auth
    const responses: Record<string, unknown> = {}
    for (const [code, doc] of Object.entries(r.responses)) {
      responses[code] = doc.schema
        ? { description: doc.description, content: { [doc.contentType ?? 'application/json']: { schema: plain(doc.schema) } } }
        : { description: doc.description }
    }
    const problem = (d: string) => ({ description: d, content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } })
    if (r.body || r.params || r.query) responses['400'] ??= problem('Invalid input (VALIDATION_FAILED, INVALID_JSON)')
    if (auth !== 'none' && auth !== 'optional') {
      responses['401'] ??= problem('Missing, invalid, revoked or not-accepted credential')
      responses['403'] ??= problem(r.admin ? 'Not an administrator, or operator suspended/banned' : 'Operator suspended or banned, or not allowed')
    }
    if (auth === 'apiKey' || auth === 'either' || auth === 'optional') responses['429'] ??= problem('API key rate limit exceeded (see RateLimit-* and Retry-After headers)')
    if (r.body) responses['413'] ??= problem('Request body too large')
    const op: Record<string, unknown> = {
      operationId: `${r.method.toLowerCase()}${path.replace(/[{}]/g, '').split(/[/_-]/).filter(Boolean).map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')}`,
      summary: r.summary, tags: r.tags, security: SECURITY[auth], 'x-taskgate-auth': r.admin ? 'admin' : r.auth,
      responses,
    }
    if (r.description) op.description = r.description
    if (parameters.length) op.parameters = parameters
    if (r.body) op.requestBody = { required: true, content: { 'application/json': { schema: plain(r.body) } } }
    ;(paths[path] ??= {})[r.method.toLowerCase()] = op
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'TaskGate API', version: info.version,
      description: 'Self-hosted gateway for AI agents. Errors are RFC 9457 problem+json with a stable `code`. Every response carries `x-request-id`.',
    },
    servers: [{ url: info.serverUrl }],
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'POST /api/v1/auth/login → accessToken' },
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'tg_test_… / tg_live_… keys from /api/v1/operator/keys' },
      },
      schemas: { Problem: plain(Problem) },
    },
    paths,
  }
}
