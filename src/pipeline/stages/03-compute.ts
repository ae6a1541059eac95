// Stage 3: compute through the provider pool; a full pool parks the task in the overflow queue.
// Records the call's token usage and its estimated cost (docs/doors.md, "Usage and cost").
// Touches: the operators (kill-switch), the clock, the providers, the prices, the overflow queue.
import { ComputeFailed } from '../../compute/service'
import { newId } from '../../lib/ids'
import type { ChatMessage, CompletionRequest, CompletionResult, SamplingParams } from '../../compute/types'
import type { Stage, StageContext, StageResult, TaskPatch, TaskRow } from '../types'

type ComputeContext = StageContext<'operators' | 'clock' | 'compute' | 'prices' | 'overflow'>

/**
 * What the provider gets: the door's conversation and sampling parameters when the task has them
 * (TaskRow.computeRequest), else the prompt as one user message. `onDelta`: a door's stream.
 */
export function completionRequest(task: TaskRow, onDelta?: (text: string) => void): CompletionRequest {
  const extra = (task.computeRequest ?? {}) as SamplingParams & { messages?: ChatMessage[] }
  return {
    model: task.model, taskType: task.taskType, messages: extra.messages ?? [{ role: 'user', content: task.prompt }],
    maxTokens: extra.maxTokens, temperature: extra.temperature, topP: extra.topP, stop: extra.stop,
    ...(onDelta ? { onDelta } : {}),
  }
}

/** The task's fields for a finished call: output, provider, timings, tokens and estimated cost. */
export function computedPatch(r: Pick<CompletionResult, 'output' | 'provider' | 'latencyMs' | 'usage'>, model: string, prices: ComputeContext['prices'], startedAt: number, finishedAt: number): TaskPatch {
  const promptTokens = r.usage?.promptTokens ?? 0
  const completionTokens = r.usage?.completionTokens ?? 0
  return {
    output: r.output, provider: r.provider, latencyMs: Math.max(1, Math.round(r.latencyMs)), computeStartedAt: startedAt, computeFinishedAt: finishedAt,
    promptTokens, completionTokens, costUsd: prices.costOf(model, promptTokens, completionTokens),
  }
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
    return now ? computed(ctx, now, startedAt) : remote(ctx, startedAt)
  },
}

function computed({ task, prices, clock }: ComputeContext, r: CompletionResult, startedAt: number): StageResult {
  return {
    patch: computedPatch(r, task.model, prices, startedAt, clock.now()),
    detail: { provider: r.provider, model: r.model, latencyMs: Math.round(r.latencyMs) },
    repeatable: r.repeatable === true,
  }
}

/** A remote provider's call (the one admit() started, or a new one on a free key), or the overflow queue when the pool is full. */
async function remote(ctx: ComputeContext, startedAt: number): Promise<StageResult> {
  const { task, started, compute, overflow, onDelta } = ctx
  try {
    const r = await compute.tryRun(completionRequest(task, onDelta), started)
    if (r === 'busy') {
      // The job is queued by the commit that parks the task (apply): it cannot start, let alone
      // finish, before the task is QUEUED, and a commit that fails leaves neither.
      const queued = { jobId: newId('job'), position: 0 }
      return {
        queued, patch: { computeJobId: queued.jobId },
        apply: () => { queued.position = overflow.enqueue(task.operatorId, completionRequest(task), { id: queued.jobId, taskId: task.id, agentId: task.agentId, onDelta }).position },
      }
    }
    return computed(ctx, r, startedAt)
  } catch (e) {
    if (e instanceof ComputeFailed) return { fail: { code: 'COMPUTE_FAILED', message: e.message } }
    throw e
  }
}
