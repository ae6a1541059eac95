// HTTP for the approval queue (docs/governance.md, "Approvals"): list, count, detail,
// resolve and the one-shot callback. Bearer token or API key; an agent-bound key sees and acts on
// its own agent's requests only (another agent's → 404) and never resolves them.
import { defineRoute } from '../http/route'
import { queryInt } from '../http/schemas'
import type { Services } from '../services'
import { scopeOf } from './service'
import { Approval, APPROVAL_PAGE, ApprovalIdParams, ApprovalListQuery, CallbackBody, CallbackRegistered, ResolveBody, Resolved } from './schema'
import { t } from 'elysia'

export function approvalRoutes(s: Services) {
  const tags = ['Approvals']
  return [
    defineRoute({
      method: 'GET', path: '/api/v1/approvals', auth: 'either', tags, query: ApprovalListQuery,
      summary: 'The operator\'s approval requests (default: PENDING)',
      description: 'Newest first, `?limit=` at a time (1–1000, default 1000). When older requests follow, a `Link: <…>; rel="next"` header gives the next page (`?before=` the last id of this one: keyset pagination, stable while new requests arrive). `?decision=` PENDING (default), APPROVED, DENIED or EXPIRED. A submission is held (202, task PENDING_APPROVAL, nothing charged) when its `action.requestedValue` exceeds the guardrail `approvalThreshold` and not every `approvalAutoRules` rule passes (an empty rule list never auto-approves). The bearer token and operator keys see all of the operator\'s requests; an agent-bound key only its own agent\'s (a cursor of another agent\'s → 400 INVALID_CURSOR).',
      errors: { 400: ['INVALID_CURSOR'] },
      responses: { 200: { description: 'approval requests', schema: t.Array(Approval), headers: { Link: 'Link' } } },
      handler: ({ auth, query, set }) => {
        const decision = query.decision ?? 'PENDING'
        const limit = queryInt('limit', query.limit, APPROVAL_PAGE)
        const page = s.approvals.list(scopeOf(auth), decision, limit, query.before)
        if (page.more) set.headers.link = `</api/v1/approvals?decision=${decision}&limit=${limit}&before=${page.data[page.data.length - 1]!.id}>; rel="next"`
        return page.data
      },
    }),
    defineRoute({
      method: 'GET', path: '/api/v1/approvals/count', auth: 'either', tags,
      summary: 'How many approval requests are pending',
      description: 'The operator\'s; for an agent-bound key, its own agent\'s.',
      responses: { 200: { description: 'the pending count', schema: t.Object({ pending: t.Integer({ minimum: 0 }) }) } },
      handler: ({ auth }) => s.approvals.count(scopeOf(auth)),
    }),
    defineRoute({
      method: 'GET', path: '/api/v1/approvals/:id', auth: 'either', tags, params: ApprovalIdParams,
      summary: 'One approval request',
      description: 'Another operator\'s request → 404; for an agent-bound key, another agent\'s request too.',
      errors: { 404: ['NOT_FOUND'] },
      responses: { 200: { description: 'the approval request', schema: Approval } },
      handler: ({ auth, params }) => s.approvals.view(s.approvals.owned(scopeOf(auth), params.id)),
    }),
    defineRoute({
      method: 'PATCH', path: '/api/v1/approvals/:id', auth: 'either', tags, params: ApprovalIdParams, body: ResolveBody,
      summary: 'Approve or deny a held task',
      description: '`approved`: the task first meets again, against the present, the stage-1 checks that may have changed while it was held: the kill-switch, the agent (active, its capabilities) and the ACTIVE guardrails (allowedTaskTypes, maxPromptLength, blockedPatterns, maxTasksPerHour, maxCreditsPerDay). One that no longer passes fails the task with its code (GUARDRAIL_BLOCKED or KILL_SWITCH_ACTIVE), uncharged: `resumeError` says why and `receipt` is the FAILED task\'s (with `failureCode`). Otherwise the task resumes at stage 2 (the debit, then compute → receipt); the answer waits up to 30 s and carries `receipt` when the task finished by then (else null: follow the task). Not enough credits at that point fails the task the same way (INSUFFICIENT_CREDITS). The decision stays APPROVED in every case. `denied`: the task FAILS with APPROVAL_DENIED and nothing is charged. `note` becomes `decisionNote`. Either way `approval.resolved` goes to the webhook URL and to the one-shot callback. Only the operator\'s bearer token or an operator key resolves: an agent-bound key → 403 APPROVAL_RESOLVE_FORBIDDEN (404 for another agent\'s request, which it does not see). A request already resolved or expired → 409 APPROVAL_ALREADY_RESOLVED; another operator\'s → 404.',
      errors: { 403: ['APPROVAL_RESOLVE_FORBIDDEN'], 404: ['NOT_FOUND'], 409: ['APPROVAL_ALREADY_RESOLVED'] },
      responses: { 200: { description: 'resolved', schema: Resolved } },
      longLived: true,
      handler: ({ auth, params, body }) => s.approvals.resolve(auth, params.id, body.decision, body.note ?? null),
    }),
    defineRoute({
      method: 'POST', path: '/api/v1/approvals/:id/callback', auth: 'either', tags, params: ApprovalIdParams, body: CallbackBody,
      summary: 'Register a one-shot callback URL for the resolution',
      description: 'On resolution (approved, denied, or expired) the URL gets one `approval.resolved` POST, signed like the webhooks (docs/webhooks.md), and the registration is removed; a newer registration replaces an older one. The URL must be http(s) and, unless `TASKGATE_WEBHOOK_ALLOW_PRIVATE=1`, not resolve to a loopback, private, link-local, metadata or other special-purpose address (400 WEBHOOK_URL_NOT_ALLOWED; checked again at delivery, and the POST goes to the address checked then: docs/security.md). A request no longer pending → 409 APPROVAL_ALREADY_RESOLVED.',
      errors: { 400: ['WEBHOOK_URL_NOT_ALLOWED'], 404: ['NOT_FOUND'], 409: ['APPROVAL_ALREADY_RESOLVED'] },
      responses: { 201: { description: 'registered', schema: CallbackRegistered } },
      handler: async ({ auth, params, body, set }) => {
        s.approvals.owned(scopeOf(auth), params.id)
        await s.outbound.assertAllowed(body.callbackUrl, 'callbackUrl')
        s.approvals.registerCallback(auth, params.id, body.callbackUrl)
        set.status = 201
        return { registered: true as const, approvalId: params.id }
      },
    }),
  ]
}
