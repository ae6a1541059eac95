// HTTP for compute: admin provider registry, direct compute requests, overflow job status (SSE).
import { t } from 'elysia'
import { notFound } from '../http/errors'
import { defineRoute, errorsOf } from '../http/route'
import { Id, PROBLEM_CODE } from '../http/schemas'
import { PAYMENT_ERRORS, PAYMENT_REQUEST_HEADERS, PAYMENT_RESPONSE_HEADERS } from '../money/x402'
import { TaskType } from '../tasks/schema'
import type { Services } from '../services'
import { SSE_HEADERS } from '../http/sse'
import { canRead } from '../http/auth'
import { submitCompute } from './submit'

const ProviderKind = t.Union([t.Literal('openai'), t.Literal('anthropic'), t.Literal('builtin')])

const ProviderView = t.Object({
  id: t.String(), name: t.String(), kind: ProviderKind, baseUrl: t.Union([t.String(), t.Null()]), models: t.Array(t.String()),
  keys: t.Array(t.Object({ id: t.String(), keyPrefix: t.String(), rpm: t.Integer(), concurrency: t.Integer(), inflight: t.Integer(), state: t.String() })),
})

const ModelPrice = t.Object({ model: t.String(), inputUsdPerMTok: t.Number(), outputUsdPerMTok: t.Number(), updatedAt: t.String({ format: 'date-time' }) })
const PriceParams = t.Object({ model: t.String({ minLength: 1, maxLength: 128, description: 'the model name as clients send it' }) })

