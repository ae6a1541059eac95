// TaskGate as an A2A agent, reached with the A2A SDK's own client (@a2a-js/sdk, JSON-RPC, protocol
// 1.0): discover the Agent Card, send a message, print the task, verify its receipt with viem.
//
//   TASKGATE_URL=http://127.0.0.1:8787 TASKGATE_API_KEY=tg_… node a2a-client.mjs
//
// Verifies: the card at /.well-known/agent-card.json names the JSON-RPC endpoint <url>/a2a and
// one skill per task type; the message becomes a COMPLETED task whose artifact holds the output
// and { taskId, receiptCid, attestationUid }; GetTask answers the same; the receipt's EIP-712
// signature (checked with viem, not by the server) recovers to a signer listed at
// /.well-known/taskgate-signers and signs this task and the hash of this output. Exits 1 otherwise.
import { Role, TaskState } from '@a2a-js/sdk'
import { ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client'
import { keccak256, stringToBytes, verifyTypedData } from 'viem'

const url = (process.env.TASKGATE_URL ?? 'http://127.0.0.1:8787').replace(/\/+$/, '')
const apiKey = process.env.TASKGATE_API_KEY
if (!apiKey) { console.error('set TASKGATE_API_KEY to an agent\'s API key (tg_…)'); process.exit(2) }

// The key on every call, as the card's `bearer` scheme says: an interceptor sets the header.
const auth = {
  before: async (call) => { call.options = { ...call.options, serviceParameters: { ...call.options?.serviceParameters, authorization: `Bearer ${apiKey}` } } },
  after: async () => {},
}
const failures = []
try {
  const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { clientConfig: { interceptors: [auth] } }))
  const client = await factory.createFromUrl(url) // reads <url>/.well-known/agent-card.json
  const card = await client.getAgentCard()
  console.log(`agent card: ${card.name} ${card.version}; ${card.skills.length} skills (${card.skills.map((s) => s.id).join(', ')})`)
  console.log(`endpoints: ${card.supportedInterfaces.map((i) => `${i.url} (${i.protocolBinding} ${i.protocolVersion})`).join(', ')}`)
  if (!card.supportedInterfaces.some((i) => i.url === `${url}/a2a` && i.protocolBinding === 'JSONRPC')) failures.push(`the card does not name ${url}/a2a`)

  const task = await client.sendMessage({
    message: {
      messageId: crypto.randomUUID(), role: Role.ROLE_USER, metadata: { taskType: 'general' },
      parts: [{ content: { $case: 'text', value: 'Summarise: A2A agents reach TaskGate too. Their tasks carry signed receipts.' } }],
    },
  })
  const state = TaskState[task.status?.state]
  console.log(`task: ${task.id} ${state} (context ${task.contextId})`)
  if (task.status?.state !== TaskState.TASK_STATE_COMPLETED) throw new Error(`the task is ${state}: ${task.status?.message?.parts?.[0]?.content?.value ?? ''}`)
  const parts = task.artifacts[0]?.parts ?? []
  const output = parts.find((p) => p.content?.$case === 'text')?.content.value
  const proof = parts.find((p) => p.content?.$case === 'data')?.content.value
  console.log(`output: ${output}\nreceiptCid: ${proof?.receiptCid}\nattestationUid: ${proof?.attestationUid}`)
  if (typeof output !== 'string' || !proof?.receiptCid) throw new Error('the artifact has no output or no receipt')
  if (proof.taskId !== task.id) failures.push('the artifact names another task')

  const again = await client.getTask({ id: task.id })
  if (again.status?.state !== TaskState.TASK_STATE_COMPLETED) failures.push(`GetTask answers ${TaskState[again.status?.state]}`)

  // The receipt, checked here with viem: its signature, its signer, what it signs.
  const doc = await (await fetch(`${url}/ipfs/${proof.receiptCid}?format=raw`)).json()
  const { EIP712Domain: _, ...types } = doc.payload.types
  const message = { ...doc.payload.message }
  for (const f of types[doc.payload.primaryType]) if (/^u?int\d*$/.test(f.type) && message[f.name] !== undefined) message[f.name] = BigInt(message[f.name]) // JSON carries integers as strings
  const valid = await verifyTypedData({ address: doc.signer, signature: doc.signature, domain: doc.payload.domain, types, primaryType: doc.payload.primaryType, message }).catch(() => false)
  const signers = await (await fetch(`${url}/.well-known/taskgate-signers`)).json()
  const listed = signers.signers.some((s) => s.address.toLowerCase() === doc.signer.toLowerCase())
  console.log(`receipt: signature ${valid ? 'valid' : 'INVALID'}, signer ${doc.signer} ${listed ? 'listed' : 'NOT listed'}`)
  if (!valid) failures.push('the receipt\'s signature does not recover to its signer')
  if (!listed) failures.push('the receipt\'s signer is not listed at /.well-known/taskgate-signers')
  if (doc.payload.message.taskId !== task.id) failures.push('the receipt signs another task')
  if (doc.payload.message.outputHash !== keccak256(stringToBytes(output))) failures.push('the receipt does not sign this output')
} catch (e) {
  failures.push(e instanceof Error ? e.message : String(e))
}
if (failures.length) { console.error(`FAILED: ${failures.join('; ')}`); process.exit(1) }
console.log('verified: card discovered, task completed with its artifact, receipt signed by a listed signer over this task and output')
