// Stage 3: compute through the provider pool; a full pool parks the task in the overflow queue.
import { ComputeFailed, type StartedCall } from '../../compute/service'
import { newId } from '../../lib/ids'
import type { CompletionRequest, CompletionResult } from '../../compute/types'
import type { Services } from '../../services'
import type { Stage, StageResult, TaskRow } from '../types'

export function completionRequest(task: TaskRow): CompletionRequest {
  return { model: task.model, taskType: task.taskType, messages: [{ role: 'user', content: task.prompt }] }
}

export const compute: Stage = {
  n: 3,
  name: 'compute',
  run: ({ task, s, started }) => {
    // The kill-switch stops tasks that have not reached compute yet (refunded by the failure).
    if (s.operators.byId(task.operatorId)?.flags?.killSwitch === true) { started?.abort(); return { fail: { code: 'KILL_SWITCH_ACTIVE', message: 'stopped by the kill-switch before compute' } } }
    const startedAt = started?.startedAt ?? s.clock.now()
    const now = started ? null : s.compute.runNow(completionRequest(task)) // the builtin provider answers at once
    return now ? computed(now, startedAt, s.clock.now()) : remote(task, s, started, startedAt)
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
async function remote(task: TaskRow, s: Services, started: StartedCall | undefined, startedAt: number): Promise<StageResult> {
  try {
    const r = await s.compute.tryRun(completionRequest(task), started)
    if (r === 'busy') {
      // The job is queued by the commit that parks the task (apply): it cannot start, let alone
      // finish, before the task is QUEUED, and a commit that fails leaves neither.
      const queued = { jobId: newId('job'), position: 0 }
      return {
        queued, patch: { computeJobId: queued.jobId },
        apply: () => { queued.position = s.overflow.enqueue(task.operatorId, completionRequest(task), { id: queued.jobId, taskId: task.id, agentId: task.agentId }).position },
      }
    }
    return computed(r, startedAt, s.clock.now())
  } catch (e) {
    if (e instanceof ComputeFailed) return { fail: { code: 'COMPUTE_FAILED', message: e.message } }
    throw e
  }
}
