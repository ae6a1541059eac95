// Stage 7: an EAS offchain attestation of the task, signed by the service key. Its message comes
// from the task row (src/chain/attestation-record.ts), so a resumed task re-signs the very same
// attestation (same UID), and the row of `task_attestations` keeps only the signature. The UID does
// not depend on the signature: stage 8 starts with it while the signature is still being made
// (`ready`), and the two signatures overlap.
import { taskAttestationMessage, toRecord, uidKey, type AttestationRecord } from '../../chain/attestation-record'
import type { Stage } from '../types'

export const attest: Stage = {
  n: 7,
  name: 'attestation',
  run: ({ task, s }) => {
    const { uid, signed } = s.signer.attest(taskAttestationMessage(task))
    let attestation: Record<string, unknown> = {}
    let record: AttestationRecord
    return {
      patch: { attestationUid: uid },
      detail: { uid },
      ready: signed.then((a) => {
        attestation = { uid, sig: a.sig, signer: a.signer, schema: s.chainInfo.taskSchema }
        record = toRecord(a)
      }),
      apply: () => {
        s.db.$client.query('INSERT INTO task_attestations (uid, task_id, signature, signer, chain_id) VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT(uid) DO NOTHING')
          .run(uidKey(uid), task.id, record.signature, record.signer, record.chainId)
        return { attestation } // on the committed row in memory: the answer needs no read of it
      },
    }
  },
}
