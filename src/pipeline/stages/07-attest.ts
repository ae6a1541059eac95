// Stage 7: an EAS offchain attestation of the task, signed by the service key. Its message comes
// from the task row (src/chain/attestation-record.ts), so a resumed task re-signs the very same
// attestation (same UID), and the row of `task_attestations` keeps only the signature. The UID does
// not depend on the signature: stage 8 starts with it while the signature is still being made
// (`ready`), and the two signatures overlap.
// Touches: the signer, the tasks' repository (the attestation).
import { taskAttestationMessage, toRecord, type AttestationRecord } from '../../chain/attestation-record'
import type { Stage, StageContext } from '../types'

export const attest: Stage = {
  n: 7,
  name: 'attestation',
  run: ({ task, signer, taskSchema, tasks }: StageContext<'signer' | 'taskSchema' | 'tasks'>) => {
    const { uid, signed } = signer.attest(taskAttestationMessage(task))
    let attestation: Record<string, unknown> = {}
    let record: AttestationRecord
    return {
      patch: { attestationUid: uid },
      detail: { uid },
      ready: signed.then((a) => {
        attestation = { uid, sig: a.sig, signer: a.signer, schema: taskSchema }
        record = toRecord(a)
      }),
      apply: () => {
        tasks.insertAttestation(uid, task.id, record)
        return { attestation } // on the committed row in memory: the answer needs no read of it
      },
    }
  },
}
