// The A2A door (docs/doors.md, "A2A"): the gateway's Agent Card, and POST /a2a, where an A2A client
// (Agent2Agent protocol 1.0, or 0.3) sends messages. Each message is a task of the caller's agent
// through all 8 stages (SubmitService, as POST /api/v1/tasks/submit); the protocol work (JSON-RPC
// methods, versions, the A2A types and errors) is the official SDK's, in src/a2a/rpc.ts.
import { agentCard, legacyAgentCard } from './card'
import type { A2aCall, A2aDoorDeps } from './types'

export type { A2aCall, A2aDoorDeps } from './types'

/** How long a client or proxy may keep the card (it changes with the server's version only). */
const CARD_MAX_AGE_S = 300

/** Whether an A2A-Version value asks for the 0.3 protocol: none, or one from 0.3 up to (not including) 1.0, as the SDK reads it. */
export function isLegacyVersion(v: string | null): boolean {
  if (v === null || v.trim() === '') return true
  const m = /^(\d+)(?:\.(\d+))?/.exec(v.trim())
  return m !== null && Number(m[1]) === 0 && Number(m[2] ?? 0) >= 3
}

export class A2aDoor {
  constructor(private d: A2aDoorDeps) {}

  /**
   * The A2A SDK and its protocol types, loaded at the first /a2a request: imported at start-up they
   * would cost every cold start, whether or not anyone speaks A2A.
   */
  private rpc: Promise<typeof import('./rpc')> | null = null

  /** The base URL the card names: TASKGATE_PUBLIC_URL when set, else the request's own origin. */
  baseUrl(request: Request): string {
    return this.d.publicUrl || new URL(request.url).origin
  }

  /**
   * GET /.well-known/agent-card.json: the card in the shape of the version the client asks for
   * (header A2A-Version), with its cache headers. As the SDK's card handler: a version from 0.3 up
   * to 1.0, or none, gets the 0.3 card; any other the 1.0 card.
   */
  card(request: Request, headersOut: Record<string, string | number>) {
    headersOut['cache-control'] = `public, max-age=${CARD_MAX_AGE_S}`
    headersOut.vary = 'A2A-Version'
    const base = this.baseUrl(request)
    return isLegacyVersion(request.headers.get('a2a-version')) ? legacyAgentCard(base, this.d.version) : agentCard(base, this.d.version)
  }

  /** Answers one JSON-RPC request (`body`: already parsed and size-checked by the HTTP layer): JSON, or server-sent events for a stream. */
  async handle(call: A2aCall, body: unknown): Promise<unknown> {
    const { serve } = await (this.rpc ??= import('./rpc'))
    return serve(this.d, call, agentCard(this.baseUrl(call.request), this.d.version), body)
  }
}
