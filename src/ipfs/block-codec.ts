// How ipfs.db stores the pipeline's JSON documents (a block's `enc`, src/ipfs/stores.ts, layout 3):
// what every receipt and task document repeats (the EIP-712 domain and types, the field names) is
// written once, in PHRASES below, and each 32- or 65-byte hex value as its bytes (encoding 1:
// src/lib/phrase-codec.ts with PHRASES); the block's bytes, and so its CID, are rebuilt exactly. A
// receipt takes ~0.5 KB instead of 1.7 KB. PHRASES is part of the stored format: never edit it (a
// new list is a new encoding); test/unit/block-codec.test.ts pins its hash.
import { phraseCodec } from '../lib/phrase-codec'

/** Every document the pipeline stores is JSON beginning with its type (src/proofs/documents.ts). */
const PREFIX = '{"type":"taskgate.'

export const PHRASES: readonly string[] = [
  // the receipt (src/pipeline/stages/08-receipt.ts), longest first
  '{"type":"taskgate.receipt/v1","payload":{"domain":{"name":"TaskGate Receipt","version":"1","chainId":',
  '},"types":{"TaskReceipt":[{"name":"taskId","type":"string"},{"name":"operatorId","type":"string"},{"name":"agentId","type":"string"},'
    + '{"name":"taskType","type":"string"},{"name":"model","type":"string"},{"name":"provider","type":"string"},'
    + '{"name":"promptHash","type":"bytes32"},{"name":"outputHash","type":"bytes32"},{"name":"ipfsCid","type":"string"},'
    + '{"name":"stateRoot","type":"bytes32"},{"name":"verificationScoreBps","type":"uint16"},{"name":"verified","type":"bool"},'
    + '{"name":"verificationProof","type":"bytes32"},{"name":"attestationUid","type":"bytes32"},{"name":"creditsCharged","type":"uint256"},'
    + '{"name":"completedAt","type":"uint64"}]},"primaryType":"TaskReceipt","message":{"taskId":"',
  '","verificationScoreBps":',
  ',"verificationProof":"',
  '","attestationUid":"',
  '","creditsCharged":"',
  '","completedAt":"',
  '"}},"signature":"',
  '","signer":"',
  '","stateRoot":"',
  '","ipfsCid":"',
  ',"verified":',
  // the task document (src/pipeline/stages/05-ipfs.ts)
  '{"type":"taskgate.task/v1","taskId":"',
  '","timings":{"createdAt":"',
  '","computeStartedAt":"',
  '","computeFinishedAt":"',
  '","latencyMs":',
  '},"verification":{"status":"',
  '","score":',
  ',"proof":"',
  // both
  '","operatorId":"',
  '","agentId":"',
  '","taskType":"',
  '","promptHash":"',
  '","outputHash":"',
  '","provider":"',
  '","model":"',
  '","output":"',
]

const documents = phraseCodec(PHRASES)
const PREFIX_BYTES = Buffer.from(PREFIX, 'latin1')

/**
 * The stored form of a block: encoding 1 for a pipeline document it makes smaller, else the bytes
 * as they are (encoding null).
 */
export function encodeBlock(data: Uint8Array): { data: Uint8Array; enc: number | null } {
  if (data.length < PREFIX_BYTES.length) return { data, enc: null }
  for (let i = 0; i < PREFIX_BYTES.length; i++) if (data[i] !== PREFIX_BYTES[i]) return { data, enc: null }
  const stored = documents.encode(data)
  return stored ? { data: stored, enc: 1 } : { data, enc: null }
}

/** A block's bytes from its stored form. */
export function decodeBlock(stored: Uint8Array, enc: number | null): Uint8Array {
  if (enc == null) return stored
  if (enc !== 1) throw new Error(`ipfs.db: unknown block encoding ${enc}`)
  return documents.decode(stored)
}
