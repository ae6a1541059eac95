// A task's attestation is stored as its signature, signer and chain id (task_attestations) and
// rebuilt from them and its task row (src/chain/attestation-record.ts): the rebuilt JSON is the
// signer's output at creation, byte for byte (same UID, same signature), through TaskRepository too; an
// attestation stored before migration 0015 (its full JSON in `attestations`) reads back as stored.
import { afterAll, expect, test } from 'bun:test'
import { keccak256, toHex, verifyTypedData } from 'viem'
import { fromRecord, taskAttestationMessage, toRecord, uidKey } from '../../src/chain/attestation-record'
import { offchainUid, Signer, TASK_SCHEMA, TASK_SCHEMA_UID } from '../../src/chain/signer'
import { TaskRepository } from '../../src/tasks/repository'
import { drizzle } from 'drizzle-orm/bun-sqlite'
import type { TaskRow } from '../../src/tasks/types'
import { migratedDb } from '../helpers/db'

const key = keccak256(toHex('attestation-record test key'))
const { sqlite, close } = migratedDb('tg-attestation-record')
afterAll(close)
sqlite.run('PRAGMA foreign_keys = OFF') // tasks of an operator this test does not create
const store = new TaskRepository(drizzle({ client: sqlite }))
const h = (s: string) => keccak256(toHex(s))

const task = (i: number, over: Partial<TaskRow> = {}) => store.insert({
  id: `task_rec${i}`, operatorId: 'op_1', agentId: 'agent_1', taskType: 'general', prompt: `prompt ${i}`, model: 'builtin', provider: 'builtin',
  status: 'COMPLETED', stage: 8, output: `output ${i}`, ipfsCid: 'bafkreibgrhlmrepwyyjrsfy2h77it5xwfu2srewzbg5jtdscewpzkhfnba', stateRoot: h(`root ${i}`),
  verificationStatus: i % 2 ? 'VERIFIED' : 'FAILED', verificationScore: i % 2 ? 1 : 0.4321, verificationProof: h(`proof ${i}`),
  verification: i % 3 ? { version: 1, promptHash: h(`ph ${i}`), outputHash: h(`oh ${i}`) } : null,
  computeFinishedAt: i % 4 ? 1_795_797_180_431 + i * 1001 : null, createdAt: 1_795_797_180_000 + i, updatedAt: 1_795_797_180_000 + i,
  ...over,
})

/** What stage 7 stores on the task and answers: the signer's attestation as it came out. */
async function signed(t: TaskRow, signer: Signer) {
  const { uid, signed } = signer.attest(taskAttestationMessage(t))
  const a = await signed
  return { uid, a, published: { uid, sig: a.sig, signer: a.signer, schema: { schema: TASK_SCHEMA, uid: TASK_SCHEMA_UID } } }
}

const insertRecord = sqlite.prepare('INSERT INTO task_attestations (uid, task_id, signature, signer, chain_id) VALUES (?1, ?2, ?3, ?4, ?5)')

test('rebuilt from its record and its task, the attestation is the signer\'s, byte for byte, for tasks of every shape and both chains', async () => {
  for (const chainId of [84532, 8453]) {
    const signer = new Signer(key, '2026-01-01T00:00:00.000Z', chainId)
    for (let i = chainId; i < chainId + 8; i++) {
      const t = task(i)
      const { uid, a, published } = await signed(t, signer)
      const rec = toRecord(a)
      expect(rec.signature.length).toBe(65)
      expect(rec.signer.length).toBe(20)
      expect(JSON.stringify(fromRecord(uid, rec, t))).toBe(JSON.stringify(published))
      // stored, then read back through TaskRepository (the detail and GET /api/v1/attestations/:uid)
      insertRecord.run(uidKey(uid), t.id, rec.signature, rec.signer, rec.chainId)
      const read = store.attestation(uid)!
      expect(read.taskId).toBe(t.id)
      expect(JSON.stringify(read.attestation)).toBe(JSON.stringify(published))
      // its signature still verifies against what it says it signed
      const s = read.attestation.sig
      const sig = `${s.signature.r}${s.signature.s.slice(2)}${s.signature.v.toString(16)}` as `0x${string}`
      expect(sig).toBe(a.signatureHex)
      expect(await verifyTypedData({ address: read.attestation.signer, domain: { ...s.domain, chainId: Number(s.domain.chainId) }, types: s.types, primaryType: 'Attest', message: s.message, signature: sig })).toBe(true)
    }
  }
})

test('a task row changed since gives an attestation that no longer hashes to its UID nor verifies', async () => {
  const signer = new Signer(key, '2026-01-01T00:00:00.000Z', 84532)
  const t = task(100)
  const { uid, a } = await signed(t, signer)
  const rec = toRecord(a)
  insertRecord.run(uidKey(uid), t.id, rec.signature, rec.signer, rec.chainId)
  sqlite.query('UPDATE tasks SET state_root = ?2 WHERE id = ?1').run(t.id, h('another root'))
  const read = store.attestation(uid)!.attestation
  const s = read.sig
  expect(offchainUid({ ...s.message, time: BigInt(s.message.time), expirationTime: BigInt(s.message.expirationTime) })).not.toBe(uid)
  expect(await verifyTypedData({ address: read.signer, domain: { ...s.domain, chainId: Number(s.domain.chainId) }, types: s.types, primaryType: 'Attest', message: s.message, signature: a.signatureHex })).toBe(false)
})

test('an attestation stored before migration 0015 (its full JSON in attestations) reads back as stored', async () => {
  const signer = new Signer(key, '2026-01-01T00:00:00.000Z', 84532)
  const t = task(200)
  const { uid, published } = await signed(t, signer)
  // the row as stage 7 wrote it before: the JSON text of the published attestation
  const text = JSON.stringify(published)
  sqlite.query('INSERT INTO attestations (uid, task_id, operator_id, attestation, created_at) VALUES (?1, ?2, ?3, ?4, ?5)').run(uid, t.id, t.operatorId, text, 1)
  const read = store.attestation(uid)!
  expect(read.taskId).toBe(t.id)
  expect(JSON.stringify(read.attestation)).toBe(text)
  expect(store.attestation(h('unknown'))).toBeNull()
})
