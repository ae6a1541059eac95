// HTTP for the operator's data export (docs/governance.md, "Data export").
import { t } from 'elysia'
import { ApiKeyRecord } from '../keys/schema'
import { Agent } from '../agents/schema'
import { Certificate } from '../compliance/schema'
import { GuardrailsView } from '../guardrails/schema'
import { defineRoute } from '../http/route'
import { DateTime, Nullable } from '../http/schemas'
import { OperatorProfile } from '../operators/schema'
import type { Services } from '../services'
import { TaskDetail } from '../tasks/schema'
import { TosAcceptanceRecord, TosStatus } from '../tos/schema'

const ExportDocument = t.Object({
  exportedAt: DateTime, operatorId: t.String(),
  profile: OperatorProfile,
  keys: t.Array(ApiKeyRecord, { description: 'key records: prefix and last 4 characters only' }),
  agents: t.Array(Agent),
  tasks: t.Array(TaskDetail, { description: 'every task, oldest first, as its owner reads it (prompt, output, receipt, timeline)' }),
  ledger: t.Array(t.Object({ id: t.Integer(), delta: t.Integer(), balanceAfter: t.Integer(), bucket: t.String(), reason: t.String(), taskId: Nullable(t.String()), createdAt: DateTime })),
  guardrails: GuardrailsView,
  approvals: t.Array(t.Object({}, { additionalProperties: true }), { description: 'approval requests' }),
  tos: t.Object({ status: TosStatus, acceptances: t.Array(TosAcceptanceRecord) }),
  certificates: t.Array(Certificate),
  wallet: t.Object({ walletAddress: Nullable(t.String()) }),
  pioneerEvents: t.Array(t.Object({ id: t.Integer(), kind: t.String(), points: t.Integer(), ref: t.String(), createdAt: DateTime })),
  a2aPushConfigs: t.Array(t.Object({
    id: t.String({ description: 'the client\'s config id' }), taskId: t.String(), agentId: Nullable(t.String()), url: t.String(),
    protocolVersion: t.String({ description: '`1.0` or `0.3`: the shape of its notifications' }),
    tokenSet: t.Boolean({ description: 'whether it has a token (never exported)' }), authenticationScheme: Nullable(t.String({ description: 'the Authorization scheme, when it has one (the credentials are never exported)' })),
    createdAt: DateTime, doneAt: Nullable(DateTime),
  }), { description: 'A2A push notification configs of the operator\'s tasks (docs/doors.md, "A2A"), oldest first; those of tasks finished more than TASKGATE_RETENTION_DAYS ago are deleted' }),
})

export function exportRoutes(s: Services) {
  return [
    defineRoute({
      method: 'GET', path: '/api/v1/operator/export', auth: 'bearer', allowInactive: true, tags: ['Governance'],
      summary: 'Export all of the operator\'s data as one JSON document (streamed)',
      description: 'Members: `profile`, `keys`, `agents`, `tasks` (with prompts and outputs, each task\'s `door`, token `usage` and estimated `costUsd`), `ledger`, `guardrails`, `approvals`, `tos`, `certificates`, `wallet`, `pioneerEvents`. Streamed page by page, with `Content-Disposition: attachment`. It holds no secret: no API key (only its prefix and last 4 characters) or key hash, no password hash, token, webhook secret or provider key. Also for SUSPENDED and BANNED operators.',
      responses: {
        200: {
          description: 'the export', schema: ExportDocument,
          headers: { 'Content-Disposition': { description: '`attachment; filename="taskgate-export-<operatorId>-<date>.json"`', schema: { type: 'string' } } },
        },
      },
      handler: ({ auth }) => {
        const id = auth.operator.id
        const name = `taskgate-export-${id}-${new Date(s.clock.now()).toISOString().slice(0, 10)}.json`
        return new Response(s.exporter.stream(id), {
          headers: { 'content-type': 'application/json; charset=utf-8', 'content-disposition': `attachment; filename="${name}"`, 'cache-control': 'no-store' },
        })
      },
    }),
  ]
}
