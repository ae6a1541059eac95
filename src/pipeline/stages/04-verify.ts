// Stage 4: output verification. A FAILED verification does not fail the task.
import { verifyOutput } from '../verification'
import type { Stage } from '../types'

export const verify: Stage = {
  n: 4,
  name: 'verification',
  run: ({ task, s }) => {
    const v = verifyOutput(task.taskType, task.prompt, task.output ?? '', s.config.verificationThreshold)
    return {
      patch: { verificationScore: v.score, verificationStatus: v.status, verificationProof: v.proof, verification: v.record },
      detail: { score: v.score, status: v.status },
    }
  },
}
