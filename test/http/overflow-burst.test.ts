// A burst of tasks through a provider pool of one slot (regression test, was a bug, fixed): a parked
// task's overflow job could finish before the commit that parks the task (stage 3's `queued`
// commit, still waiting in the group commit), and its answer was dropped: the task stayed QUEUED
// until the next start. Now every task completes, with one provider call each.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { FakeLLM } from '../helpers/fake-llm'
import { LIFTED_LIMITS_ENV } from '../helpers/operations'
import { startServer, type TestServer } from '../helpers/server'

let s: TestServer
let fake: FakeLLM
let token: string
let agentId: string
const KEY = 'sk-burst-0123456789abcdef'
beforeAll(async () => {
  fake = await FakeLLM.start()
  s = await startServer({ ...LIFTED_LIMITS_ENV, TASKGATE_TIERS_FREE_MONTHLY_CREDITS: '100000' })
  const admin = await s.setupAdmin()
  const r = await s.post('/api/v1/admin/providers', { name: 'burst', kind: 'openai', baseUrl: fake.baseUrl, models: ['fake-gpt-burst'], keys: [{ key: KEY, rpm: 1_000_000, concurrency: 1 }] }, { token: admin })
  expect(r.status).toBe(201)
  fake.set(KEY, { content: 'burst answer' })
  token = await s.signup('burst-op')
  agentId = (await s.post('/api/v1/agents/register', { displayName: 'Burst', capabilities: ['general'] }, { token })).body.agentId
}, 30_000)
afterAll(async () => {
  await s?.cleanup()
  fake?.stop()
})

test('400 tasks at once through a one-slot pool: every one completes, one provider call each, none left QUEUED', async () => {
  const N = 400
  const sent = await Promise.all(Array.from({ length: N }, (_, i) =>
    s.post('/api/v1/tasks/submit?wait=0', { agentId, taskType: 'general', model: 'fake-gpt-burst', prompt: `Burst ${i}.` }, { token })))
  expect(sent.map((r) => r.status).filter((st) => st !== 202 && st !== 200)).toEqual([])
  const ids = sent.map((r) => r.body.id as string)
  // Wait for the answers (bounded): every task either finished or is still moving through the queue.
  const states = async () => (await Promise.all(ids.map((id) => s.get(`/api/v1/tasks/${id}`, { token })))).map((r) => r.body as { id: string; status: string; computeJobId: string | null })
  let all = await states()
  for (let i = 0; i < 200 && !all.every((t) => t.status === 'COMPLETED' || t.status === 'FAILED'); i++) { await Bun.sleep(25); all = await states() }
  expect(all.filter((t) => t.status !== 'COMPLETED').map((t) => `${t.id} ${t.status}`)).toEqual([])
  expect(fake.requestsFor(KEY)).toHaveLength(N)
  expect(all.filter((t) => t.computeJobId).length).toBeGreaterThan(0) // the pool was full: some went through the overflow queue
}, 60_000)
