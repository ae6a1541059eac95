// The signing worker (src/chain/sign-worker.ts) behind Signer: it gets each document kind's domain,
// types and primary type with its key, then requests carry only the kind and the message.
// Signatures of every document kind, asked for interleaved and concurrently, equal viem's.
import { afterAll, expect, test } from 'bun:test'
import { keccak256, toHex, zeroAddress, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { Signer, TASK_SCHEMA_UID, WEBHOOK_FIELDS, type ReceiptMessage } from '../../src/chain/signer'

const key = keccak256(toHex('sign-worker test key'))
const account = privateKeyToAccount(key)
const signer = new Signer(key, '2026-01-01T00:00:00.000Z', 84532)
afterAll(() => signer.stopWorker())
const h = (s: string) => keccak256(toHex(s))

const receipt = (i: number): ReceiptMessage => ({
  taskId: `task_${i}`, operatorId: 'op_1', agentId: 'agent_1', taskType: 'general', model: 'builtin', provider: 'builtin',
  promptHash: h(`p${i}`), outputHash: h(`o${i}`), ipfsCid: 'bafkreiabc', stateRoot: h(`r${i}`), verificationScoreBps: 9000 + i, verified: i % 2 === 0,
  verificationProof: h(`v${i}`), attestationUid: h(`a${i}`), creditsCharged: BigInt(i), completedAt: 1_700_000_000n + BigInt(i),
})
const webhook = (i: number) => Object.fromEntries(WEBHOOK_FIELDS.map((f) => [f, `${f} ${i}`]))

test('on the worker, every document type signs as viem does', async () => {
  signer.startWorker()
  await signer.signWebhook(webhook(0)) // starts the worker; signed here meanwhile
  for (let i = 0; i < 400 && !signer.onWorker; i++) await Bun.sleep(10) // the worker thread starting, not a clock
  expect(signer.onWorker).toBe(true)

  const jobs: Promise<void>[] = []
  for (let i = 1; i <= 12; i++) {
    jobs.push(signer.signReceipt(receipt(i)).then(async (r) => {
      expect(r.signature).toBe(await account.signTypedData({ domain: signer.receiptDomain, types: r.payload.types, primaryType: 'TaskReceipt', message: receipt(i) } as never))
    }))
    jobs.push(signer.signWebhook(webhook(i)).then(async (sig) => {
      expect(sig).toBe(await account.signTypedData({ domain: signer.webhookDomain, types: { ApprovalWebhook: WEBHOOK_FIELDS.map((name) => ({ name, type: 'string' })) }, primaryType: 'ApprovalWebhook', message: webhook(i) } as never))
    }))
    const a = signer.attest({ time: 1_700_000_000n + BigInt(i), data: toHex(`data ${i}`) as Hex, salt: h(`salt ${i}`) })
    jobs.push(a.signed.then(async (s) => {
      const message = { version: 2, schema: TASK_SCHEMA_UID, recipient: zeroAddress, time: 1_700_000_000n + BigInt(i), expirationTime: 0n, revocable: true, refUID: `0x${'0'.repeat(64)}`, data: toHex(`data ${i}`), salt: h(`salt ${i}`) }
      expect(s.uid).toBe(a.uid)
      expect(s.signatureHex).toBe(await account.signTypedData({ domain: signer.easDomain, types: s.sig.types, primaryType: 'Attest', message } as never))
    }))
  }
  await Promise.all(jobs)
  expect(jobs).toHaveLength(36)
  expect(signer.onWorker).toBe(true) // nothing fell back to the main thread
})
