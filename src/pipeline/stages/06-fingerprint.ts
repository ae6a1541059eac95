// Stage 6: fingerprint. Extends the agent's stateRoot hash chain and its behaviour statistics in
// the same transaction that marks the stage done, so a resumed task never counts twice.
import type { Hex } from 'viem'
import { taskHashes } from '../verification'
import { leafHash, nextStateRoot, observe } from '../../agents/fingerprint'
import type { Stage } from '../types'

export const fingerprint: Stage = {
  n: 6,
  name: 'fingerprint',
  run: async ({ task, agent, s }) => {
    const leaf = leafHash({ taskId: task.id, ipfsCid: task.ipfsCid!, outputHash: taskHashes(task).outputHash, verificationScore: task.verificationScore ?? 0, latencyMs: task.latencyMs ?? 0 })
    return {
      patch: {},
      detail: { leaf },
      apply: () => {
        // Re-read inside the transaction: other tasks of the same agent may have moved the chain.
        const a = s.agents.byId(agent.id)!
        const stateRoot = nextStateRoot(a.stateRoot as Hex, leaf)
        const metrics = observe(a.metrics, {
          latencyMs: task.latencyMs ?? 0, outputSize: (task.output ?? '').length, verificationScore: task.verificationScore ?? 0,
          cost: task.creditsCharged, failure: 0,
        })
        const verified = task.verificationStatus === 'VERIFIED' ? 1 : 0
        s.db.$client.query('UPDATE agents SET state_root = ?2, metrics = ?3, total_tasks = total_tasks + 1, verified_tasks = verified_tasks + ?4, last_active_at = ?5 WHERE id = ?1')
          .run(a.id, stateRoot, JSON.stringify(metrics), verified, s.clock.now())
        const updated = s.agents.byId(a.id)!
        if (s.agents.trust(updated).trustLevel === 'TRUSTED') s.pioneer.award(a.operatorId, 'trusted_level', s.config.pioneer.trustedLevelPoints, `trusted:${a.id}`)
        return { stateRoot }
      },
    }
  },
}
