// ipfs.db's encoding of the pipeline's documents (src/ipfs/block-codec.ts): every receipt and task
// document the signer and stage 5 make comes back byte for byte and smaller; anything else is
// stored as it is; the phrase list, part of the stored format, never changes.
import { expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { keccak256, toHex } from 'viem'
import { Signer } from '../../src/chain/signer'
import { decodeBlock, encodeBlock, PHRASES } from '../../src/ipfs/block-codec'
import { taskDocument } from '../../src/pipeline/stages/05-ipfs'
import type { TaskRow } from '../../src/tasks/types'

const h = (s: string) => keccak256(toHex(s))
const bytes = (v: unknown) => new TextEncoder().encode(JSON.stringify(v))
const roundTrip = (data: Uint8Array) => {
  const stored = encodeBlock(data)
  expect(Buffer.from(decodeBlock(stored.data, stored.enc)).equals(Buffer.from(data))).toBe(true)
  return stored
}

test('the phrase list is the one blocks were stored with', () => {
  expect(createHash('sha256').update(JSON.stringify(PHRASES)).digest('hex')).toBe('b80ae11977e563555767790e31811af63da443a630ef5d32fb1c5e867a5d8841')
})

test('receipts and task documents come back exactly, in about a third of their size', async () => {
  const signer = new Signer(h('block-codec key'), '2026-01-01T00:00:00.000Z', 84532)
  for (let i = 0; i < 20; i++) {
    const message = {
      taskId: `task_${i}x`, operatorId: 'op_1', agentId: `agent_${i}`, taskType: i % 2 ? 'general' : 'sentiment_analysis', model: 'builtin', provider: 'builtin',
      promptHash: h(`p${i}`), outputHash: h(`o${i}`), ipfsCid: 'bafkreibgrhlmrepwyyjrsfy2h77it5xwfu2srewzbg5jtdscewpzkhfnba', stateRoot: h(`r${i}`),
      verificationScoreBps: 9000 + i, verified: i % 2 === 0, verificationProof: h(`v${i}`), attestationUid: h(`a${i}`), creditsCharged: BigInt(i), completedAt: 1_795_797_180n + BigInt(i),
    }
    const receipt = bytes({ type: 'taskgate.receipt/v1', ...await signer.signReceipt(message) })
    const r = roundTrip(receipt)
    expect(r.enc).toBe(1)
    expect(r.data.length).toBeLessThan(receipt.length * 0.35)
    const task = {
      id: `task_${i}x`, operatorId: 'op_1', agentId: `agent_${i}`, taskType: 'general', prompt: `prompt "${i}" \u00e9\u4e2d`, output: i % 3 ? `out\n${i}` : null, verification: null,
      model: 'builtin', provider: 'builtin', createdAt: 1_795_797_180_000 + i, computeStartedAt: i % 4 ? 1_795_797_180_100 : null, computeFinishedAt: 1_795_797_180_200, latencyMs: i,
      verificationStatus: 'VERIFIED', verificationScore: 0.5 + i / 100, verificationProof: h(`v${i}`),
    } as unknown as TaskRow
    for (const publish of [false, true]) {
      const doc = bytes(taskDocument(task, publish))
      const d = roundTrip(doc)
      expect(d.enc).toBe(1)
      expect(d.data.length).toBeLessThan(doc.length * 0.6)
    }
  }
  signer.stopWorker()
})

test('other content is stored as it is; look-alikes come back exactly', () => {
  const cases = [
    new Uint8Array([0, 1, 2, 3, 255]),
    bytes({ hello: 'world', hash: h('x') }), // JSON, not a pipeline document
    new TextEncoder().encode('{"type":"taskgate.task/v1","taskId":"a\u0001b"}'), // a control byte: not JSON text
    new TextEncoder().encode('{"type":"taskgate.'),
  ]
  for (const c of cases) expect(roundTrip(c)).toEqual({ data: c, enc: null })
  const odd = [
    `0x${'a'.repeat(63)}`, `0x${'a'.repeat(65)}`, `0x${'A'.repeat(64)}`, `0x${'b'.repeat(129)}`, `0x${'c'.repeat(131)}`, `0x${'d'.repeat(194)}`, '0x', `${h('z')}${h('y').slice(2)}`,
    `${h('q')}Z`, 'sentiment_analysis', '","operatorId":"', '\u00ff\u20ac',
  ]
  for (const v of odd) {
    const doc = bytes({ type: 'taskgate.task/v1', taskId: v, promptHash: h(v), list: [v, v], n: 1 })
    expect(roundTrip(doc).enc).toBe(1)
  }
})
