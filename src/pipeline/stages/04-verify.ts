// Stage 4: output verification. A FAILED verification does not fail the task.
// Touches: the verification threshold.
import { verifyOutput } from '../verification'
import type { Stage, StageContext } from '../types'

export const verify: Stage = {
  n: 4,
  name: 'verification',
  run: ({ task, verificationThreshold }: StageContext<'verificationThreshold'>) => {
    const v = verifyOutput(task.taskType, task.prompt, task.output ?? '', verificationThreshold)
    return {
      patch: { verificationScore: v.score, verificationStatus: v.status, verificationProof: v.proof, verification: v.record },
      detail: { score: v.score, status: v.status },
    }
  },
}
