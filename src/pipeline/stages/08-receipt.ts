// Stage 8: the EIP-712 signed receipt, stored on IPFS; the task completes with it.
// Touches: the signer, the IPFS node, the clock, the operators, the pioneer points, the tasks' repository (first task).
import type { Hex } from 'viem'
import { taskHashes } from '../verification'
import type { Stage, StageContext } from '../types'

export const receipt: Stage = {
  n: 8,
  name: 'receipt',
  run: async ({ task, signer, ipfs, clock, operators, pioneer, pioneerPoints, tasks }: StageContext<'signer' | 'ipfs' | 'clock' | 'operators' | 'pioneer' | 'pioneerPoints' | 'tasks'>) => {
    const completedAt = task.computeFinishedAt ?? clock.now()
    const signed = await signer.signReceipt({
      taskId: task.id, operatorId: task.operatorId, agentId: task.agentId, taskType: task.taskType, model: task.model, provider: task.provider,
      ...taskHashes(task), ipfsCid: task.ipfsCid!,
      stateRoot: task.stateRoot as Hex, verificationScoreBps: Math.round((task.verificationScore ?? 0) * 10000),
      verified: task.verificationStatus === 'VERIFIED', verificationProof: task.verificationProof as Hex,
      attestationUid: task.attestationUid as Hex, creditsCharged: BigInt(task.creditsCharged), completedAt: BigInt(Math.floor(completedAt / 1000)),
    })
    const receiptCid = await ipfs.addJson({ type: 'taskgate.receipt/v1', ...signed })
    return {
      patch: { receiptCid, receipt: signed as unknown as Record<string, unknown>, status: 'COMPLETED', completedAt: clock.now() },
      detail: { cid: receiptCid },
      apply: () => {
        // Set once per operator, never cleared: the operator as cached says whether it still must be.
        if (operators.byId(task.operatorId)?.firstTaskAt == null) tasks.setFirstTaskAt(task.operatorId, clock.now())
        if (!task.diagnostic) pioneer.award(task.operatorId, 'task_completed', pioneerPoints.task, `task:${task.id}`)
      },
    }
  },
}
