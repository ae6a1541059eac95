// A task's EAS offchain attestation as stored: only what its task row does not say. The message is
// the task's (taskAttestationMessage: data, time and salt come from the row), the domain, types and
// schema are constants of the build, so a row of `task_attestations` keeps the signature, the signer
// and the chain id, and the published JSON is rebuilt byte for byte from it and the task row
// (fromRecord). Attestations stored before migration 0015 keep their full JSON in `attestations`.
import { bytesToHex, getAddress, hexToBytes, zeroAddress, type Hex } from 'viem'
import { keccak256 } from '../lib/keccak'
import { taskHashes } from '../pipeline/verification'
import type { TaskRow } from '../tasks/types'
import { EAS_ADDRESS, EAS_TYPES, EAS_VERSION, encodeTaskAttestationData, TASK_SCHEMA, TASK_SCHEMA_UID } from './signer'

/** The columns of a `task_attestations` row besides uid and task id. */
export interface AttestationRecord { signature: Uint8Array; signer: Uint8Array; chainId: number }

/** What a task row says of its attestation's message (stage 7 signs it; fromRecord rebuilds it). */
export type AttestationTask = Pick<TaskRow, 'id' | 'agentId' | 'prompt' | 'output' | 'verification' | 'ipfsCid' | 'stateRoot' | 'verificationScore' | 'verificationStatus' | 'computeFinishedAt' | 'createdAt'>

const ZERO32 = `0x${'0'.repeat(64)}` as Hex

/**
 * The fields of the task's attestation that vary: its time is the compute finish time and its salt
 * derives from the task id, so a resumed task signs the very same attestation (same UID).
 */
export function taskAttestationMessage(task: AttestationTask): { time: bigint; data: Hex; salt: Hex } {
  const data = encodeTaskAttestationData({
    taskId: task.id, agentId: task.agentId, ...taskHashes(task),
    ipfsCid: task.ipfsCid!, stateRoot: task.stateRoot as Hex, verificationScoreBps: Math.round((task.verificationScore ?? 0) * 10000),
    verified: task.verificationStatus === 'VERIFIED',
  })
  return { time: BigInt(Math.floor((task.computeFinishedAt ?? task.createdAt) / 1000)), data, salt: keccak256(`taskgate:${task.id}`) }
}

/** The UID as `task_attestations` keys it: its 32 bytes. */
export const uidKey = (uid: Hex): Uint8Array => hexToBytes(uid)

/** The stored columns of a signed attestation (Signer.attest's result). */
export function toRecord(signed: { signatureHex: Hex; signer: `0x${string}`; sig: { domain: { chainId: string } } }): AttestationRecord {
  return { signature: hexToBytes(signed.signatureHex), signer: hexToBytes(signed.signer), chainId: Number(signed.sig.domain.chainId) }
}

/**
 * The attestation as published (GET /api/v1/attestations/:uid, a task's detail), rebuilt from its
 * record and its task: the same JSON, key for key, as stage 7 made. A task row changed since says
 * another message, which no longer hashes to `uid` nor matches the signature: verifiers see it, as
 * they see a changed stored attestation.
 */
export function fromRecord(uid: Hex, record: AttestationRecord, task: AttestationTask): Record<string, unknown> {
  const { time, data, salt } = taskAttestationMessage(task)
  const message = { version: 2, schema: TASK_SCHEMA_UID, recipient: zeroAddress, time, expirationTime: 0n, revocable: true, refUID: ZERO32, data, salt }
  const sig = bytesToHex(record.signature)
  return {
    uid,
    sig: {
      domain: { name: 'EAS Attestation', version: EAS_VERSION, chainId: String(record.chainId), verifyingContract: EAS_ADDRESS },
      primaryType: 'Attest', types: EAS_TYPES,
      message: { ...message, time: time.toString(), expirationTime: '0' },
      uid, version: 2,
      signature: { r: `0x${sig.slice(2, 66)}`, s: `0x${sig.slice(66, 130)}`, v: parseInt(sig.slice(130, 132), 16) },
    },
    signer: getAddress(bytesToHex(record.signer)),
    schema: { schema: TASK_SCHEMA, uid: TASK_SCHEMA_UID },
  }
}
