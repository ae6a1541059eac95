// The server next to another writer on its data dir (a CLI command on a live server, decisions.md
// §11): every write transaction takes SQLite's write lock before its first read, so it waits for
// the other writer (busy timeout) instead of failing at once with SQLITE_BUSY when a read-started
// transaction tries to upgrade while the other one holds the lock.
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { holdWriteLock } from '../helpers/lock'
import { startServer, type TestServer } from '../helpers/server'

let s: TestServer
let op: { token: string; id: string; agent: any }

beforeAll(async () => {
  s = await startServer()
  await s.setupAdmin()
  op = await s.operatorWithAgent('lock-neighbour', ['sentiment_analysis'])
})
afterAll(async () => { await s.cleanup() })

test('tasks, keys, agents and the faucet written while another process holds the write lock all succeed once it commits', async () => {
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
