// Verifiable outputs: attestations, proof receipts by CID, verification proofs, the published signers.
import { t } from 'elysia'
import { verifyTypedData } from 'viem'
import { notFound } from '../http/errors'
import { defineRoute } from '../http/route'
import { Cid, Hash32 } from '../http/schemas'
import { Task } from '../tasks/schema'
import { TASK_SCHEMA, TASK_SCHEMA_UID } from '../chain/signer'
import type { Services } from '../services'

/** Recomputes a CID from bytes with the importer settings the node uses, without storing anything. */

/** A verification record without the notes that quote the output (e.g. the sentiment label), for public pages. */
function publicVerificationRecord(v: Record<string, unknown> | null) {
  if (!v) return v
  const checks = Array.isArray(v.checks) ? (v.checks as Record<string, unknown>[]).map(({ note: _note, ...c }) => c) : v.checks
  return { ...v, checks }
}

const Address = t.String({ minLength: 42, maxLength: 42, pattern: '^0x[0-9a-fA-F]{40}$' })
const Domain = t.Object({ name: t.String(), version: t.String(), chainId: t.Integer() })

const Signers = t.Object({
  signers: t.Array(t.Object({ address: Address, keyId: t.String(), since: t.String() })),
  eip712Domains: t.Object({ receipt: Domain, attestation: t.Composite([Domain, t.Object({ verifyingContract: Address })]), webhook: t.Composite([Domain], { description: 'webhooks: `x-taskgate-eip712-sig` signs an approval webhook\'s 15 body fields as primary type `ApprovalWebhook` (all `string`), and an A2A push notification (`a2a.push`) as `WebhookDelivery { string event, string deliveryId, bytes32 bodySha256 }`, see docs/webhooks.md' }), tos: t.Composite([Domain], { description: 'Terms of Service acceptance documents (primary type `TosAcceptance`), see docs/governance.md' }) }),
  attestationSchema: t.Object({ schema: t.String(), uid: Hash32(), resolver: Address, revocable: t.Boolean() }),
  chainId: t.Integer(),
})

const Attestation = t.Object({
  uid: Hash32('EAS offchain attestation UID'), sig: t.Object({}, { additionalProperties: true, description: 'the EIP-712 typed data and signature `{ domain, primaryType, types, message, uid, version, signature: { r, s, v } }`' }),
  signer: Address, taskId: t.String(),
  verification: t.Object({ signatureValid: t.Boolean(), signerKnown: t.Boolean({ description: 'signed by this appliance\'s signer' }) }),
})

const Receipt = t.Object({ payload: t.Object({}, { additionalProperties: true, description: 'EIP-712 typed data `{ domain, types, primaryType: "TaskReceipt", message }`' }), signature: t.String(), signer: t.String() })

const Proof = t.Union([
  t.Object({
    cid: t.String(), kind: t.Literal('receipt'), receipt: Receipt,
    verification: t.Object({ signatureValid: t.Boolean(), signer: t.String(), signerKnown: t.Boolean(), cidMatches: t.Boolean({ description: 'the content re-hashes to this CID' }) }),
    task: Task,
  }),
  t.Object({
    cid: t.String(), kind: t.Literal('task'), document: t.Object({}, { additionalProperties: true, description: 'the task document (prompt and output hashes; the output only when its operator publishes outputs)' }),
    verification: t.Object({ cidMatches: t.Boolean() }), task: Task,
  }),
])

