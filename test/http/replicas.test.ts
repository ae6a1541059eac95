// Two replicas of one PostgreSQL database (issue 34; docs/scale-out.md, "Replicas"), behind a
// round-robin relay on loopback, sharing one keys directory: tasks submitted through either with
// Idempotency-Keys while one replica is killed with -9 midway; what it was answering is sent again
// (to the survivor, by the same key). Then every admitted task ends COMPLETED exactly once, the
// ledger holds one debit per task and adds up to the balance, every receipt verifies against the
// shared signer, and the agent's state-root chain has one link per task — the jobs the dead replica
// held were claimed again once its lease (2 s here) ran out. The killed replica, started again on its
// data dir, serves again. And the limits count requests on both replicas together.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { startServer, tempDir, type TestServer } from '../helpers/server'
import { startPostgres, TEST_POSTGRES, type Postgres } from '../helpers/postgres'
import { checkReceipt } from '../helpers/receipts'
import { openTestDb } from '../helpers/data'
import { expectUnbrokenChain } from '../helpers/chain'
import { TaskRepository } from '../../src/tasks/repository'

// Its own cluster (skipped on the PostgreSQL run of the suite, where it already ran).
const pg: Postgres | null = TEST_POSTGRES ? null : await startPostgres()
const replicas: TestServer[] = []
let relay: ReturnType<typeof Bun.serve> | undefined
let env: Record<string, string> = {}
let token = ''
/** A slow model (an OpenAI-compatible server on loopback): tasks are in stage 3 when a replica dies. */
const slow = Bun.serve({
  port: 0, hostname: '127.0.0.1',
  async fetch(req) {
    const body = (await req.json()) as { model: string }
    await Bun.sleep(300)
    return Response.json({ id: 'c1', object: 'chat.completion', model: body.model, choices: [{ index: 0, message: { role: 'assistant', content: 'Slow but sure: the answer.' }, finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: 6, total_tokens: 11 } })
  },
})

/** Round-robin over the replicas that answer; a replica that refuses the connection is skipped. */
function startRelay(): ReturnType<typeof Bun.serve> {
  let next = 0
  return Bun.serve({
    hostname: '127.0.0.1', port: 0,
    async fetch(req) {
      const body = req.method === 'GET' ? undefined : await req.arrayBuffer()
      for (let i = 0; i < replicas.length; i++) {
        const r = replicas[next++ % replicas.length]!
        const url = new URL(req.url)
        try {
          return await fetch(`${r.url}${url.pathname}${url.search}`, { method: req.method, headers: req.headers, body, redirect: 'manual' })
        } catch { /* that replica is gone: the next one */ }
      }
      return new Response('no replica answers', { status: 502 })
    },
  })
}

beforeAll(async () => {
  if (!pg) return
  env = { TASKGATE_DATABASE_URL: pg.url, TASKGATE_KEYS_DIR: tempDir('taskgate-keys-'), TASKGATE_JOB_LEASE_SECONDS: '2' }
  const a = await startServer(env)
  replicas.push(a)
  token = await a.setupAdmin()
  // providers are read at start (a provider added later reaches the other replicas when they restart)
  const prov = await a.post('/api/v1/admin/providers', { name: 'slow', kind: 'openai', baseUrl: `http://127.0.0.1:${slow.port}/v1`, models: ['slow-model'], keys: [{ key: 'sk-slow', rpm: 100000, concurrency: 64 }] }, { token })
  expect(prov.status).toBe(201)
  replicas.push(await startServer(env))
  relay = startRelay()
})
afterAll(async () => { relay?.stop(true); for (const r of replicas) await r.cleanup(); slow.stop(true); pg?.cleanup() })

describe.skipIf(!pg)('two replicas on one database', () => {
  test('a replica killed with -9 under load: every task completes once, the ledger adds up, every receipt verifies', async () => {
    const [a, b] = replicas as [TestServer, TestServer]
    const base = `http://127.0.0.1:${relay!.port}`
    const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const r = await fetch(base + path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) })
      return { status: r.status, body: await r.json().catch(() => null) as any }
    }
    // both replicas sign with the one key of the shared keys directory
    const signers = await Promise.all([a, b].map(async (r) => (await r.get('/.well-known/taskgate-signers')).body.signers[0].address))
    expect(signers[0]).toBe(signers[1])
    const agent = (await call('POST', '/api/v1/agents/register', { displayName: 'replicated', capabilities: ['general'] })).body
    const N = 40
    const submit = (i: number) => call('POST', '/api/v1/tasks/submit?wait=0', {
      agentId: agent.agentId, taskType: 'general', model: 'slow-model', prompt: `Question ${i}: how do replicas share work?`,
    }, { 'idempotency-key': `replicated-${i}` })

    const first = await Promise.all(Array.from({ length: N / 2 }, (_, i) => submit(i)))
    expect(await b.stop('SIGKILL')).not.toBe(0) // midway, with tasks of both replicas in flight
    const second = await Promise.all(Array.from({ length: N / 2 }, (_, i) => submit(N / 2 + i)))
    // answers lost with the replica (or refused while it died) are sent again, by the same key
    const answers = [...first, ...second]
    for (let i = 0; i < N; i++) if (![200, 202].includes(answers[i]!.status)) answers[i] = await submit(i)
    for (const r of answers) expect([200, 202]).toContain(r.status)
    expect(new Set(answers.map((r) => r.body.id)).size).toBe(N)

    // the survivor finishes everything, the dead replica's jobs once its lease is over
    let list: any
    for (let i = 0; i < 300; i++) {
      list = (await call('GET', '/api/v1/operator/tasks?limit=100&taskType=general')).body
      if (list.total === N && list.data.every((t: any) => t.status === 'COMPLETED')) break
      await Bun.sleep(50)
    }
    expect({ total: list.total, statuses: [...new Set(list.data.map((t: any) => t.status))] }).toEqual({ total: N, statuses: ['COMPLETED'] })
    // the survivor took over what the dead replica was running
    expect(a.stdout).toContain('claiming again the jobs of a replica that stopped answering')

    const db = await openTestDb(a.dataDir, { url: pg!.url })
    try {
      const operatorId = (db.query('SELECT operator_id FROM agents WHERE id = ?1').get(agent.agentId) as { operator_id: string }).operator_id
      const debits = db.query("SELECT task_id, count(*) AS n FROM ledger_entries WHERE reason = 'task_debit' GROUP BY task_id").all() as { n: number }[]
      expect({ tasks: debits.length, doubled: debits.filter((d) => d.n !== 1).length }).toEqual({ tasks: N, doubled: 0 })
      const balance = db.query('SELECT allocation_balance + purchased_balance AS b FROM credit_balances WHERE operator_id = ?1').get(operatorId) as { b: number }
      const sum = db.query('SELECT sum(delta) AS s FROM ledger_entries WHERE operator_id = ?1').get(operatorId) as { s: number }
      expect({ balance: balance.b, ledger: sum.s }).toEqual({ balance: 100 - N, ledger: 100 - N })
      // each stage committed once per task (the timeline as the server reads it), one chain link each
      const store = new TaskRepository(db.db)
      for (const t of list.data) {
        const done = (store.timeline(t.id) ?? []).filter((e) => e.status === 'done' || e.status === 'completed').map((e) => e.stage)
        expect({ task: t.id, stages: done }).toEqual({ task: t.id, stages: [1, 2, 3, 4, 5, 6, 7, 8] })
      }
      expect(expectUnbrokenChain(db, agent.agentId)).toBe(N)
    } finally { db.close() }
    for (const t of list.data) {
      const r = await checkReceipt(a.url, t.receiptCid)
      expect({ task: t.id, valid: r.valid, listed: r.listed }).toEqual({ task: t.id, valid: true, listed: true })
    }

    // the killed replica starts again on its data dir (the same replica) and serves
    await b.start()
    expect((await b.get('/readyz')).status).toBe(200)
    expect((await b.get(`/api/v1/tasks/${answers[0]!.body.id}`, { token })).body.status).toBe('COMPLETED')
  }, 120_000)

  test('a key\'s rate limit, the plan\'s agent limit and the sign-in limit hold across replicas as on one box', async () => {
    const [a, b] = replicas as [TestServer, TestServer]
    const key = await a.createKey(token, 'five-a-minute', { rateLimitRpm: 5 })
    // alternately on each replica: 5 answered, then 429 on both (per process it would be 5 each)
    const statuses: number[] = []
    for (let i = 0; i < 8; i++) statuses.push((await (i % 2 ? b : a).get('/api/v1/whoami', { key: key.key })).status)
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429])
    // a count-then-insert limit (FREE: 3 active agents; one exists) raced from both replicas at once:
    // exactly the two that fit are registered (Transactor.lock; the race is narrow, so the lock itself
    // is shown by test/unit/pg-transactor.test.ts)
    const raced = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 ? b : a).post('/api/v1/agents/register', { displayName: `racer-${i}`, capabilities: ['general'] }, { token })))
    expect(raced.map((r) => r.status).sort()).toEqual([201, 201, 403, 403, 403, 403, 403, 403])
    // failed sign-ins of one login from one address: 10 per 15 minutes in all, whichever replica
    const tries: number[] = []
    for (let i = 0; i < 12; i++) tries.push((await (i % 2 ? b : a).post('/api/v1/auth/login', { login: 'admin', password: `wrong-${i}` })).status)
    expect(tries).toEqual([...Array(10).fill(401), 429, 429])
  }, 60_000)
})
