// The MCP door (docs/doors.md, "MCP"): POST /mcp speaks the Model Context Protocol over Streamable
// HTTP, stateless, with the official TypeScript SDK. Six tools act with the caller's credential
// and its scope (an agent-bound key only for its agent): submit_task makes a task through all 8
// stages (SubmitService, as POST /api/v1/tasks/submit); the others read what the REST API reads.
// Refusals come back as tool results with `isError` naming the TaskGate code.
import { forbidden } from '../http/errors'
import type { McpCall, McpDoorDeps } from './types'

export type { McpCall, McpDoorDeps } from './types'


const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]'])
const hostOf = (hostHeader: string) => hostHeader.replace(/:\d+$/, '').toLowerCase()

/**
 * The Streamable HTTP transport's rule against DNS rebinding: a page on another site must not drive
 * /mcp through the user's browser. A request with an `Origin` is served only from the server's own
 * origin (the Host it was sent to, or TASKGATE_PUBLIC_URL); a server listening on loopback only,
 * without a public URL, answers only requests addressed to a loopback name. 403 ORIGIN_NOT_ALLOWED.
 * (Every call needs a credential too, which a rebinding page does not have.)
 */
function assertNotRebound(request: Request, o: McpDoorDeps['origins']): void {
  const host = request.headers.get('host') ?? ''
  if (o.loopbackOnly && !o.publicUrl && !LOOPBACK_HOSTS.has(hostOf(host))) throw forbidden('ORIGIN_NOT_ALLOWED', `this server answers /mcp on loopback names only, not ${hostOf(host) || 'a request without Host'}`)
  const origin = request.headers.get('origin')
  if (origin === null) return
  let originHost: string
  try { originHost = new URL(origin).host.toLowerCase() } catch { throw forbidden('ORIGIN_NOT_ALLOWED', 'the Origin header is not a URL') }
  const allowed = new Set([host.toLowerCase()])
  if (o.publicUrl) allowed.add(new URL(o.publicUrl).host.toLowerCase())
  if (!allowed.has(originHost)) throw forbidden('ORIGIN_NOT_ALLOWED', `requests from ${origin} are not served on /mcp`)
}

/**
 * The transport insists on `Accept: application/json, text/event-stream` (the protocol asks clients
 * to send both) and answers 406 otherwise; a hand-made call (curl) that sends neither is served as
 * if it had, since the answer is JSON either way.
 */
function acceptingBoth(request: Request): Request {
  const accept = request.headers.get('accept') ?? ''
  if (accept.includes('application/json') && accept.includes('text/event-stream')) return request
  const headers = new Headers(request.headers)
  headers.set('accept', 'application/json, text/event-stream')
  return new Request(request.url, { method: request.method, headers })
}

export class McpDoor {
  constructor(private d: McpDoorDeps) {}

  /**
   * The MCP SDK and zod, loaded at the first /mcp request: imported at start-up they added about
   * 100 ms to every cold start, whether or not anyone speaks MCP.
   */
  private tools: Promise<typeof import('./tools')> | null = null

  /** Answers one Streamable HTTP request (`body`: its JSON-RPC message, already parsed and size-checked by the HTTP layer). */
  async handle(call: McpCall, body: unknown): Promise<Response> {
    assertNotRebound(call.request, this.d.origins)
    const { serveOnce } = await (this.tools ??= import('./tools'))
    return serveOnce(this.d, call, acceptingBoth(call.request), body)
  }
}
