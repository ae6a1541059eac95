import type { AgentIdentity } from '../agents/service'
import type { Services } from '../services'
import type { StartedCall } from '../compute/service'
import type { TaskPatch, TaskRow } from '../tasks/types'

export type { NewTask, TaskPatch, TaskRow } from '../tasks/types'

/** `started`: stage 3's provider call, when admit() started it (the first run of a task admitted here). */
/** `agent`: its identity (AgentIdentity); what tasks move (state root, metrics) is read where it is written. */
export interface StageContext { task: TaskRow; agent: AgentIdentity; s: Services; started?: StartedCall }

export interface StageResult {
  patch?: TaskPatch
  detail?: Record<string, unknown>
  /** Ends the task as FAILED with this code (credits refunded when no result exists yet). */
  fail?: { code: string; message: string }
  /** Stage 3 only: the pool is full; the task waits in the overflow queue. */
  queued?: { jobId: string; position: number }
  /**
   * Work the stage started and the next stages need not wait for (a signature, an IPFS write):
   * the runner awaits it before the stage's group commits, and `apply` may use its outcome.
   */
  ready?: Promise<unknown>
  /** Extra writes that must commit together with the stage (inside its transaction); may return more task fields. */
  apply?: () => TaskPatch | void
  /** Stage 3 only: the result may be computed again after a crash (see CompletionResult.repeatable), so it commits with the stages after it. */
  repeatable?: boolean
  /** Stage 1 only: held for human approval (the approval queue plugs in here). */
  hold?: { reason: string }
}

export interface Stage {
  n: number
  name: string
  /** Stages 1 and 2 run synchronously inside the submit transaction. */
  sync?: (ctx: StageContext) => StageResult
  /**
   * Stages 3–8. A result known at once is returned as is, not as a promise: a task then runs its
   * stages up to the first real wait (a provider call, a signature) without yielding, so each task
   * hands its signatures to the signing worker as early as it can (docs/pipeline.md).
   */
  run?: (ctx: StageContext) => StageResult | Promise<StageResult>
}
