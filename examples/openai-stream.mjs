// A streamed chat completion through TaskGate with the official openai client: the text is
// printed as it arrives; the last chunk before [DONE] has no choices and carries `taskgate`, the
// receipt of exactly the text streamed.
//
//   TASKGATE_URL=http://127.0.0.1:8787 TASKGATE_API_KEY=tg_… node openai-stream.mjs
//
// Verifies: the last chunk names the task and its receipt, and the task as TaskGate stored it
// (GET /api/v1/tasks/{id}, read with the same key) is COMPLETED with exactly the streamed text as
// its output and the same receipt. Exits 1 otherwise.
import OpenAI from 'openai'

const url = (process.env.TASKGATE_URL ?? 'http://127.0.0.1:8787').replace(/\/+$/, '')
const apiKey = process.env.TASKGATE_API_KEY
if (!apiKey) { console.error('set TASKGATE_API_KEY to an agent\'s API key (tg_…)'); process.exit(2) }

const client = new OpenAI({ baseURL: `${url}/v1`, apiKey })
const stream = await client.chat.completions.create({
  model: process.env.TASKGATE_MODEL ?? 'builtin',
  stream: true,
  messages: [{ role: 'user', content: 'Summarise: a stream is text that arrives in pieces. The receipt covers all of it.' }],
})

let text = ''
let taskgate = null
for await (const chunk of stream) {
  const piece = chunk.choices[0]?.delta?.content ?? ''
  text += piece
  process.stdout.write(piece)
  if (chunk.taskgate) taskgate = chunk.taskgate
}
process.stdout.write('\n')

const failures = []
if (!text) failures.push('nothing was streamed')
if (!taskgate?.receiptCid) failures.push('no chunk carried taskgate.receiptCid')
else {
  console.log(`task: ${taskgate.taskId}\nreceiptCid: ${taskgate.receiptCid}`)
  const res = await fetch(`${url}/api/v1/tasks/${taskgate.taskId}`, { headers: { 'x-api-key': apiKey } })
  const task = await res.json()
  if (res.status !== 200) failures.push(`GET /api/v1/tasks/${taskgate.taskId} → ${res.status}`)
  else {
    if (task.status !== 'COMPLETED') failures.push(`the task is ${task.status}`)
    if (task.output !== text) failures.push('the task\'s output differs from the streamed text')
    if (task.receiptCid !== taskgate.receiptCid) failures.push('the task names another receipt')
  }
}
if (failures.length) { console.error(`FAILED: ${failures.join('; ')}`); process.exit(1) }
console.log('verified: the stored task is COMPLETED with exactly the streamed text and this receipt')
