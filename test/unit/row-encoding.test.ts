// The task row's compact values (src/tasks/row-encoding.ts) through TaskRepository: a verification record
// comes back as the same text (its proof still hashes to it), a timeline comes back as the same
// events, and rows written before (the record as JSON text, events as objects, or both forms in one
// timeline) read back as they were written.
import { afterAll, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { verifyOutput } from '../../src/pipeline/verification'
import { VERIFICATION_PHRASES } from '../../src/db/verification-column'
import { TaskRepository, type StoredEvent } from '../../src/tasks/repository'
import { drizzle } from 'drizzle-orm/bun-sqlite'
import { migratedDb } from '../helpers/db'
import { keccak256, toHex } from 'viem'

const { sqlite, close } = migratedDb('tg-row-encoding')
afterAll(close)
sqlite.run('PRAGMA foreign_keys = OFF') // tasks of an operator this test does not create
const store = new TaskRepository(drizzle({ client: sqlite }))
const h = (s: string) => keccak256(toHex(s))
let n = 0
const base = () => ({ id: `task_enc${++n}`, operatorId: 'op_1', agentId: 'agent_1', taskType: 'general', prompt: 'p', model: 'builtin', provider: 'builtin', status: 'PROCESSING' as const, stage: 2, createdAt: 1_795_797_180_000, updatedAt: 1_795_797_180_000 })

test('the phrase list is the one rows were stored with', () => {
  expect(createHash('sha256').update(JSON.stringify(VERIFICATION_PHRASES)).digest('hex')).toBe('6e2072f1fb0381a075f0b7e288aaf5b30fdc69096bbbf42d4bf250f0d684c051')
})

test('a verification record is stored smaller and read back as the same text, for every task type and outcome', () => {
  const cases: [string, string, string][] = [
    ['sentiment_analysis', 'The release is fast and the support was wonderful.', '{"label":"positive","score":0.4}'],
    ['sentiment_analysis', 'x', 'no label here'],
    ['trade_signal', 'Should I buy?', '{"signal":"BUY"}'],
    ['general', 'Summarise this text please', ''],
    ['code', 'Write "hello" \u00e9\u4e2d', 'print("hello")\n'],
  ]
  for (const [taskType, prompt, output] of cases) {
    const v = verifyOutput(taskType, prompt, output, 0.7)
    const t = store.insert({ ...base(), taskType, prompt, output, verification: v.record, verificationProof: v.proof, verificationScore: v.score, verificationStatus: v.status })
    const stored = sqlite.query('SELECT verification AS v, typeof(verification) AS t FROM tasks WHERE id = ?1').get(t.id) as { v: Uint8Array; t: string }
    expect(stored.t).toBe('blob')
    expect(stored.v.length).toBeLessThan(JSON.stringify(v.record).length * 0.5)
    const read = store.get(t.id)!
    expect(JSON.stringify(read.verification)).toBe(JSON.stringify(v.record))
    expect(h(JSON.stringify(read.verification))).toBe(v.proof) // the proof is the keccak256 of the text as written
  }
})

test('a row written before, with the record as JSON text, reads back as it was', () => {
  const v = verifyOutput('general', 'old prompt', 'old output', 0.7)
  const t = store.insert({ ...base() })
  sqlite.query('UPDATE tasks SET verification = ?2 WHERE id = ?1').run(t.id, JSON.stringify(v.record))
  expect(JSON.stringify(store.get(t.id)!.verification)).toBe(JSON.stringify(v.record))
})

const ev = (stage: number, name: string, status: string, detail: Record<string, unknown> | null, at: number): StoredEvent => ({ stage, name, status, detail, at })

test('a timeline is stored compactly and read back as the same events; the stages\' own fields come from the row', () => {
  const cid = 'bafkreibgrhlmrepwyyjrsfy2h77it5xwfu2srewzbg5jtdscewpzkhfnba'
  const t = store.insert({ ...base(), stage: 2 }, [ev(1, 'policy', 'done', { rules: 4 }, 1), ev(2, 'debit', 'done', { credits: 1 }, 2)])
  const late = [
    ev(3, 'compute', 'done', { provider: 'builtin', model: 'builtin', latencyMs: 0 }, 3),
    ev(4, 'verification', 'done', { score: 0.4321, status: 'FAILED' }, 4),
    ev(5, 'ipfs', 'done', { cid }, 5),
    ev(6, 'fingerprint', 'done', { leaf: h('leaf') }, 6),
    ev(7, 'attestation', 'done', { uid: h('uid') }, 7),
    ev(8, 'receipt', 'completed', { cid: 'bafkreiazipm2kkswkc4nozwrxblorn474nqbj7r7dgdnrdqkgxq7ucogle' }, 8),
  ]
  const length = store.update(t.id, { verificationScore: 0.4321, verificationStatus: 'FAILED', ipfsCid: cid, attestationUid: h('uid'), receiptCid: 'bafkreiazipm2kkswkc4nozwrxblorn474nqbj7r7dgdnrdqkgxq7ucogle', status: 'COMPLETED', stage: 8 }, late)
  expect(length).toBe(8)
  expect(store.timeline(t.id)).toEqual([ev(1, 'policy', 'done', { rules: 4 }, 1), ev(2, 'debit', 'done', { credits: 1 }, 2), ...late])
  const text = (sqlite.query('SELECT timeline AS t FROM tasks WHERE id = ?1').get(t.id) as { t: string }).t
  expect(text).not.toContain(cid) // the row holds it once
  // events whose detail is not the row's, names that are not their stage's, held and failed events
  const odd = [ev(5, 'ipfs', 'done', { cid: 'bafkrei-other' }, 9), ev(1, 'policy', 'held', { approvalId: 'apr_1', reason: 'r' }, 10), ev(0, 'kill-switch', 'failed', { code: 'K', message: 'm', refunded: false }, 11), ev(4, 'verification', 'done', { score: 1, status: 'VERIFIED', extra: 1 }, 12)]
  expect(store.update(t.id, {}, odd)).toBe(12)
  expect(store.timeline(t.id)!.slice(8)).toEqual(odd)
})

test('a timeline written before (events as objects), and one continued after, read back as written', () => {
  const old = [ev(1, 'policy', 'done', { rules: 4 }, 1), ev(2, 'debit', 'done', { credits: 1 }, 2)]
  const t = store.insert({ ...base() })
  sqlite.query('UPDATE tasks SET timeline = ?2 WHERE id = ?1').run(t.id, JSON.stringify(old))
  expect(store.timeline(t.id)).toEqual(old)
  const more = [ev(3, 'compute', 'done', { provider: 'builtin', model: 'builtin', latencyMs: 1 }, 3), ev(5, 'ipfs', 'done', { cid: 'bafkreicid' }, 4)]
  expect(store.update(t.id, { ipfsCid: 'bafkreicid' }, more)).toBe(4)
  expect(store.timeline(t.id)).toEqual([...old, ...more])
})
