import { t } from 'elysia'
import { DateTime, Nullable, TierEnum } from '../http/schemas'

const count = t.Integer({ minimum: 0 })

export const ComplianceSummary = t.Object({
  totalTasks: count,
  taskCounts: t.Object({ PENDING_APPROVAL: count, QUEUED: count, PROCESSING: count, COMPLETED: count, FAILED: count }, { description: 'tasks created in the period, by status (system tasks excluded)' }),
  verifiedTasks: count,
  verificationRate: t.Number({ minimum: 0, maximum: 1, description: 'verified ÷ completed (0 with none completed)' }),
  creditsSpent: t.Integer({ description: 'credits debited for tasks and compute in the period, net of refunds' }),
  agents: t.Array(t.Object({ agentId: t.String(), tasks: count, stateRoot: Nullable(t.String({ description: 'the agent\'s state root at the end of the period' })) })),
})

export const Certificate = t.Object({
  id: t.String(), operatorId: t.String(), tier: t.Union([t.Literal('PRO'), t.Literal('ENTERPRISE')]), issuedAt: DateTime, expiresAt: DateTime,
  periodStart: DateTime, periodEnd: DateTime, summary: ComplianceSummary,
  certHash: t.String({ pattern: '^0x[0-9a-f]{64}$', description: 'keccak256 of the canonical JSON (keys sorted recursively, no whitespace) of the certificate without certHash, signature, signer, ipfsCid' }),
  signature: t.String({ pattern: '^0x[0-9a-fA-F]+$', description: 'EIP-191 personal_sign of the 32 bytes of certHash' }),
  signer: t.String({ description: 'the service signer address (also in /.well-known/taskgate-signers)' }),
  ipfsCid: t.String({ description: 'CID of the canonical JSON of the certificate without ipfsCid' }),
})

export { TierEnum }
