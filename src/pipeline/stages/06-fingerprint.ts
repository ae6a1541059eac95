// Stage 6: fingerprint. Extends the agent's stateRoot hash chain (from the newest root, which may
// belong to a task of the same agent still in flight: src/agents/chain-tips.ts) and its behaviour
// statistics. The new root is what stages 7 and 8 sign; it commits with them, and only if the
// agent's committed root is still the one extended (ChainMoved otherwise), so a resumed or
// reordered task never counts twice and the chain never forks.
// Touches: the chain tips, the agents, the clock, the pioneer points, the tasks' repository (the agent's row).
import type { Hex } from 'viem'
import { taskHashes } from '../verification'
import { leafHash, observe } from '../../agents/fingerprint'
import { ChainMoved } from '../../agents/chain-tips'
import type { Stage, StageContext } from '../types'

export const fingerprint: Stage = {
  n: 6,
  name: 'fingerprint',
  run: ({ task, agent, chainTips, agents, clock, pioneer, pioneerPoints, tasks }: StageContext<'chainTips' | 'agents' | 'clock' | 'pioneer' | 'pioneerPoints' | 'tasks'>) => {
    const leaf = leafHash({ taskId: task.id, ipfsCid: task.ipfsCid!, outputHash: taskHashes(task).outputHash, verificationScore: task.verificationScore ?? 0, latencyMs: task.latencyMs ?? 0 })
    const { prev, root } = chainTips.extend(agent.id, task.id, leaf, () => agents.byId(agent.id)!.stateRoot as Hex)
    return {
      patch: { stateRoot: root },
      detail: { leaf },
      apply: () => {
        const a = agents.byIdLocked(agent.id)! // replicas: one at a time per agent, so the check below holds until the commit
        if (a.stateRoot !== prev) throw new ChainMoved(agent.id)
        const metrics = observe(a.metrics, {
          latencyMs: task.latencyMs ?? 0, outputSize: (task.output ?? '').length, verificationScore: task.verificationScore ?? 0,
          cost: task.creditsCharged, failure: 0,
        })
        const verified = task.verificationStatus === 'VERIFIED' ? 1 : 0
        tasks.recordAgentCompletion(a.id, { stateRoot: root, metrics: JSON.stringify(metrics), verified, at: clock.now() })
        // The row as the UPDATE left it (read above in this transaction), without reading it again.
        const updated = { ...a, stateRoot: root, metrics, totalTasks: a.totalTasks + 1, verifiedTasks: a.verifiedTasks + verified }
        // Awarded when this task makes the agent TRUSTED (a is the row as committed before it, read in
        // this transaction): not tried again by every later task of a trusted agent.
        if (agents.trust(updated).trustLevel === 'TRUSTED' && agents.trust(a).trustLevel !== 'TRUSTED') pioneer.award(a.operatorId, 'trusted_level', pioneerPoints.trustedLevel, `trusted:${a.id}`)
      },
    }
  },
}
