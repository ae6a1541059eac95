// Cross-check against the official EAS SDK (optional interop group, test/interop/package.json): the
// attestation UID, the signature, the schema UID and the encoded data are what EAS tooling computes and expects.
import { EAS, Offchain, SchemaEncoder, SchemaRegistry } from '@ethereum-attestation-service/eas-sdk'
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'

let s: TestServer
let att: any
let task: any
let signers: any

beforeAll(async () => {
  s = await startServer()
  const admin = await s.setupAdmin()
  const agent = (await s.post('/api/v1/agents/register', { displayName: 'eas', capabilities: ['general'] }, { token: admin })).body
  task = (await s.post('/api/v1/tasks/submit', { agentId: agent.agentId, taskType: 'general', prompt: 'Attest this. It is short.' }, { key: agent.apiKey })).body
  att = (await s.get(`/api/v1/attestations/${task.attestationUid}`)).body
  signers = (await s.get('/.well-known/taskgate-signers')).body
})
afterAll(async () => { await s.cleanup() })

test('eas-sdk computes the same offchain UID and accepts the signature', () => {
  const m = att.sig.message
  const uid = Offchain.getOffchainUID(2, m.schema, m.recipient, BigInt(m.time), BigInt(m.expirationTime), m.revocable, m.refUID, m.data, m.salt)
  expect(uid).toBe(att.uid)
  const d = att.sig.domain
  const offchain = new Offchain({ address: d.verifyingContract, version: d.version, chainId: BigInt(d.chainId) }, 2, new EAS(d.verifyingContract))
  const signed = { ...att.sig, domain: { ...d, chainId: BigInt(d.chainId) }, message: { ...m, time: BigInt(m.time), expirationTime: BigInt(m.expirationTime) } }
  expect(offchain.verifyOffchainAttestationSignature(signers.signers[0].address, signed)).toBe(true)
  const tampered = { ...signed, message: { ...signed.message, time: signed.message.time + 1n } }
  expect(offchain.verifyOffchainAttestationSignature(signers.signers[0].address, tampered)).toBe(false)
})

test('schema UID and data decode with the published schema', () => {
  const sc = signers.attestationSchema
  expect(SchemaRegistry.getSchemaUID(sc.schema, sc.resolver, sc.revocable)).toBe(sc.uid)
  expect(att.sig.message.schema).toBe(sc.uid)
  const decoded = new SchemaEncoder(sc.schema).decodeData(att.sig.message.data)
  const byName = Object.fromEntries(decoded.map((x) => [x.name, x.value.value]))
  expect(byName.taskId).toBe(att.taskId)
  expect(byName.verified).toBe(task.verificationStatus === 'VERIFIED')
  expect(byName.ipfsCid).toBe(task.ipfsCid)
  expect(byName.stateRoot).toBe(task.stateRoot)
})