export function computeRoutes(s: Services) {
  return [
    defineRoute({
      method: 'POST', path: '/api/v1/admin/providers', auth: 'bearer', admin: true, tags: ['Admin'],
      body: t.Object({
        name: t.String({ minLength: 1, maxLength: 64 }),
        kind: t.Union([t.Literal('openai'), t.Literal('anthropic'), t.Literal('builtin')], { description: 'openai or anthropic; `builtin` always exists and is refused here (400 BUILTIN_PROVIDER_EXISTS)' }),
        baseUrl: t.Optional(t.String({ maxLength: 512, pattern: '^https?://[^\\u0000]*$', description: 'http(s) URL of the API', [PROBLEM_CODE]: 'INVALID_BASE_URL' })),
        models: t.Array(t.String({ minLength: 1, maxLength: 128 }), { minItems: 1, maxItems: 64, uniqueItems: true }),
        keys: t.Optional(t.Array(t.Object({ key: t.String({ minLength: 1, maxLength: 512 }), rpm: t.Optional(t.Integer({ minimum: 1, maximum: 1_000_000 })), concurrency: t.Optional(t.Integer({ minimum: 1, maximum: 1024 })) }), { maxItems: 256, description: 'required, at least one, for openai and anthropic (400 PROVIDER_KEYS_REQUIRED)' })),
      }, {
        // enforced by the service with its own codes; stated here for the document (http/request-schema.ts)
        allOf: [
          { if: { properties: { kind: { enum: ['openai', 'anthropic'] } }, required: ['kind'] }, then: { required: ['keys'], properties: { keys: { minItems: 1 } } } },
          { if: { properties: { kind: { const: 'builtin' } }, required: ['kind'] }, then: false },
        ],
      }),
      summary: 'Add an LLM provider with its pool of keys',
      description: 'kinds: openai (any OpenAI-compatible chat completions endpoint), anthropic (messages API); both need at least one key (400 PROVIDER_KEYS_REQUIRED). Keys default to 60 rpm and concurrency 4. A model served by another provider → 409 MODEL_TAKEN. The keys are never returned (keyPrefix only; keys shorter than 16 characters show as ****).',
      errors: { 400: ['PROVIDER_KEYS_REQUIRED', 'BUILTIN_PROVIDER_EXISTS'], 409: ['PROVIDER_NAME_TAKEN', 'MODEL_TAKEN'] },
      responses: { 201: { description: 'created', schema: ProviderView, links: { remove: { route: 'DELETE /api/v1/admin/providers/:id', parameters: { id: '$response.body#/id' } } } } },
      handler: ({ body, set }) => { const p = s.compute.create(body); set.status = 201; return s.compute.view(p) },
    }),
    defineRoute({
      method: 'GET', path: '/api/v1/admin/providers', auth: 'bearer', admin: true, tags: ['Admin'], summary: 'List providers and key pool state',
      responses: { 200: { description: 'providers', schema: t.Array(ProviderView) } },
      handler: () => s.compute.list().map((p) => s.compute.view(p)),
    }),
    defineRoute({
      method: 'DELETE', path: '/api/v1/admin/providers/:id', auth: 'bearer', admin: true, tags: ['Admin'], params: t.Object({ id: Id(64, 'provider id (`prov_…`)') }),
      errors: { 404: ['NOT_FOUND'], 409: ['BUILTIN_PROVIDER'] },
      summary: 'Remove a provider', responses: { 204: { description: 'removed' } },
      handler: ({ params, set }) => { s.compute.remove(params.id); set.status = 204; return '' },
    }),
    defineRoute({
      method: 'GET', path: '/api/v1/admin/prices', auth: 'bearer', admin: true, tags: ['Admin'],
      summary: 'The models\' prices (USD per million tokens)',
      description: 'Stage 3 records each task\'s tokens and its estimated cost from its model\'s price at that time; a model without a price costs null. Where the cost shows: `usage` and `costUsd` on the owner\'s task view (GET /api/v1/tasks/{id}) and on each task of the data export (GET /api/v1/operator/export), and per day as `tokens` and `costUsd` in the daily stats (GET /api/v1/operator/stats/daily; over all operators GET /api/v1/public/stats/daily), which the console\'s dashboard charts.',
      responses: { 200: { description: 'prices, by model', schema: t.Array(ModelPrice) } },
      handler: () => s.prices.list(),
    }),
    defineRoute({
      method: 'PUT', path: '/api/v1/admin/prices/:model', auth: 'bearer', admin: true, tags: ['Admin'], params: PriceParams,
      body: t.Object({
        inputUsdPerMTok: t.Number({ minimum: 0, maximum: 1_000_000, description: 'USD per million prompt (input) tokens' }),
        outputUsdPerMTok: t.Number({ minimum: 0, maximum: 1_000_000, description: 'USD per million completion (output) tokens' }),
      }),
      summary: 'Set a model\'s price',
      description: 'Applies to tasks computed from now on; a task keeps the cost it was computed with. Any model name may be priced, served or not (a price outlives a provider that is replaced).',
      responses: { 200: { description: 'the price as stored', schema: ModelPrice } },
      handler: ({ params, body }) => s.prices.set(params.model, body.inputUsdPerMTok, body.outputUsdPerMTok),
    }),
    defineRoute({
      method: 'DELETE', path: '/api/v1/admin/prices/:model', auth: 'bearer', admin: true, tags: ['Admin'], params: PriceParams,
      errors: { 404: ['NOT_FOUND'] },
      summary: 'Remove a model\'s price', responses: { 204: { description: 'removed: its tasks cost null from now on' } },
      handler: ({ params, set }) => { s.prices.remove(params.model); set.status = 204; return '' },
    }),
    defineRoute({
      method: 'POST', path: '/api/v1/compute', auth: 'either', tags: ['Compute'],
      body: t.Object({
        model: t.Optional(t.String({ minLength: 1, maxLength: 128 })),
        prompt: t.Optional(t.String({ minLength: 1, maxLength: 100_000 })),
        messages: t.Optional(t.Array(t.Object({ role: t.Union([t.Literal('system'), t.Literal('user'), t.Literal('assistant')]), content: t.String({ maxLength: 100_000 }) }), { minItems: 1, maxItems: 256 })),
        taskType: t.Optional(TaskType),
        agentId: t.Optional(Id(128, 'an agent of the operator (default: the calling key\'s agent)')),
      }, {
        // "prompt or messages": enforced by the handler as 400 PROMPT_REQUIRED (http/request-schema.ts)
        anyOf: [{ required: ['prompt'] }, { required: ['messages'] }],
      }),
      requestHeaders: ['Idempotency-Key', ...PAYMENT_REQUEST_HEADERS],
      errors: errorsOf(PAYMENT_ERRORS, { 400: ['PROMPT_REQUIRED', 'UNKNOWN_MODEL', 'INVALID_IDEMPOTENCY_KEY'], 403: ['AGENT_KEY_MISMATCH', 'GUARDRAIL_BLOCKED', 'KILL_SWITCH_ACTIVE', 'TOS_NOT_ACCEPTED'], 404: ['NOT_FOUND'], 409: ['IDEMPOTENCY_KEY_REUSED'] }),
      summary: 'Queue a compute job (runs at once when the pool has capacity)',
      description: '202 `{ jobId, status: "queued", position, statusUrl }`; follow `statusUrl` (SSE). While the operator\'s kill-switch is on → 403 KILL_SWITCH_ACTIVE before any payment or credit, and no job is recorded (a replayed Idempotency-Key still answers the original job); turning it on fails queued jobs (`failed`, code KILL_SWITCH_ACTIVE) and refunds them. The operator\'s active guardrails apply as to a task\'s stage 1 (allowedTaskTypes on `taskType`, maxPromptLength and blockedPatterns on the prompt or the messages\' contents joined by newlines, maxCreditsPerDay on the cost; maxTasksPerHour counts tasks only): a block → 403 GUARDRAIL_BLOCKED before any payment or credit, no job created. Costs the task cost of `taskType` (default general); refunded if the job fails. The job belongs to `agentId` (an agent of the operator, else 404), or to the calling key\'s agent when none is named; an agent-bound key naming another agent → 403 AGENT_KEY_MISMATCH, nothing charged. `Idempotency-Key` (1-255 characters): a replay of the same request answers the original 202 body with `idempotent-replayed: true`, before any payment or credit check (nothing charged again); the same key with another request → 409 IDEMPOTENCY_KEY_REUSED. `position` counts queued jobs for the same model ahead of this one.',
      responses: { 202: {
        description: 'queued', schema: t.Object({ jobId: t.String(), status: t.Literal('queued'), position: t.Integer({ minimum: 0 }), statusUrl: t.String() }),
        headers: { 'idempotent-replayed': 'idempotent-replayed', ...PAYMENT_RESPONSE_HEADERS },
        links: { status: { route: 'GET /api/v1/compute/:jobId/status', parameters: { jobId: '$response.body#/jobId' }, description: 'follow the job (server-sent events)' } },
      } },
      handler: async (c) => {
        const { auth, body, set, request } = c
        const r = await submitCompute(s, auth, body, request.headers.get('idempotency-key'), request, () => c.ip)
        if (r.paymentHeaders) Object.assign(set.headers, r.paymentHeaders)
        if (r.replayed) set.headers['idempotent-replayed'] = 'true'
        set.status = 202
        return r.body
      },
    }),
    defineRoute({
      method: 'GET', path: '/api/v1/compute/:jobId/status', auth: 'either', queryToken: true, longLived: true, tags: ['Compute'], params: t.Object({ jobId: Id(64, 'job id (`job_…`)') }),
      requestHeaders: ['Last-Event-ID'],
      errors: { 404: ['NOT_FOUND'] },
      summary: 'Status of a compute job (server-sent events)',
      description: 'Events `queued` { position }, `running`, `completed` { result }, `failed` { code, message }, each with an `id:`; `: ping` every 15 s; ends after the terminal event; `Last-Event-ID` resumes; a finished job replays its terminal event. `?access_token=` for EventSource clients. Another operator\'s job, or for an agent-bound key another agent\'s job (or one not bound to an agent) → 404. The stream also ends within seconds once its credential is revoked, the token logged out or the operator suspended. The server\'s idle timeout does not apply.',
      responses: { 200: {
        description: 'the job\'s events until its terminal one', headers: { 'Cache-Control': 'Cache-Control' },
        events: {
          queued: { description: 'waiting for a key of the pool', data: t.Object({ jobId: t.String(), status: t.Literal('queued'), position: t.Integer({ minimum: 0 }) }) },
          running: { description: 'a key took the job', data: t.Object({ jobId: t.String(), status: t.Literal('running') }) },
          completed: { description: 'terminal: the result', data: t.Object({ jobId: t.String(), status: t.Literal('completed'), result: t.Object({ output: t.String(), model: t.String(), provider: t.String(), usage: t.Unknown(), latencyMs: t.Integer() }) }) },
          failed: { description: 'terminal: the job failed (its credits are refunded)', data: t.Object({ jobId: t.String(), status: t.Literal('failed'), code: t.String(), message: t.String() }) },
        },
      } },
      handler: ({ auth, params, request }) => {
        const job = s.overflow.job(params.jobId)
        if (!job || !canRead(auth, job)) throw notFound('compute job')
        const last = Number(request.headers.get('last-event-id') ?? 0)
        return new Response(s.overflow.stream(job.id, Number.isSafeInteger(last) && last > 0 ? last : 0, s.auth.streamGuard(auth, request.signal), s.config.ssePingMs), { headers: SSE_HEADERS })
      },
    }),
  ]
}
