// Stage 3: compute through the provider pool; a full pool parks the task in the overflow queue.
// Touches: the operators (kill-switch), the clock, the providers, the overflow queue.
import { ComputeFailed } from '../../compute/service'
import { newId } from '../../lib/ids'
import type { CompletionRequest, CompletionResult } from '../../compute/types'
import type { Stage, StageContext, StageResult, TaskRow } from '../types'

type ComputeContext = StageContext<'operators' | 'clock' | 'compute' | 'overflow'>

export function completionRequest(task: TaskRow): CompletionRequest {
  return { model: task.model, taskType: task.taskType, messages: [{ role: 'user', content: task.prompt }] }
}

export const compute: Stage = {
  n: 3,
  name: 'compute',
  run: (ctx: ComputeContext) => {
    const { task, started, clock } = ctx
    // The kill-switch stops tasks that have not reached compute yet (refunded by the failure).
    if (ctx.operators.byId(task.operatorId)?.flags?.killSwitch === true) { started?.abort(); return { fail: { code: 'KILL_SWITCH_ACTIVE', message: 'stopped by the kill-switch before compute' } } }
    const startedAt = started?.startedAt ?? clock.now()
    const now = started ? null : ctx.compute.runNow(completionRequest(task)) // the builtin provider answers at once
    return now ? computed(now, startedAt, clock.now()) : remote(ctx, startedAt)
  },
}

function computed(r: CompletionResult, startedAt: number, finishedAt: number): StageResult {
  return {
    patch: { output: r.output, provider: r.provider, latencyMs: Math.max(1, Math.round(r.latencyMs)), computeStartedAt: startedAt, computeFinishedAt: finishedAt },
    detail: { provider: r.provider, model: r.model, latencyMs: Math.round(r.latencyMs) },
    repeatable: r.repeatable === true,
  }
}

/** A remote provider's call (the one admit() started, or a new one on a free key), or the overflow queue when the pool is full. */
async function remote({ task, started, clock, compute, overflow }: ComputeContext, startedAt: number): Promise<StageResult> {
  try {
    const r = await compute.tryRun(completionRequest(task), started)
    if (r === 'busy') {
      // The job is queued by the commit that parks the task (apply): it cannot start, let alone
      // finish, before the task is QUEUED, and a commit that fails leaves neither.
      const queued = { jobId: newId('job'), position: 0 }
      return {
        queued, patch: { computeJobId: queued.jobId },
        apply: () => { queued.position = overflow.enqueue(task.operatorId, completionRequest(task), { id: queued.jobId, taskId: task.id, agentId: task.agentId }).position },
      }
    }
    return computed(r, startedAt, clock.now())
  } catch (e) {
    if (e instanceof ComputeFailed) return { fail: { code: 'COMPUTE_FAILED', message: e.message } }
    throw e
  }
}
