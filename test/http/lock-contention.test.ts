// The server next to another writer on its data dir (a CLI command on a live server;
// docs/foundation.md, "The database next to the CLI"): every write transaction takes SQLite's write
// lock before its first read, so it waits for the other writer (busy timeout) instead of failing at
// once with SQLITE_BUSY when a read-started transaction tries to upgrade while the other one holds
// the lock.
import { TEST_POSTGRES } from '../helpers/postgres'
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { holdWriteLock } from '../helpers/lock'
import { expectProblem, startServer, type TestServer } from '../helpers/server'

/** SQLite's write lock (PostgreSQL locks rows; its lock timeout: test/http/database-faults.test.ts): on SQLite only. */
const SQLITE_ONLY = TEST_POSTGRES !== null

let s: TestServer
let op: { token: string; id: string; agent: any }

beforeAll(async () => {
  s = await startServer()
  await s.setupAdmin()
  op = await s.operatorWithAgent('lock-neighbour', ['sentiment_analysis'])
})
afterAll(async () => { await s.cleanup() })

test.skipIf(SQLITE_ONLY)('tasks, keys, agents and the faucet written while another process holds the write lock all succeed once it commits', async () => {
  const holder = await holdWriteLock(s.dataDir, 700)
  const prompt = 'A fine and sunny day. Everything worked as planned.'
  const [tasks, key, agent, faucet] = await Promise.all([
    Promise.all(Array.from({ length: 4 }, () => s.post('/api/v1/tasks/submit?wait=30', { agentId: op.agent.agentId, taskType: 'sentiment_analysis', prompt }, { token: op.token }))),
    s.post('/api/v1/operator/keys', { name: 'during-lock' }, { token: op.token }),
    s.post('/api/v1/agents/register', { displayName: 'during-lock', capabilities: ['general'] }, { token: op.token }),
    s.post('/api/v1/faucet/usdc', { wallet: '0x' + '5a'.repeat(20), amount: 1 }, { token: op.token }),
  ])
  expect(await holder.committed).toBe(0)
  expect(tasks.map((r) => [r.status, r.body.status])).toEqual(Array(4).fill([200, 'COMPLETED']))
  expect(key.status).toBe(200)
  expect(agent.status).toBe(201)
  expect(faucet.status).toBe(200)
  expect(s.stderr).not.toContain('database is locked')
  const list = await s.get('/api/v1/tasks?limit=20', { token: op.token })
  expect(list.body.total).toBe(4)
})

test.skipIf(SQLITE_ONLY)('a write that waits longer than the busy timeout answers 503 DATABASE_BUSY with Retry-After and writes nothing', async () => {
  const before = (await s.get('/api/v1/tasks?limit=1', { token: op.token })).body.total
  const holder = await holdWriteLock(s.dataDir, 6500) // past the 5 s busy timeout
  const r = await s.post('/api/v1/tasks/submit?wait=30', { agentId: op.agent.agentId, taskType: 'sentiment_analysis', prompt: 'Refused while the database is locked.' }, { token: op.token })
  expectProblem(r, 503, 'DATABASE_BUSY')
  expect(r.headers.get('retry-after')).toBe('1')
  expect(await holder.committed).toBe(0)
  expect((await s.get('/api/v1/tasks?limit=1', { token: op.token })).body.total).toBe(before)
  const again = await s.post('/api/v1/tasks/submit?wait=30', { agentId: op.agent.agentId, taskType: 'sentiment_analysis', prompt: 'Accepted once the lock is gone.' }, { token: op.token })
  expect([again.status, again.body.status]).toEqual([200, 'COMPLETED'])
  expect(s.stderr + s.stdout).not.toContain('"code":"INTERNAL"')
}, 20_000)
