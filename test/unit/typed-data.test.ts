// src/chain/typed-data.ts against viem: the same digest and the same signature bytes for the
// receipt, the EAS attestation, the webhook and the ToS types, across domains, edge values and
// repeated calls.
import { expect, test } from 'bun:test'
import { encodePacked, hashTypedData, keccak256, toHex, zeroAddress } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { hashTypedDataCached, signTypedDataCached } from '../../src/chain/typed-data'
import { EAS_TYPES, RECEIPT_TYPES, TASK_SCHEMA_UID, WEBHOOK_FIELDS, WEBHOOK_TYPES } from '../../src/chain/signer'
import { TOS_ACCEPTANCE_TYPES } from '../../src/tos/service'

const key = keccak256(toHex('typed-data test key'))
const account = privateKeyToAccount(key)
const h = (s: string) => keccak256(toHex(s))

const receipt = (chainId: number, i: number) => ({
  domain: { name: 'TaskGate Receipt', version: '1', chainId }, types: RECEIPT_TYPES, primaryType: 'TaskReceipt',
  message: {
    taskId: `task_${i}`, operatorId: 'op_1', agentId: 'agent_ü', taskType: 'sentiment_analysis', model: 'builtin', provider: 'builtin',
    promptHash: h(`p${i}`), outputHash: h(`o${i}`), ipfsCid: 'bafkreiabc', stateRoot: h(`r${i}`), verificationScoreBps: 9167, verified: i % 2 === 0,
    verificationProof: h(`v${i}`), attestationUid: h(`a${i}`), creditsCharged: BigInt(i), completedAt: 1_700_000_000n + BigInt(i),
  },
}) as never
const attestation = (chainId: number, i: number) => ({
  domain: { name: 'EAS Attestation', version: '1.2.0', chainId, verifyingContract: '0x4200000000000000000000000000000000000021' }, types: EAS_TYPES, primaryType: 'Attest',
  message: { version: 2, schema: TASK_SCHEMA_UID, recipient: zeroAddress, time: 1_700_000_000n + BigInt(i), expirationTime: 0n, revocable: true, refUID: h('0'), data: toHex(`data ${i}`), salt: h(`salt ${i}`) },
}) as never
const webhook = (i: number) => ({
  domain: { name: 'TaskGate Webhook', version: '1', chainId: 84532 }, types: WEBHOOK_TYPES, primaryType: 'ApprovalWebhook',
  message: Object.fromEntries(WEBHOOK_FIELDS.map((f) => [f, `${f} ${i}`])),
}) as never

const tos = (i: number) => ({
  domain: { name: 'TaskGate', version: '1', chainId: 84532 }, types: TOS_ACCEPTANCE_TYPES, primaryType: 'TosAcceptance',
  message: { operatorId: `op_${i}`, version: `2026-0${i}`, textHash: h(`tos ${i}`), acceptedAt: new Date(1_700_000_000_000 + i).toISOString() },
}) as never
/** Edge values: empty and long strings and bytes, the largest integers, a checksummed address. */
const edges = (i: number) => {
  const r = receipt(1, i) as unknown as { message: Record<string, unknown> }
  const a = attestation(1, i) as unknown as { message: Record<string, unknown> }
  Object.assign(r.message, { taskId: i % 2 ? '' : 'x'.repeat(5000), agentId: '日本語 ✓ \u0000', verificationScoreBps: 65535, creditsCharged: 2n ** 256n - 1n, completedAt: 2n ** 64n - 1n })
  Object.assign(a.message, { recipient: '0x4200000000000000000000000000000000000021', data: i % 2 ? '0x' : toHex(new Uint8Array(3000).fill(i)), revocable: false })
  return [r, a] as never[]
}

test('digests and signatures equal viem\'s for every document type, domain and call', async () => {
  for (let i = 0; i < 6; i++) {
    for (const td of [receipt(84532, i), receipt(8453, i), attestation(84532, i), attestation(8453, i), webhook(i), tos(i), ...edges(i)]) {
      expect(hashTypedDataCached(td)).toBe(hashTypedData(td))
      const viemSignature = await account.signTypedData(td)
      expect(await signTypedDataCached(key, td)).toBe(viemSignature)
    }
  }
})

test('a value that does not fit its type is refused, as viem refuses it', () => {
  const breakers: [string, unknown][] = [['promptHash', '0x1234'], ['verificationScoreBps', 65536], ['creditsCharged', -1n], ['completedAt', 2n ** 64n]]
  for (const [field, value] of breakers) {
    const bad = receipt(84532, 1) as unknown as { message: Record<string, unknown> }
    bad.message[field] = value
    expect(() => hashTypedDataCached(bad as never)).toThrow()
    expect(() => hashTypedData(bad as never)).toThrow()
  }
  const badAddress = attestation(84532, 1) as unknown as { message: Record<string, unknown> }
  badAddress.message.recipient = '0x42000000000000000000000000000000000000zz'
  expect(() => hashTypedDataCached(badAddress as never)).toThrow()
})

test('TASK_SCHEMA_UID is keccak256(schema ‖ resolver ‖ revocable), as EAS\'s SchemaRegistry derives it', async () => {
  const { TASK_SCHEMA } = await import('../../src/chain/signer')
  const { keccak_256 } = await import('@noble/hashes/sha3')
  // abi.encodePacked(string, address, bool): the UTF-8 bytes, 20 bytes of the zero resolver, one byte 0x01
  const packed = new Uint8Array([...new TextEncoder().encode(TASK_SCHEMA), ...new Uint8Array(20), 1])
  expect(TASK_SCHEMA_UID).toBe(toHex(keccak_256(packed)))
  expect(TASK_SCHEMA_UID).toBe(keccak256(encodePacked(['string', 'address', 'bool'], [TASK_SCHEMA, zeroAddress, true])))
})
