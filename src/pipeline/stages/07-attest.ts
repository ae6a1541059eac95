// Stage 7: an EAS offchain attestation of the task, signed by the service key. Its time is the
// compute finish time and its salt derives from the task id, so a resumed task re-signs the very
// same attestation (same UID). The UID does not depend on the signature: stage 8 starts with it
// while the signature is still being made (`ready`), and the two signatures overlap.
// Touches: the signer, the clock, the tasks' repository (the attestation).
import type { Hex } from 'viem'
import { keccak256 } from '../../lib/keccak'
import { encodeTaskAttestationData } from '../../chain/signer'
import type { Stage, StageContext } from '../types'
import { taskHashes } from '../verification'

export const attest: Stage = {
  n: 7,
  name: 'attestation',
  run: ({ task, signer, taskSchema, clock, tasks }: StageContext<'signer' | 'taskSchema' | 'clock' | 'tasks'>) => {
    const data = encodeTaskAttestationData({
      taskId: task.id, agentId: task.agentId, ...taskHashes(task),
      ipfsCid: task.ipfsCid!, stateRoot: task.stateRoot as Hex, verificationScoreBps: Math.round((task.verificationScore ?? 0) * 10000),
      verified: task.verificationStatus === 'VERIFIED',
    })
    const { uid, signed } = signer.attest({ time: BigInt(Math.floor((task.computeFinishedAt ?? task.createdAt) / 1000)), data, salt: keccak256(`taskgate:${task.id}`) })
    let attestation: Record<string, unknown> = {}
    let stored = ''
    return {
      patch: { attestationUid: uid },
      detail: { uid },
      ready: signed.then((a) => { // serialised here, outside the commit's transaction
        attestation = { uid, sig: a.sig, signer: a.signer, schema: taskSchema }
        stored = JSON.stringify(attestation)
      }),
      apply: () => {
        tasks.insertAttestation(uid, task.id, task.operatorId, stored, clock.now())
        return { attestation } // on the committed row in memory: the answer needs no read of it
      },
    }
  },
}
