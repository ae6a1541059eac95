// Shapes of the approval queue routes (docs/governance.md, "Approvals").
import { t } from 'elysia'
import { DateTime, HttpUrl, Id, type IntBounds, Nullable, QueryInt } from '../http/schemas'

export const DecisionName = t.Union([t.Literal('PENDING'), t.Literal('APPROVED'), t.Literal('DENIED'), t.Literal('EXPIRED')])

export const Approval = t.Object({
  id: t.String({ description: 'approval request id (`apr_…`)' }),
  taskId: t.String(), operatorId: t.String(), agentId: t.String(),
  actionType: Nullable(t.String()), operation: Nullable(t.String()), target: Nullable(t.String()),
  requestedValue: Nullable(t.Number()), currency: Nullable(t.String()),
  triggerPolicy: t.String({ description: '`human_approval_threshold`' }), triggerReason: t.String(),
  policyEvaluations: t.Array(t.Object({ name: t.String(), result: t.Union([t.Literal('pass'), t.Literal('fail'), t.Literal('conditional')]), reason: t.String() }), { description: 'the threshold check, then each auto-approve rule' }),
  evidenceRefs: t.Object({}, { additionalProperties: true, description: '`{ refs }`: the submission\'s `action.evidenceRefs`' }),
  decision: DecisionName,
  decidedBy: Nullable(t.String({ description: 'the operator who resolved it (null when it expired)' })),
  decidedAt: Nullable(DateTime), decisionNote: Nullable(t.String()), createdAt: DateTime, expiresAt: Nullable(DateTime),
})

export const APPROVAL_PAGE: IntBounds = { minimum: 1, maximum: 1000, default: 1000 }
export const ApprovalListQuery = t.Object({
  decision: t.Optional(t.Union(DecisionName.anyOf, { description: 'default PENDING' })),
  limit: t.Optional(QueryInt('page size (newest first)', APPROVAL_PAGE)),
  before: t.Optional(Id(64, 'cursor: only requests older than this approval id (take it from the `Link: rel="next"` header)')),
})

export const ApprovalIdParams = t.Object({ id: Id(64, 'approval request id (`apr_…`)') })

export const ResolveBody = t.Object({
  decision: t.Union([t.Literal('approved'), t.Literal('denied')]),
  note: t.Optional(t.Union([t.String({ maxLength: 2000 }), t.Null()], { description: 'stored as `decisionNote`' })),
}, { additionalProperties: false })

export const ResolveReceipt = t.Object({
  taskId: t.String(), status: t.Union([t.Literal('COMPLETED'), t.Literal('FAILED')]), agentId: t.String(), latencyMs: Nullable(t.Number()),
  creditCharged: t.Integer(), ipfsCid: Nullable(t.String()), attestationUid: Nullable(t.String()), verificationBasescanUrl: Nullable(t.String()),
  receiptCid: Nullable(t.String({ description: 'the signed receipt: GET /api/v1/public/proof/{cid}' })), failureCode: Nullable(t.String()),
})

export const Resolved = t.Object({
  success: t.Literal(true), decision: t.Union([t.Literal('approved'), t.Literal('denied')]), taskId: t.String(),
  receipt: Nullable(ResolveReceipt),
  resumeError: Nullable(t.String({ description: 'why the approved task could not resume: the present guardrails or kill-switch refuse it, or the credits do not cover it (the task FAILED, uncharged; `receipt.failureCode` gives the code); the decision is recorded' })),
})

export const CallbackBody = t.Object({
  callbackUrl: HttpUrl('http(s) URL that gets `approval.resolved` once'),
}, { additionalProperties: false })

export const CallbackRegistered = t.Object({ registered: t.Literal(true), approvalId: t.String() })
