// HTTP for the MCP door (docs/doors.md, "MCP"): one operation, POST /mcp (Streamable HTTP,
// stateless; GET and DELETE answer 405 as a server without sessions should).
import { t } from 'elysia'
import { defineRoute, type RouteDef } from '../http/route'
import { PAYMENT_REQUEST_HEADERS } from '../money/x402'
import type { Services } from '../services'

export function mcpRoutes(s: Services): RouteDef[] {
  return [
    defineRoute({
      method: 'POST', path: '/mcp', auth: 'either', longLived: true, tags: ['MCP'],
      body: t.Object({
        jsonrpc: t.Literal('2.0'), method: t.String({ minLength: 1, maxLength: 256 }), id: t.Optional(t.Union([t.String({ maxLength: 256 }), t.Integer()])),
        params: t.Optional(t.Object({}, { additionalProperties: true })),
      }, { description: 'one JSON-RPC 2.0 request or notification of the Model Context Protocol (this stateless server sends no requests, so it takes no responses)' }),
      summary: 'Model Context Protocol server (Streamable HTTP, stateless)',
      description: 'Protocol revision 2025-11-25 (older ones negotiated by the SDK). Clients send `Accept: application/json, text/event-stream`; answers are JSON. Tools: `submit_task`, `get_task`, `list_tasks`, `verify_receipt`, `get_passport`, `pending_approvals`, each with input and output JSON Schemas (tools/list), results in `structuredContent`. They act with the request\'s credential (an agent-bound key only for its agent); a missing or bad credential → 401 with WWW-Authenticate; a refusal (guardrail, credits, approval …) is a tool result with `isError: true` naming the code. A payment header (`PAYMENT-SIGNATURE` for x402 v2, `X-PAYMENT` for v1, or `X-402-Payment`) pays for a submit_task as on POST /api/v1/tasks/submit. Against DNS rebinding, a request with an `Origin` other than this server\'s (the Host it was sent to, or TASKGATE_PUBLIC_URL) → 403 ORIGIN_NOT_ALLOWED, and a server listening on loopback only without a public URL answers only loopback names in Host.',
      requestHeaders: [...PAYMENT_REQUEST_HEADERS],
      errors: { 403: ['ORIGIN_NOT_ALLOWED'] },
      responses: {
        200: { description: 'the JSON-RPC answer', schema: t.Object({ jsonrpc: t.Literal('2.0') }, { additionalProperties: true }) },
        202: { description: 'a notification or response accepted (no body)' },
        400: { description: 'A message the MCP SDK cannot take answers a JSON-RPC error (`application/json`).', schema: t.Object({ jsonrpc: t.Literal('2.0'), error: t.Object({ code: t.Integer(), message: t.String() }, { additionalProperties: true }), id: t.Union([t.String(), t.Number(), t.Null()]) }) },
      },
      handler: (c) => s.mcp.handle({ principal: c.auth, request: c.request, ip: () => c.ip }, c.body),
    }),
  ]
}
