// The console's in-browser verification (ui/lib/verify.js), run here on documents a real server
// produced: receipts, attestations, task documents, ToS acceptances and compliance certificates
// verify; a changed byte or field is caught and named; multi-block IPFS files re-hash block by block.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { canonicalJson, documentKind, fetchVerifiedBytes, verifyAttestation, verifyCertificate, verifyTypedDocument, verifyVerificationProof } from '../../ui/lib/verify.js'
import { startServer, type TestServer } from '../helpers/server'

let s: TestServer
let admin: string
let token: string
let signers: any
let task: any

const block = async (cid: string) => new Uint8Array(await (await fetch(`${s.url}/ipfs/${cid}?format=raw`)).arrayBuffer())
const json = async (cid: string) => JSON.parse(new TextDecoder().decode((await fetchVerifiedBytes(cid, block)).bytes))
const failed = (r: { checks: { name: string; ok: boolean }[] }) => r.checks.filter((c) => !c.ok).map((c) => c.name)

beforeAll(async () => {
  s = await startServer({ TASKGATE_TEST_CLOCK: '1' })
  admin = await s.setupAdmin()
  token = await s.signup('verifier')
  const me = (await s.get('/api/v1/auth/me', { token })).body
  expect((await s.patch(`/api/v1/admin/operators/${me.id}`, { tierOverride: 'PRO' }, { token: admin })).status).toBe(200)
  const agent = (await s.post('/api/v1/agents/register', { displayName: 'verify-bot', capabilities: ['general'] }, { token })).body
  const r = await s.post('/api/v1/tasks/submit?wait=30', { agentId: agent.agentId, taskType: 'general', prompt: 'Anyone can check this result without trusting the server.' }, { key: agent.apiKey })
  expect(r.body.status).toBe('COMPLETED')
  task = r.body
  signers = (await s.get('/.well-known/taskgate-signers')).body
}, 30_000)
afterAll(async () => { await s?.cleanup() })