export function proofRoutes(s: Services) {
  /** The task a verification proof belongs to, and its record as the public may see it. */
  const verificationOf = (proof: string) => {
    const id = s.taskStore.idByVerificationProof(proof.toLowerCase())
    const task = id ? s.pipeline.task(id) : null
    if (!task || !task.verification) return null
    const complete = s.guardrails.current(task.operatorId).publishOutputs
    return { task, complete, record: (complete ? task.verification : publicVerificationRecord(task.verification)) as Record<string, unknown> }
  }
  return [
    defineRoute({
      method: 'GET', path: '/.well-known/taskgate-signers', auth: 'none', tags: ['Proofs'],
      summary: 'The service signer addresses and EIP-712 domains used for receipts, attestations and approval webhooks',
      responses: { 200: { description: 'signers', schema: Signers } },
      handler: () => ({
        signers: [{ address: s.signer.address, keyId: s.signer.keyId, since: s.signer.since }],
        eip712Domains: { receipt: s.signer.receiptDomain, attestation: s.signer.easDomain, webhook: s.signer.webhookDomain, tos: s.signer.tosDomain },
        attestationSchema: { schema: TASK_SCHEMA, uid: TASK_SCHEMA_UID, resolver: '0x0000000000000000000000000000000000000000', revocable: true },
        chainId: s.signer.chainId,
      }),
    }),
    defineRoute({
      method: 'GET', path: '/api/v1/attestations/:uid', auth: 'none', tags: ['Proofs'], params: t.Object({ uid: Hash32('attestation UID') }),
      summary: 'The full signed EAS offchain attestation',
      errors: { 404: ['NOT_FOUND'] },
      responses: { 200: { description: 'attestation, with its signature checked', schema: Attestation } },
      handler: async ({ params }) => {
        const row = s.taskStore.attestation(params.uid.toLowerCase())
        if (!row) throw notFound('attestation')
        const a = row.attestation
        const sig = a.sig
        const signature = `${sig.signature.r}${sig.signature.s.slice(2)}${sig.signature.v.toString(16)}` as `0x${string}`
        const valid = await verifyTypedData({ address: a.signer, domain: { ...sig.domain, chainId: Number(sig.domain.chainId) }, types: sig.types, primaryType: 'Attest', message: sig.message, signature }).catch(() => false)
        return { ...a, taskId: row.taskId, verification: { signatureValid: valid, signerKnown: a.signer.toLowerCase() === s.signer.address.toLowerCase() } }
      },
    }),
    defineRoute({
      method: 'GET', path: '/api/v1/public/verification/:proof', auth: 'none', tags: ['Public'], params: t.Object({ proof: Hash32('verification proof (`verificationProof` of a task)') }),
      errors: { 404: ['NOT_FOUND'] },
      summary: 'A verification proof with its record',
      description: '`proof` = keccak256 of the UTF-8 JSON text of the verification record as the pipeline wrote it (key order as shown). The record is complete (`recordComplete: true`: the proof can be recomputed from it) when the task\'s operator publishes outputs; otherwise the checks\' `note`s, which may describe the output, are left out. The same proof is signed in the task\'s receipt (`task.receiptCid`) and attestation (`task.attestationUid`).',
      responses: { 200: { description: 'the proof and its record', schema: t.Object({
        proof: Hash32(), recordComplete: t.Boolean(), record: t.Object({}, { additionalProperties: true, description: 'the verification record: version, taskType, threshold, score, status, checks, outputHash, promptHash' }), task: Task,
      }) } },
      handler: ({ params }) => {
        const found = verificationOf(params.proof)
        if (!found) throw notFound('verification proof')
        return { proof: found.task.verificationProof!, recordComplete: found.complete, record: found.record, task: s.tasks.publicView(found.task) }
      },
    }),
    defineRoute({
      method: 'GET', path: '/api/v1/public/proof/:cid', auth: 'none', tags: ['Public'], params: t.Object({ cid: Cid('receiptCid or ipfsCid of a task') }),
      errors: { 404: ['NOT_FOUND'] },
      summary: 'A proof receipt (or task document) by IPFS CID, with its verification',
      description: 'Only documents the pipeline produced count: the CID must be a task\'s receipt or task document as recorded by this appliance (anything else, e.g. an uploaded look-alike, → 404). For a receipt: the EIP-712 signature is verified against the signer and the content is re-hashed to confirm the CID. Task documents carry the prompt and output hashes; the output itself only when its operator publishes outputs.',
      responses: { 200: { description: 'proof: a receipt (`kind: "receipt"`) or a task document (`kind: "task"`)', schema: Proof, links: {
        task: { route: 'GET /api/v1/tasks/:id', parameters: { id: '$response.body#/task/id' } },
        content: { route: 'GET /ipfs/:cid', parameters: { cid: '$response.body#/cid' } },
      } } },
      handler: async ({ params }) => {
        const { cid, kind, doc, task, verification } = await s.proofs.verify(params.cid)
        return kind === 'receipt'
          ? { cid, kind, receipt: doc, verification, task: s.tasks.publicView(task) }
          : { cid, kind, document: doc, verification, task: s.tasks.publicView(task) }
      },
    }),
  ]
}
