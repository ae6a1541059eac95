// kill -9 in the middle of a load: every task finishes exactly once, with exactly one debit.
import { openTestDb } from '../helpers/data'
import { TaskRepository } from '../../src/tasks/repository'
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { startServer, type TestServer } from '../helpers/server'
import { expectUnbrokenChain } from '../helpers/chain'

let s: TestServer
let fake: ReturnType<typeof Bun.serve>
let providerCalls = 0

beforeAll(async () => {
  fake = Bun.serve({
    port: 0, hostname: '127.0.0.1',
    async fetch(req) {
      providerCalls++
      const body = (await req.json()) as any
      await Bun.sleep(150) // a slow model: tasks are parked in stage 3 when the server dies
      return Response.json({ id: 'c1', object: 'chat.completion', model: body.model, choices: [{ index: 0, message: { role: 'assistant', content: 'Slow but sure. The answer is here.' }, finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12 } })
    },
  })
  s = await startServer()
})
afterAll(async () => { await s.cleanup(); fake.stop(true) })

test('SIGKILL mid-pipeline, restart: each task completes once and is charged once', async () => {
  const admin = await s.setupAdmin()
  const prov = await s.post('/api/v1/admin/providers', { name: 'slow', kind: 'openai', baseUrl: `http://127.0.0.1:${fake.port}/v1`, models: ['slow-model'], keys: [{ key: 'sk-slow', rpm: 100000, concurrency: 64 }] }, { token: admin })
  expect(prov.status).toBe(201)
  const agent = (await s.post('/api/v1/agents/register', { displayName: 'crash', capabilities: ['general', 'sentiment_analysis'] }, { token: admin })).body
  const N = 40
  const submits = await Promise.all(Array.from({ length: N }, (_, i) => s.post('/api/v1/tasks/submit?wait=0', {
    agentId: agent.agentId, taskType: i % 2 ? 'sentiment_analysis' : 'general', model: i % 2 ? 'builtin' : 'slow-model',
    prompt: `Task number ${i}. It was a great day and everything worked. Nothing failed at all.`,
  }, { token: admin })))
  for (const r of submits) expect([200, 202]).toContain(r.status)
  expect(await s.stop('SIGKILL')).not.toBe(0)

  const peek = await openTestDb(s.dataDir, { readonly: true })
  const unfinished = (peek.query('SELECT count(*) AS n FROM tasks WHERE stage < 8').get() as { n: number }).n
  // runs started at submit have no job row: the restart finds them by their status (PROCESSING)
  const rowless = (peek.query("SELECT count(*) AS n FROM tasks t WHERE t.stage < 8 AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.dedupe_key = 'task:' || t.id)").get() as { n: number }).n
  expect(unfinished).toBeGreaterThan(0) // the kill really happened mid-pipeline
  // SQLite: runs started at submit without a row are resumed by status; PostgreSQL: every run has a
  // row (a replica's: src/jobs/runner.ts), which the replica takes back when it starts again
  expect(rowless > 0).toBe(peek.dialect === 'sqlite')
  peek.close()

  await s.start()
  for (let i = 0; i < 200; i++) {
    const list = (await s.get('/api/v1/tasks?limit=100')).body
    if (list.total === N && list.data.every((t: any) => t.status === 'COMPLETED' || t.status === 'FAILED')) break
    await Bun.sleep(50)
  }
  const db = await openTestDb(s.dataDir, { readonly: true })
  const tasks = db.query('SELECT id, status, stage, credits_charged AS c FROM tasks').all() as { id: string; status: string; stage: number; c: number }[]
  expect(tasks.length).toBe(N)
  for (const t of tasks) expect(t).toMatchObject({ status: 'COMPLETED', stage: 8, c: 1 })
  const debits = db.query("SELECT task_id, count(*) AS n FROM ledger_entries WHERE reason = 'task_debit' GROUP BY task_id").all() as { n: number }[]
  expect(debits.length).toBe(N)
  for (const d of debits) expect(d.n).toBe(1)
  expect((db.query("SELECT count(*) AS n FROM ledger_entries WHERE reason = 'task_refund'").get() as { n: number }).n).toBe(0)
  const bal = db.query('SELECT allocation_balance + purchased_balance AS b FROM credit_balances WHERE operator_id = (SELECT operator_id FROM tasks LIMIT 1)').get() as { b: number }
  expect(bal.b).toBe(100 - N)
  const sum = db.query('SELECT sum(delta) AS s FROM ledger_entries WHERE operator_id = (SELECT operator_id FROM tasks LIMIT 1)').get() as { s: number }
  expect(sum.s).toBe(bal.b) // the ledger adds up to the balance
  // each stage committed exactly once per task; the fingerprint chain counted every task once
  // (the timeline read as the server reads it, in any stored form: src/tasks/row-encoding.ts)
  const store = new TaskRepository(db.db)
  const doubled = tasks.flatMap((t) => {
    const done = (store.timeline(t.id) ?? []).filter((e) => e.status === 'done' || e.status === 'completed').map((e) => e.stage)
    return done.filter((stage, i) => done.indexOf(stage) !== i).map((stage) => ({ task: t.id, stage }))
  })
  expect(doubled).toEqual([])
  const a = db.query('SELECT total_tasks AS n FROM agents WHERE id = ?1').get(agent.agentId) as { n: number }
  expect(a.n).toBe(N)
  expect((db.query('SELECT count(DISTINCT attestation_uid) AS n FROM tasks').get() as { n: number }).n).toBe(N)
  // the agent's state-root chain has one link per task, each extending the one committed before it
  expect((db.query('SELECT count(DISTINCT state_root) AS n FROM tasks').get() as { n: number }).n).toBe(N)
  expect(expectUnbrokenChain(db, agent.agentId)).toBe(N)
  db.close()
  expect(providerCalls).toBeGreaterThanOrEqual(N / 2)
}, 60_000)

test('a task whose overflow job finished just before the process died resumes from the recorded outcome at start', async () => {
  // A provider that holds every call: the first task occupies the only slot, the second waits in
  // the overflow queue. The process dies; its job's outcome is then recorded as if the process had
  // died right after writing it and before resuming the task (the window between the two writes).
  const held = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Promise<Response>(() => {}) })
  try {
    const admin = (await s.post('/api/v1/auth/login', { login: 'admin', password: 'admin-password' })).body.accessToken
    const prov = await s.post('/api/v1/admin/providers', { name: 'held', kind: 'openai', baseUrl: `http://127.0.0.1:${held.port}/v1`, models: ['held-model'], keys: [{ key: 'sk-held', rpm: 100000, concurrency: 1 }] }, { token: admin })
    expect(prov.status).toBe(201)
    const agent = (await s.post('/api/v1/agents/register', { displayName: 'resume', capabilities: ['general'] }, { token: admin })).body
    const body = (i: number) => ({ agentId: agent.agentId, taskType: 'general', model: 'held-model', prompt: `Resume me ${i}.` })
    void s.post('/api/v1/tasks/submit?wait=0', body(1), { token: admin })
    let queued: any
    for (let i = 0; i < 100 && queued?.status !== 'QUEUED'; i++) {
      queued = (await s.post('/api/v1/tasks/submit?wait=5', body(2), { token: admin, headers: { 'idempotency-key': 'resume-2' } })).body
    }
    expect(queued.status).toBe('QUEUED')
    expect(await s.stop('SIGKILL')).not.toBe(0)
    const db = await openTestDb(s.dataDir)
    const result = { output: 'Recorded before the crash.', model: 'held-model', provider: 'held', usage: { promptTokens: 3, completionTokens: 4 }, latencyMs: 12 }
    expect(db.query("UPDATE compute_jobs SET status = 'completed', result = ?2, finished_at = ?3 WHERE id = ?1 AND status = 'queued'").run(queued.computeJobId, JSON.stringify(result), Date.now()).changes).toBe(1)
    db.close()
    await s.start()
    let t: any
    for (let i = 0; i < 100; i++) {
      t = (await s.get(`/api/v1/tasks/${queued.id}`, { token: admin })).body
      if (t.status === 'COMPLETED') break
      await Bun.sleep(50)
    }
    expect(t.status).toBe('COMPLETED')
    expect(t.output).toBe('Recorded before the crash.')
  } finally {
    held.stop(true)
  }
}, 30_000)