describe('receipts and task documents', () => {
  test('a receipt re-hashes to its CID and its signature recovers to the published signer', async () => {
    const receipt = await json(task.receiptCid)
    expect(documentKind(receipt)).toBe('receipt')
    const v = await verifyTypedDocument(receipt, signers, 'receipt')
    expect(failed(v)).toEqual([])
    expect(v.ok).toBe(true)
    expect(v.signerInfo).toEqual(signers.signers[0])
    // the task document it names hashes to its CID and carries the signed output hash
    const doc = await json(receipt.payload.message.ipfsCid)
    expect(documentKind(doc)).toBe('task')
    expect(doc.outputHash).toBe(receipt.payload.message.outputHash)
  })

  test('a changed field breaks the signature; an unpublished signer or domain is named', async () => {
    const receipt = await json(task.receiptCid)
    const tampered = structuredClone(receipt)
    tampered.payload.message.creditsCharged = '0'
    expect(failed(await verifyTypedDocument(tampered, signers, 'receipt'))).toEqual(['signature', 'signer'])
    expect(failed(await verifyTypedDocument(receipt, { ...signers, signers: [] }, 'receipt'))).toEqual(['signer'])
    const otherDomain = { ...signers, eip712Domains: { ...signers.eip712Domains, receipt: { ...signers.eip712Domains.receipt, chainId: 1 } } }
    expect(failed(await verifyTypedDocument(receipt, otherDomain, 'receipt'))).toEqual(['domain'])
  })

  test('one changed byte in a stored block is caught by its CID', async () => {
    const bad = async (cid: string) => { const b = await block(cid); b[b.length - 3]! ^= 1; return b }
    await expect(fetchVerifiedBytes(task.receiptCid, bad)).rejects.toThrow(/hash to 0x[0-9a-f]{64}, not to the CID/)
  })

  test('a file of several blocks (dag-pb root, raw leaves) is re-hashed block by block and reassembled', async () => {
    const bytes = new Uint8Array(2_500_000).map((_, i) => (i * 7919) % 251)
    const form = new FormData()
    form.append('file', new Blob([bytes]), 'big.bin')
    const up = await fetch(`${s.url}/v1/prior/claim`, { method: 'POST', body: form, headers: { authorization: `Bearer ${token}` } })
    expect(up.status).toBe(201)
    const { cid } = await up.json() as { cid: string }
    const got = await fetchVerifiedBytes(cid, block)
    expect(got.blocks).toBeGreaterThan(1)
    expect(Buffer.from(got.bytes).equals(Buffer.from(bytes))).toBe(true)
    // the gateway reads the same file through Helia (loaded on first use) and exports it as a CAR
    const file = await fetch(`${s.url}/ipfs/${cid}`)
    expect(Buffer.from(await file.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true)
    const car = await fetch(`${s.url}/ipfs/${cid}?format=car`)
    expect(car.headers.get('content-type')).toStartWith('application/vnd.ipld.car')
    expect((await car.arrayBuffer()).byteLength).toBeGreaterThan(bytes.length)
  })
})

describe('attestations, ToS acceptances, certificates', () => {
  test('an EAS offchain attestation: UID recomputed, signature, schema; a changed field is caught', async () => {
    const att = (await s.get(`/api/v1/attestations/${task.attestationUid}`)).body
    expect(documentKind(att)).toBe('attestation')
    expect(failed(await verifyAttestation(att, signers))).toEqual([])
    const tampered = structuredClone(att)
    tampered.sig.message.time = String(Number(att.sig.message.time) + 1)
    expect(failed(await verifyAttestation(tampered, signers))).toEqual(['uid', 'signature', 'signer'])
  })

  test('a ToS acceptance document verifies under the published tos domain', async () => {
    const acc = await s.post('/api/v1/operator/tos/accept', { version: '1' }, { token })
    expect(acc.status).toBe(200)
    const status = (await s.get('/api/v1/operator/tos', { token })).body
    const doc = await json(status.acceptance?.ipfsCid ?? acc.body.ipfsCid)
    expect(documentKind(doc)).toBe('tos')
    expect(failed(await verifyTypedDocument(doc, signers, 'tos'))).toEqual([])
    expect(failed(await verifyTypedDocument(doc, signers, 'receipt'))).toEqual(['domain'])
  })

  test('a compliance certificate: hash, EIP-191 signature and its IPFS copy; a changed count is caught', async () => {
    const cert = (await s.post('/api/v1/operator/compliance/generate', undefined, { token })).body
    expect(documentKind(cert)).toBe('certificate')
    expect(failed(await verifyCertificate(cert, signers))).toEqual([])
    const { ipfsCid, ...signed } = cert
    expect(canonicalJson(await json(ipfsCid))).toBe(canonicalJson(signed))
    const tampered = structuredClone(cert)
    tampered.summary.totalTasks += 1
    expect(failed(await verifyCertificate(tampered, signers))).toEqual(['hash'])
  })
})

describe('verification proofs', () => {
  test('the public record leaves the notes out; the signed receipt names the proof', async () => {
    const v = (await s.get(`/api/v1/public/verification/${task.verificationProof}`)).body
    expect(v).toMatchObject({ proof: task.verificationProof, recordComplete: false, task: { id: task.id } })
    expect(v.record.checks.some((c: Record<string, unknown>) => 'note' in c)).toBe(false)
    const receipt = await json(task.receiptCid)
    expect(failed(verifyVerificationProof(v, receipt))).toEqual([])
    expect(failed(verifyVerificationProof({ ...v, proof: '0x' + '11'.repeat(32) }, receipt))).toEqual(['receipt'])
    expect((await s.get(`/api/v1/public/verification/0x${'ab'.repeat(32)}`)).status).toBe(404)
  })

  test('an operator who publishes outputs publishes the whole record: it hashes to the proof', async () => {
    const t2 = await s.signup('publisher')
    expect((await s.patch('/api/v1/operator/guardrails', { publishOutputs: true }, { token: t2 })).status).toBe(200)
    expect((await s.post('/api/v1/admin/clock/advance', { ms: 30_000 }, { token: admin })).status).toBe(200)
    const agent = (await s.post('/api/v1/agents/register', { displayName: 'open-bot', capabilities: ['general'] }, { token: t2 })).body
    const done = (await s.post('/api/v1/tasks/submit?wait=30', { agentId: agent.agentId, taskType: 'general', prompt: 'Publish everything about this one, notes included.' }, { key: agent.apiKey })).body
    const v = (await s.get(`/api/v1/public/verification/${done.verificationProof}`)).body
    expect(v.recordComplete).toBe(true)
    expect(failed(verifyVerificationProof(v, await json(done.receiptCid)))).toEqual([])
    const tampered = structuredClone(v)
    tampered.record.score = 1 - tampered.record.score / 2
    expect(failed(verifyVerificationProof(tampered, null))).toEqual(['record'])
  })
})
