// TaskGate as an MCP server, reached with the official MCP TypeScript SDK's client over
// Streamable HTTP: submit_task runs a task through all 8 stages, verify_receipt checks its receipt.
//
//   TASKGATE_URL=http://127.0.0.1:8787 TASKGATE_API_KEY=tg_… node mcp-client.mjs
//
// Verifies: the server offers the six tools, submit_task answers a COMPLETED task with a receipt
// CID, and verify_receipt finds that receipt's signature valid, its signer listed, its bytes
// matching the CID and the same task id. Exits 1 otherwise.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'

const url = (process.env.TASKGATE_URL ?? 'http://127.0.0.1:8787').replace(/\/+$/, '')
const apiKey = process.env.TASKGATE_API_KEY
if (!apiKey) { console.error('set TASKGATE_API_KEY to an agent\'s API key (tg_…)'); process.exit(2) }

const client = new Client({ name: 'taskgate-example', version: '1.0.0' })
await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${apiKey}` } } }))
const failures = []
try {
  const { tools } = await client.listTools()
  const names = tools.map((t) => t.name)
  console.log(`tools: ${names.join(', ')}`)
  for (const n of ['submit_task', 'get_task', 'list_tasks', 'verify_receipt', 'get_passport', 'pending_approvals']) if (!names.includes(n)) failures.push(`tool ${n} missing`)

  const submitted = await client.callTool({ name: 'submit_task', arguments: { prompt: 'Summarise: MCP clients reach TaskGate too. Their tasks carry receipts.', waitSeconds: 30 } })
  const task = submitted.structuredContent?.task
  if (submitted.isError || !task) throw new Error(`submit_task failed: ${submitted.content?.[0]?.text ?? 'no task'}`)
  console.log(`task: ${task.id} ${task.status}\noutput: ${task.output}\nreceiptCid: ${task.receiptCid}`)
  if (task.status !== 'COMPLETED' || !task.receiptCid) throw new Error(`the task is ${task.status} without a receipt`)

  const checked = await client.callTool({ name: 'verify_receipt', arguments: { cid: task.receiptCid } })
  const v = checked.structuredContent
  if (checked.isError || !v) throw new Error(`verify_receipt failed: ${checked.content?.[0]?.text ?? 'no result'}`)
  console.log(`verify_receipt: ${JSON.stringify(v)}`)
  if (!v.signatureValid) failures.push('signature not valid')
  if (!v.signerKnown) failures.push('signer not listed')
  if (!v.cidMatches) failures.push('bytes do not match the CID')
  if (v.taskId !== task.id) failures.push('the receipt names another task')
} catch (e) {
  failures.push(e instanceof Error ? e.message : String(e))
} finally {
  await client.close()
}
if (failures.length) { console.error(`FAILED: ${failures.join('; ')}`); process.exit(1) }
console.log('verified: six tools offered; submit_task completed with a receipt; verify_receipt: signature valid, signer listed, CID matching, same task')
