// The MCP door (docs/doors.md, "MCP"): POST /mcp speaks the Model Context Protocol over Streamable
// HTTP, stateless, with the official TypeScript SDK. Six tools act with the caller's credential
// and its scope (an agent-bound key only for its agent): submit_task makes a task through all 8
// stages (SubmitService, as POST /api/v1/tasks/submit); the others read what the REST API reads.
// Refusals come back as tool results with `isError` naming the TaskGate code.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { z } from 'zod'
import { TASK_TYPES } from '../agents/schema'
import type { ApprovalService } from '../approvals/service'
import { scopeOf } from '../approvals/service'
import { actingAgent, canRead, type Principal } from '../http/auth'
import { badRequest, forbidden, notFound, ProblemError } from '../http/errors'
import type { ProofDocuments } from '../proofs/documents'
import { passportOf, type PassportDeps } from '../public/passport'
import type { TaskService } from '../tasks/service'
import type { SubmitService } from '../tasks/submit'

export interface McpDoorDeps {
  /**
   * Which Host and Origin headers /mcp answers (DNS rebinding, docs/doors.md "MCP"): `publicUrl`
   * (TASKGATE_PUBLIC_URL, may be empty) and whether the server listens on loopback only.
   */
  origins: { publicUrl: string; loopbackOnly: boolean }
  submit: Pick<SubmitService, 'submit'>
  tasks: Pick<TaskService, 'get' | 'detail' | 'list'>
  proofs: Pick<ProofDocuments, 'verify'>
  approvals: Pick<ApprovalService, 'list'>
  passport: PassportDeps
  version: string
}

/** A call to /mcp: who calls, and the HTTP request (its headers carry an x402 payment, if any). */
export interface McpCall { principal: Principal; request: Request; ip: () => string }

/** The longest a submit_task waits for its task (the rest: get_task). */
const MAX_WAIT_SECONDS = 120

// Results are open like the REST API's answers (a client ignores members it does not know), so
// every output schema is loose: clients that list the tools validate results against them.
const TaskOut = z.looseObject({
  id: z.string(), status: z.string(), taskType: z.string(), agentId: z.string(), model: z.string(),
  output: z.string().nullable().optional(), failureCode: z.string().nullable(), failureMessage: z.string().nullable().optional(),
  receiptCid: z.string().nullable(), attestationUid: z.string().nullable(), ipfsCid: z.string().nullable(),
  approvalId: z.string().nullable().optional(), creditsCharged: z.number(), createdAt: z.string(), completedAt: z.string().nullable(),
  usage: z.object({ promptTokens: z.number(), completionTokens: z.number(), totalTokens: z.number() }).nullable().optional(),
  costUsd: z.number().nullable().optional(),
})

/** The task as a tool returns it: what the REST detail gives its owner, without the timeline and the signed documents (get them by CID). */
function taskOut(d: Record<string, unknown>): z.infer<typeof TaskOut> {
  const { timeline: _t, receipt: _r, attestation: _a, prompt: _p, metadata: _m, promptSha256: _h, promptLength: _l, ...rest } = d
  return rest as z.infer<typeof TaskOut>
}

