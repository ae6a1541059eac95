// HTTP for compute: admin provider registry, direct compute requests, overflow job status (SSE).
import { t } from 'elysia'
import { InsufficientCredits } from '../credits/ledger'
import { badRequest, notFound } from '../http/errors'
import { defineRoute } from '../http/route'
import { newId } from '../lib/ids'
import type { Services } from '../services'
import { SSE_HEADERS } from '../http/sse'

const ProviderView = t.Object({
  id: t.String(), name: t.String(), kind: t.String(), baseUrl: t.Union([t.String(), t.Null()]), models: t.Array(t.String()),
  keys: t.Array(t.Object({ id: t.String(), keyPrefix: t.String(), rpm: t.Integer(), concurrency: t.Integer(), inflight: t.Integer(), state: t.String() })),
})

export function computeRoutes(s: Services) {
  return [
    defineRoute({
      method: 'POST', path: '/api/v1/admin/providers', auth: 'bearer', admin: true, tags: ['Admin'],
      body: t.Object({
        name: t.String({ minLength: 1, maxLength: 64 }),
        kind: t.Union([t.Literal('openai'), t.Literal('anthropic'), t.Literal('builtin')]),
        baseUrl: t.Optional(t.String({ maxLength: 512 })),
        models: t.Array(t.String({ minLength: 1, maxLength: 128 }), { minItems: 1, maxItems: 64, uniqueItems: true }),
        keys: t.Optional(t.Array(t.Object({ key: t.String({ minLength: 1, maxLength: 512 }), rpm: t.Optional(t.Integer({ minimum: 1, maximum: 1_000_000 })), concurrency: t.Optional(t.Integer({ minimum: 1, maximum: 1024 })) }), { maxItems: 256 })),
      }),
      summary: 'Add an LLM provider with its pool of keys',
      description: 'kinds: openai (any OpenAI-compatible chat completions endpoint), anthropic (messages API); both need at least one key (400 PROVIDER_KEYS_REQUIRED). Keys default to 60 rpm and concurrency 4. A model served by another provider → 409 MODEL_TAKEN. The keys are never returned (keyPrefix only; keys shorter than 16 characters show as ****).',
      responses: { 201: { description: 'created', schema: ProviderView } },
      handler: ({ body, set }) => { const p = s.compute.create(body); set.status = 201; return s.compute.view(p) },
    }),
    defineRoute({
      method: 'GET', path: '/api/v1/admin/providers', auth: 'bearer', admin: true, tags: ['Admin'], summary: 'List providers and key pool state',
      responses: { 200: { description: 'providers', schema: t.Array(ProviderView) } },
      handler: () => s.compute.list().map((p) => s.compute.view(p)),
    }),
    defineRoute({
      method: 'DELETE', path: '/api/v1/admin/providers/:id', auth: 'bearer', admin: true, tags: ['Admin'], params: t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) }),
      summary: 'Remove a provider', responses: { 204: { description: 'removed' } },
      handler: ({ params, set }) => { s.compute.remove(params.id); set.status = 204; return '' },
    }),
    defineRoute({
      method: 'POST', path: '/api/v1/compute', auth: 'either', tags: ['Compute'],
      body: t.Object({
        model: t.Optional(t.String({ minLength: 1, maxLength: 128 })),
        prompt: t.Optional(t.String({ minLength: 1, maxLength: 100_000 })),
        messages: t.Optional(t.Array(t.Object({ role: t.Union([t.Literal('system'), t.Literal('user'), t.Literal('assistant')]), content: t.String({ maxLength: 100_000 }) }), { minItems: 1, maxItems: 256 })),
        taskType: t.Optional(t.String({ maxLength: 64 })),
        agentId: t.Optional(t.String({ maxLength: 128 })),
      }),
      summary: 'Queue a compute job (runs at once when the pool has capacity)',
      description: '202 `{ jobId, status: "queued", position, statusUrl }`; follow `statusUrl` (SSE). Costs the task cost of `taskType` (default general); refunded if the job fails.',
      responses: { 202: { description: 'queued', schema: t.Object({ jobId: t.String(), status: t.String(), position: t.Integer(), statusUrl: t.String() }) } },
      handler: async ({ auth, body, set, request, ip }) => {
        const model = body.model ?? 'builtin'
        if (!s.compute.resolveModel(model)) throw badRequest('UNKNOWN_MODEL', `no provider serves model ${model}`)
        const messages = body.messages ?? (body.prompt ? [{ role: 'user' as const, content: body.prompt }] : null)
        if (!messages) throw badRequest('PROMPT_REQUIRED', 'send prompt or messages')
        if (body.agentId) s.agents.owned(auth.operator.id, body.agentId)
        const cost = s.tasks.costOf(body.taskType ?? 'general')
        const paid = await s.x402.gate(request, auth, cost, ip)
        if (paid) set.headers['x-payment-response'] = paid.header
        const id = newId('job')
        let job
        try {
          job = s.db.$client.transaction(() => {
            s.ledger.debit(auth.operator.id, cost, 'compute_debit', `compute:${id}`)
            return s.overflow.enqueue(auth.operator.id, { model, messages, taskType: body.taskType }, { id, creditsCharged: cost })
          })()
        } catch (e) {
          if (e instanceof InsufficientCredits) throw s.x402.paymentRequired(request, cost, e.extra.balance as number)
          throw e
        }
        set.status = 202
        return { jobId: job.id, status: 'queued', position: job.position, statusUrl: `/api/v1/compute/${job.id}/status` }
      },
    }),
    defineRoute({
      method: 'GET', path: '/api/v1/compute/:jobId/status', auth: 'either', queryToken: true, tags: ['Compute'], params: t.Object({ jobId: t.String({ minLength: 1, maxLength: 64 }) }),
      summary: 'Status of a compute job (server-sent events)',
      description: 'Events `queued` { position }, `running`, `completed` { result }, `failed` { code, message }, each with an `id:`; `: ping` every 15 s; ends after the terminal event; `Last-Event-ID` resumes; a finished job replays its terminal event. `?access_token=` for EventSource clients.',
      responses: { 200: { description: 'text/event-stream', contentType: 'text/event-stream' } },
      handler: ({ auth, params, request }) => {
        const job = s.overflow.job(params.jobId)
        if (!job || job.operatorId !== auth.operator.id) throw notFound('compute job')
        const last = Number(request.headers.get('last-event-id') ?? 0)
        return new Response(s.overflow.stream(job.id, Number.isFinite(last) && last > 0 ? last : 0, request.signal, s.config.ssePingMs), { headers: SSE_HEADERS })
      },
    }),
  ]
}
