// Stage 8: the EIP-712 signed receipt, stored on IPFS; the task completes with it.
import type { Hex } from 'viem'
import { taskHashes } from '../verification'
import type { Stage } from '../types'

export const receipt: Stage = {
  n: 8,
  name: 'receipt',
  run: async ({ task, s }) => {
    const completedAt = task.computeFinishedAt ?? s.clock.now()
    const signed = await s.signer.signReceipt({
      taskId: task.id, operatorId: task.operatorId, agentId: task.agentId, taskType: task.taskType, model: task.model, provider: task.provider,
      ...taskHashes(task), ipfsCid: task.ipfsCid!,
      stateRoot: task.stateRoot as Hex, verificationScoreBps: Math.round((task.verificationScore ?? 0) * 10000),
      verified: task.verificationStatus === 'VERIFIED', verificationProof: task.verificationProof as Hex,
      attestationUid: task.attestationUid as Hex, creditsCharged: BigInt(task.creditsCharged), completedAt: BigInt(Math.floor(completedAt / 1000)),
    })
    const receiptCid = await s.ipfs.addJson({ type: 'taskgate.receipt/v1', ...signed })
    return {
      patch: { receiptCid, receipt: signed as unknown as Record<string, unknown>, status: 'COMPLETED', completedAt: s.clock.now() },
      detail: { cid: receiptCid },
      apply: () => {
        // Set once per operator, never cleared: the operator as cached says whether it still must be.
        if (s.operators.byId(task.operatorId)?.firstTaskAt == null) s.db.$client.query('UPDATE operators SET first_task_at = ?2 WHERE id = ?1 AND first_task_at IS NULL').run(task.operatorId, s.clock.now())
        if (!task.diagnostic) s.pioneer.award(task.operatorId, 'task_completed', s.config.pioneer.taskPoints, `task:${task.id}`)
      },
    }
  },
}
