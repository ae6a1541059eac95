// The MCP door's tools on the official SDK (docs/doors.md, "MCP"), loaded at the first /mcp request
// (McpDoor): the six tools bound to the caller's credential and its scope, each with its input and
// output schema; refusals come back as tool results with `isError` naming the TaskGate code.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'
import { z } from 'zod'
import { TASK_TYPES } from '../agents/schema'
import { scopeOf } from '../approvals/service'
import { canRead, doorAgent } from '../http/auth'
import { notFound, ProblemError } from '../http/errors'
import { passportOf } from '../public/passport'
import type { McpCall, McpDoorDeps } from './types'

/** Answers one Streamable HTTP request with a server of its own. */
export async function serveOnce(d: McpDoorDeps, call: McpCall, request: Request, body: unknown): Promise<Response> {
  const server = serverFor(d, call)
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
  await server.connect(transport)
  try {
    return await transport.handleRequest(request, { parsedBody: body })
  } finally {
    void server.close()
  }
}

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

/** A server for one request (stateless: the SDK's transport serves one request per connection), its tools bound to the caller. */
function serverFor(d: McpDoorDeps, call: McpCall): McpServer {
  const server = new McpServer({ name: 'taskgate', version: d.version }, { capabilities: { tools: {} } })
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
    const agentId = doorAgent(p, a.agentId ?? call.request.headers.get('x-taskgate-agent-id'), 'agentId or in header x-taskgate-agent-id')
    const answer = await d.submit.submit({
      principal: p, input: { agentId, taskType: a.taskType ?? 'general', prompt: a.prompt, model: a.model, door: 'mcp' },
      idempotencyKey: null, payment: call.request, ip: call.ip, waitMs: (a.waitSeconds ?? 30) * 1000,
    }, {})
    return { task: taskOut(answer.body) }
  })

  tool('get_task', 'A task of yours: status, output, failure, receipt CID and attestation UID.', { taskId: z.string().min(1).max(64) }, { task: TaskOut }, ({ taskId }) => {
    const t = d.tasks.get(taskId)
    if (!canRead(p, t)) throw notFound('task')
    return { task: taskOut(d.tasks.detail(t, true)) }
  })

  tool('list_tasks', 'Your latest tasks, newest first (an agent-bound key: its agent\'s).', {
    status: z.enum(['PENDING_APPROVAL', 'QUEUED', 'PROCESSING', 'COMPLETED', 'FAILED']).optional(),
    limit: z.number().int().min(1).max(100).optional().describe('default 20'),
  }, { tasks: z.array(z.object({ id: z.string(), status: z.string(), taskType: z.string(), agentId: z.string(), receiptCid: z.string().nullable(), createdAt: z.string() }).passthrough()), total: z.number() }, ({ status, limit }) => {
    const page = d.tasks.list({ operatorId: p.operator.id, agentId: p.key?.agentId ?? undefined, status, limit: limit ?? 20 })
    return { tasks: page.data, total: page.total }
  })

  tool('verify_receipt', 'Check a receipt (or task document) by its IPFS CID: the content re-hashed to the CID and the EIP-712 signature verified against the service signer.', { cid: z.string().min(1).max(128) }, {
    kind: z.enum(['receipt', 'task']), signatureValid: z.boolean().optional(), cidMatches: z.boolean(), signer: z.string().optional(), signerKnown: z.boolean().optional(), taskId: z.string(),
  }, async ({ cid }) => {
    const v = await d.proofs.verify(cid)
    return { kind: v.kind, ...v.verification, taskId: v.task.id }
  })

  tool('get_passport', 'An agent\'s public passport: trust level, metrics and what the next level needs.', { agentId: z.string().min(1).max(128) }, {
    agentId: z.string(), trustLevel: z.string(), ari: z.number(), vci: z.number(), cq: z.number(), driftScore: z.number(), totalTasks: z.number(), verifiedTasks: z.number(),
  }, ({ agentId }) => passportOf(d.passport, agentId))

  tool('pending_approvals', 'Approval requests waiting for a human decision (an agent-bound key: its agent\'s).', {}, {
    pending: z.array(z.object({ id: z.string(), taskId: z.string().nullable(), agentId: z.string().nullable(), requestedValue: z.number().nullable() }).passthrough()),
  }, () => ({ pending: d.approvals.list(scopeOf(p), 'PENDING', 100).data }))

  return server
}
