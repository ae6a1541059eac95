// Checks a TaskGate receipt with nothing but viem: no trust in the server's own verdict.
//
//   TASKGATE_URL=http://127.0.0.1:8787 node verify-receipt.mjs <receiptCid>
//   TASKGATE_URL=… TASKGATE_API_KEY=tg_… node verify-receipt.mjs     # makes a task first, then checks its receipt
//
// Fetches the receipt's bytes (GET /ipfs/<cid>?format=raw) and the signer list
// (GET /.well-known/taskgate-signers), then verifies: the bytes hash to the CID (CIDv1, sha2-256),
// the document is a receipt signed in the published receipt domain, the EIP-712 signature
// recovers to the signer it names, and that signer is listed. Exits 1 when any check fails.
import { bytesToHex, sha256, verifyTypedData } from 'viem'

const url = (process.env.TASKGATE_URL ?? 'http://127.0.0.1:8787').replace(/\/+$/, '')
let cid = process.argv[2]
if (!cid) {
  const apiKey = process.env.TASKGATE_API_KEY
  if (!apiKey) { console.error('usage: node verify-receipt.mjs <receiptCid>  (or set TASKGATE_API_KEY to make a task first)'); process.exit(2) }
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'builtin', messages: [{ role: 'user', content: 'Summarise: a receipt is checked with viem alone. No trust needed.' }] }),
  })
  cid = res.headers.get('x-taskgate-receipt-cid')
  if (res.status !== 200 || !cid) { console.error(`FAILED: the task did not complete (${res.status}): ${await res.text()}`); process.exit(1) }
  console.log(`made a task: ${res.headers.get('x-taskgate-task-id')}`)
}
console.log(`receiptCid: ${cid}`)

const res = await fetch(`${url}/ipfs/${cid}?format=raw`)
if (res.status !== 200) { console.error(`FAILED: GET /ipfs/${cid} → ${res.status}`); process.exit(1) }
const bytes = new Uint8Array(await res.arrayBuffer())
const doc = JSON.parse(new TextDecoder().decode(bytes))
const published = await (await fetch(`${url}/.well-known/taskgate-signers`)).json()

const checks = []
const check = (name, ok) => { checks.push([name, ok]); console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}`) }

check('the bytes hash to the CID', cidDigest(cid) === sha256(bytes))
check('it is a receipt (taskgate.receipt/v1)', doc.type === 'taskgate.receipt/v1' && doc.payload?.primaryType === 'TaskReceipt')
const domain = published.eip712Domains?.receipt ?? {}
check('signed in the published receipt domain', Object.keys(domain).length > 0 && Object.entries(domain).every(([k, v]) => doc.payload?.domain?.[k] === v))
const { EIP712Domain: _, ...types } = doc.payload?.types ?? {}
const message = { ...doc.payload?.message }
for (const f of types[doc.payload?.primaryType] ?? []) if (/^u?int\d*$/.test(f.type) && message[f.name] !== undefined) message[f.name] = BigInt(message[f.name]) // JSON carries integers as strings
const valid = await verifyTypedData({ address: doc.signer, signature: doc.signature, domain: doc.payload?.domain, types, primaryType: doc.payload?.primaryType, message }).catch(() => false)
check(`the EIP-712 signature recovers to ${doc.signer}`, valid)
check('that signer is listed at /.well-known/taskgate-signers', (published.signers ?? []).some((s) => s.address.toLowerCase() === String(doc.signer).toLowerCase()))

console.log(`task ${doc.payload?.message?.taskId} (agent ${doc.payload?.message?.agentId}, ${doc.payload?.message?.taskType}), output hash ${doc.payload?.message?.outputHash}`)
if (checks.some(([, ok]) => !ok)) { console.error('FAILED'); process.exit(1) }
console.log('verified: CID, receipt type, domain, signature and signer')

/** The sha2-256 digest a CIDv1 in base32 (`b…`) names, as 0x hex (null for any other form). */
function cidDigest(c) {
  if (!c.startsWith('b')) return null
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567'
  const raw = []
  let bits = 0
  let value = 0
  for (const ch of c.slice(1)) {
    const v = alphabet.indexOf(ch)
    if (v < 0) return null
    value = (value << 5) | v
    bits += 5
    if (bits >= 8) { raw.push((value >>> (bits - 8)) & 0xff); bits -= 8; value &= (1 << bits) - 1 }
  }
  let i = 0
  const varint = () => { let n = 0; let shift = 0; for (;;) { const b = raw[i++]; if (b === undefined) return -1; n += (b & 0x7f) * 2 ** shift; if (b < 0x80) return n; shift += 7 } }
  if (varint() !== 1) return null // CID version 1
  varint() // the codec: the digest covers the block's bytes whatever it is
  if (varint() !== 0x12 || varint() !== 32) return null // sha2-256, 32 bytes
  return bytesToHex(Uint8Array.from(raw.slice(i)))
}
