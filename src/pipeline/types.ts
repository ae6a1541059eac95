import type { AgentIdentity, AgentService } from '../agents/service'
import type { ChainTips } from '../agents/chain-tips'
import type { Signer } from '../chain/signer'
import type { Clock } from '../clock'
import type { ComputeService, StartedCall } from '../compute/service'
import type { OverflowQueue } from '../compute/overflow'
import type { PriceTable } from '../compute/prices'
import type { Ledger } from '../credits/ledger'
import type { GuardrailStore } from '../guardrails/store'
import type { IpfsNode } from '../ipfs/node'
import type { OperatorService } from '../operators/service'
import type { PioneerService } from '../pioneer/service'
import type { TaskRepository } from '../tasks/repository'
import type { TaskPatch, TaskRow } from '../tasks/types'

export type { NewTask, TaskPatch, TaskRow } from '../tasks/types'

/**
 * Everything a stage may touch, built once by the composition root. A stage names the members it
 * uses in its own context type (`StageContext<'ledger' | 'costOf'>`), so its file says what it touches.
 */
export interface StageDeps {
  clock: Pick<Clock, 'now'>
  /** The operator as cached (kill-switch flag, first task time). */
  operators: Pick<OperatorService, 'byId'>
  guardrails: Pick<GuardrailStore, 'check' | 'current'>
  /** Stage 1's approval threshold (ApprovalService.holdFor): the hold, a refusal, or null to go on. */
  holdFor(task: TaskRow): StageResult | null
  ledger: Pick<Ledger, 'debit'>
  /** What a task of this type costs (TaskService.costOf). */
  costOf(taskType: string): number
  compute: Pick<ComputeService, 'runNow' | 'tryRun'>
  overflow: Pick<OverflowQueue, 'enqueue'>
  /** The models' prices: stage 3's estimated cost. */
  prices: Pick<PriceTable, 'costOf'>
  verificationThreshold: number
  ipfs: Pick<IpfsNode, 'putJson' | 'addJson'>
  chainTips: Pick<ChainTips, 'extend'>
  agents: Pick<AgentService, 'byId' | 'byIdLocked' | 'trust'>
  pioneer: Pick<PioneerService, 'award'>
  /** Pioneer points for a completed task, and for an agent reaching TRUSTED. */
  pioneerPoints: { task: number; trustedLevel: number }
  signer: Pick<Signer, 'attest' | 'signReceipt'>
  taskSchema: { schema: string; uid: string }
  /** The stages' own writes: the agent's chain and counters (6), the attestation (7), the operator's first task (8). */
  tasks: Pick<TaskRepository, 'recordAgentCompletion' | 'insertAttestation' | 'setFirstTaskAt'>
}

/**
 * What a stage runs with: the task as the stages before it left it, its agent's identity
 * (AgentIdentity; what tasks move, the state root and metrics, is read where it is written), stage
 * 3's provider call when admit() started it (`started`: the first run of a task admitted here), the
 * stream of a door that streams (`onDelta`, stage 3 of the first run), and the members of StageDeps it names.
 */
export type StageContext<D extends keyof StageDeps = keyof StageDeps> = { task: TaskRow; agent: AgentIdentity; started?: StartedCall; onDelta?: (text: string) => void } & Pick<StageDeps, D>

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
