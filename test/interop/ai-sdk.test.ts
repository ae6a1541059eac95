// The Vercel AI SDK (`ai` with `@ai-sdk/openai-compatible`; optional interop group,
// test/interop/package.json) against a real server's /v1: generateText and streamText with the
// SDK's own request building and stream parsing. The provider's documented metadataExtractor hook
// reads our `taskgate` member (the whole answer's, or the last chunk's), and every receipt it
// yields is verified with viem against /.well-known/taskgate-signers.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { createOpenAICompatible, type MetadataExtractor } from '@ai-sdk/openai-compatible'
import { generateText, streamText } from 'ai'
import { FakeLLM } from '../helpers/fake-llm'
import { expectReceiptCovers } from '../helpers/receipts'
import { startServer, type TestServer } from '../helpers/server'

let s: TestServer
let fake: FakeLLM
let op: { token: string; id: string; agent: any }
const PROVIDER_KEY = 'sk-interop-aisdk-0001'

/** Picks `taskgate` out of a whole answer, or out of whichever stream chunk carries it. */
const taskgateMetadata: MetadataExtractor = {
  extractMetadata: async ({ parsedBody }) => {
    const tg = (parsedBody as { taskgate?: Record<string, string> }).taskgate
    return tg ? { taskgate: { ...tg } } : undefined
  },
  createStreamExtractor: () => {
    let tg: Record<string, string> | undefined
    return {
      processChunk: (chunk) => { tg = (chunk as { taskgate?: Record<string, string> }).taskgate ?? tg },
      buildMetadata: () => (tg ? { taskgate: { ...tg } } : undefined),
    }
  },
}

const provider = () => createOpenAICompatible({ name: 'taskgate', baseURL: `${s.url}/v1`, apiKey: op.agent.apiKey, includeUsage: true, metadataExtractor: taskgateMetadata })

beforeAll(async () => {
  fake = await FakeLLM.start()
  fake.set(PROVIDER_KEY, { content: 'A remote model answers.' })
  s = await startServer({ TASKGATE_PROVIDER_TIMEOUT_MS: '5000' })
  const admin = await s.setupAdmin()
  op = await s.operatorWithAgent('ai-sdk', ['general'])
  const p = await s.post('/api/v1/admin/providers', { name: 'interop-aisdk', kind: 'openai', baseUrl: fake.baseUrl, models: ['aisdk-gpt'], keys: [{ key: PROVIDER_KEY, concurrency: 8 }] }, { token: admin })
  expect(p.status).toBe(201)
}, 30_000)
afterAll(async () => {
  await s?.cleanup()
  fake?.stop()
})

const task = async (id: string) => (await s.get(`/api/v1/tasks/${id}`, { token: op.token })).body

const expectReceipt = (cid: string, taskId: string, output: string) => expectReceiptCovers(s.url, cid, taskId, output)

test('generateText: the text is the task\'s output; the receipt from the provider metadata verifies', async () => {
  const r = await generateText({ model: provider()('builtin'), system: 'Summarise.', prompt: 'Receipts make agent work checkable. Anyone can verify them offline.' })
  expect(r.text.length).toBeGreaterThan(0)
  expect(r.finishReason).toBe('stop')
  const tg = r.providerMetadata!.taskgate as Record<string, string>
  expect(tg.taskId).toBe(r.response.headers!['x-taskgate-task-id']!)
  expect(tg.receiptCid).toBe(r.response.headers!['x-taskgate-receipt-cid']!)
  const t = await task(tg.taskId!)
  expect(t).toMatchObject({ status: 'COMPLETED', output: r.text, door: 'openai' })
  expect(t.prompt).toBe('system: Summarise.\n\nuser: Receipts make agent work checkable. Anyone can verify them offline.')
  await expectReceipt(tg.receiptCid!, tg.taskId!, r.text)
})

test('streamText: the text stream joined is the task\'s output; the last chunk\'s receipt verifies', async () => {
  fake.next(PROVIDER_KEY, { chunks: ['The ', 'AI ', 'SDK ', 'streams.'] })
  const r = streamText({ model: provider()('aisdk-gpt'), prompt: 'Stream through the AI SDK.' })
  const pieces: string[] = []
  for await (const piece of r.textStream) pieces.push(piece)
  const text = pieces.join('')
  expect(text).toBe('The AI SDK streams.')
  expect(pieces.length).toBeGreaterThan(1)
  const meta = await r.providerMetadata
  const tg = meta!.taskgate as Record<string, string>
  const headers = (await r.response).headers!
  expect(tg.taskId).toBe(headers['x-taskgate-task-id']!)
  expect((await r.usage).outputTokens).toBeGreaterThan(0)
  expect(await task(tg.taskId!)).toMatchObject({ status: 'COMPLETED', output: text, receiptCid: tg.receiptCid })
  await expectReceipt(tg.receiptCid!, tg.taskId!, text)
})
