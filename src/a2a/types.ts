// What the A2A door works with (src/a2a/service.ts, and its JSON-RPC side, src/a2a/rpc.ts).
import type { ApprovalService } from '../approvals/service'
import type { Authenticator, Principal } from '../http/auth'
import type { Logger } from '../log'
import type { PipelineRunner } from '../pipeline/runner'
import type { TaskService } from '../tasks/service'
import type { SubmitService } from '../tasks/submit'
import type { A2aPush } from './push'

export interface A2aDoorDeps {
  /** TASKGATE_PUBLIC_URL (may be empty: the card then names the request's own origin). */
  publicUrl: string
  version: string
  submit: Pick<SubmitService, 'submit'>
  pipeline: Pick<PipelineRunner, 'settle' | 'task' | 'events'>
  tasks: Pick<TaskService, 'cancel' | 'list'>
  approvals: Pick<ApprovalService, 'idForTask'>
  /** Push notification configs: checks, storage, the limits (src/a2a/push.ts). */
  push: Pick<A2aPush, 'check' | 'assertRoom' | 'save' | 'get' | 'list' | 'remove'>
  /** A stream ends within seconds once its credential is revoked or its operator suspended (as every event stream). */
  auth: Pick<Authenticator, 'streamGuard'>
  ssePingMs: number
  log: Logger
}

/**
 * One call to /a2a: who calls, the HTTP request (its headers: A2A-Version, x-taskgate-agent-id,
 * an x402 payment), the client address on demand, and the answer's headers as they become known.
 */
export interface A2aCall { principal: Principal; request: Request; ip: () => string; requestId: string; headers: Record<string, string | number> }

/** How long a blocking message/stream waits for its task (through the overflow queue and retries), as the OpenAI door. */
export const A2A_WAIT_MS = 600_000
