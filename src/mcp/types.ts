// What the MCP door works with (src/mcp/service.ts, and its tools, src/mcp/tools.ts).
import type { ApprovalService } from '../approvals/service'
import type { Principal } from '../http/auth'
import type { ProofDocuments } from '../proofs/documents'
import type { PassportDeps } from '../public/passport'
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