/** A tool's answer: the structured result and the same as text (for clients that show text only). */
const result = <T extends Record<string, unknown>>(structured: T) => ({ structuredContent: structured, content: [{ type: 'text' as const, text: JSON.stringify(structured) }] })

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

  /** Answers one Streamable HTTP request (`body`: its JSON-RPC message, already parsed and size-checked by the HTTP layer). */
  async handle(call: McpCall, body: unknown): Promise<Response> {
    assertNotRebound(call.request, this.d.origins)
    const server = this.server(call)
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
    await server.connect(transport)
    try {
      return await transport.handleRequest(acceptingBoth(call.request), { parsedBody: body })
    } finally {
      void server.close()
    }
  }

  /** A server for one request (stateless: the SDK's transport serves one request per connection), its tools bound to the caller. */
  private server(call: McpCall): McpServer {
    const server = new McpServer({ name: 'taskgate', version: this.d.version }, { capabilities: { tools: {} } })
    const { principal: p } = call
    const tool = <I extends z.ZodRawShape, O extends z.ZodRawShape>(name: string, description: string, input: I, output: O, run: (args: z.infer<z.ZodObject<I>>) => Promise<Record<string, unknown>> | Record<string, unknown>) => {
      server.registerTool(name, { description, inputSchema: input, outputSchema: z.looseObject(output) }, (async (args: z.infer<z.ZodObject<I>>) => {
        try {
          return result(await run(args))
        } catch (e) {
          if (!(e instanceof ProblemError)) throw e
          return { isError: true, content: [{ type: 'text' as const, text: `${e.code}: ${e.detail}` }] }
        }
      }) as never)
    }

    tool('submit_task', 'Submit a task to the 8-stage pipeline (guardrails, credits, approvals, compute, verification, IPFS, fingerprint, attestation, signed receipt) and wait for it. Refusals (GUARDRAIL_BLOCKED, KILL_SWITCH_ACTIVE, INSUFFICIENT_CREDITS, …) come back with isError.', {
      prompt: z.string().min(1).max(100_000),
      taskType: z.enum(TASK_TYPES).optional().describe('default general'),
      model: z.string().min(1).max(128).optional().describe('default: the agent\'s model'),
      agentId: z.string().max(128).optional().describe('with an operator key or token: this, or header x-taskgate-agent-id; an agent-bound key acts as its agent'),
      waitSeconds: z.number().int().min(0).max(MAX_WAIT_SECONDS).optional().describe(`how long to wait for the result (default 30, at most ${MAX_WAIT_SECONDS}); a task still running is returned as it is`),
    }, { task: TaskOut }, async (a) => {
      // the argument, else the header every door reads (an MCP client config sets it once)
      const agentId = actingAgent(p, a.agentId ?? call.request.headers.get('x-taskgate-agent-id'))
      if (!agentId) throw badRequest('AGENT_ID_REQUIRED', 'name the agent in agentId or in header x-taskgate-agent-id (an agent-bound key acts as its agent)')
      const answer = await this.d.submit.submit({
        principal: p, input: { agentId, taskType: a.taskType ?? 'general', prompt: a.prompt, model: a.model, door: 'mcp' },
        idempotencyKey: null, payment: call.request, ip: call.ip, waitMs: (a.waitSeconds ?? 30) * 1000,
      }, {})
      return { task: taskOut(answer.body) }
    })

    tool('get_task', 'A task of yours: status, output, failure, receipt CID and attestation UID.', { taskId: z.string().min(1).max(64) }, { task: TaskOut }, ({ taskId }) => {
      const t = this.d.tasks.get(taskId)
      if (!canRead(p, t)) throw notFound('task')
      return { task: taskOut(this.d.tasks.detail(t, true)) }
    })

    tool('list_tasks', 'Your latest tasks, newest first (an agent-bound key: its agent\'s).', {
      status: z.enum(['PENDING_APPROVAL', 'QUEUED', 'PROCESSING', 'COMPLETED', 'FAILED']).optional(),
      limit: z.number().int().min(1).max(100).optional().describe('default 20'),
    }, { tasks: z.array(z.object({ id: z.string(), status: z.string(), taskType: z.string(), agentId: z.string(), receiptCid: z.string().nullable(), createdAt: z.string() }).passthrough()), total: z.number() }, ({ status, limit }) => {
      const page = this.d.tasks.list({ operatorId: p.operator.id, agentId: p.key?.agentId ?? undefined, status, limit: limit ?? 20 })
      return { tasks: page.data, total: page.total }
    })

    tool('verify_receipt', 'Check a receipt (or task document) by its IPFS CID: the content re-hashed to the CID and the EIP-712 signature verified against the service signer.', { cid: z.string().min(1).max(128) }, {
      kind: z.enum(['receipt', 'task']), signatureValid: z.boolean().optional(), cidMatches: z.boolean(), signer: z.string().optional(), signerKnown: z.boolean().optional(), taskId: z.string(),
    }, async ({ cid }) => {
      const v = await this.d.proofs.verify(cid)
      return { kind: v.kind, ...v.verification, taskId: v.task.id }
    })

    tool('get_passport', 'An agent\'s public passport: trust level, metrics and what the next level needs.', { agentId: z.string().min(1).max(128) }, {
      agentId: z.string(), trustLevel: z.string(), ari: z.number(), vci: z.number(), cq: z.number(), driftScore: z.number(), totalTasks: z.number(), verifiedTasks: z.number(),
    }, ({ agentId }) => passportOf(this.d.passport, agentId))

    tool('pending_approvals', 'Approval requests waiting for a human decision (an agent-bound key: its agent\'s).', {}, {
      pending: z.array(z.object({ id: z.string(), taskId: z.string().nullable(), agentId: z.string().nullable(), requestedValue: z.number().nullable() }).passthrough()),
    }, () => ({ pending: this.d.approvals.list(scopeOf(p), 'PENDING', 100).data }))

    return server
  }
}
