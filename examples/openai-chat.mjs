// A chat completion through TaskGate with the official openai client: the call is a task through
// all 8 stages, and the answer names its signed receipt.
//
//   TASKGATE_URL=http://127.0.0.1:8787 TASKGATE_API_KEY=tg_… node openai-chat.mjs
//
// Verifies: the answer's `taskgate` member and its x-taskgate-* headers name the same task and
// receipt, and TaskGate's public proof check finds the receipt's signature valid, its signer
// listed and its bytes matching the CID. Exits 1 otherwise.
import OpenAI from 'openai'

const url = (process.env.TASKGATE_URL ?? 'http://127.0.0.1:8787').replace(/\/+$/, '')
const apiKey = process.env.TASKGATE_API_KEY
if (!apiKey) { console.error('set TASKGATE_API_KEY to an agent\'s API key (tg_…)'); process.exit(2) }

const client = new OpenAI({ baseURL: `${url}/v1`, apiKey })
const { data, response } = await client.chat.completions.create({
  model: process.env.TASKGATE_MODEL ?? 'builtin',
  messages: [{ role: 'user', content: 'Summarise: receipts make agent work checkable. Anyone can verify them.' }],
}).withResponse()

const text = data.choices[0]?.message.content ?? ''
const { taskId, receiptCid, attestationUid } = data.taskgate ?? {}
console.log(`answer: ${text}`)
console.log(`task: ${taskId}\nreceiptCid: ${receiptCid}\nattestationUid: ${attestationUid}`)

const failures = []
if (!text) failures.push('the answer is empty')
if (!taskId || response.headers.get('x-taskgate-task-id') !== taskId) failures.push('x-taskgate-task-id does not match the body')
if (!receiptCid || response.headers.get('x-taskgate-receipt-cid') !== receiptCid) failures.push('x-taskgate-receipt-cid does not match the body')
if (receiptCid) {
  const proof = await (await fetch(`${url}/api/v1/public/proof/${receiptCid}`)).json()
  const v = proof.verification ?? {}
  if (proof.kind !== 'receipt' || !v.signatureValid || !v.signerKnown || !v.cidMatches) failures.push(`the proof check failed: ${JSON.stringify(v)}`)
}
if (failures.length) { console.error(`FAILED: ${failures.join('; ')}`); process.exit(1) }
console.log('verified: body and headers name the same task and receipt; the proof check found the signature valid, the signer listed and the CID matching')
