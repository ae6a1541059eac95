// PostgreSQL mode when the database goes away (issue 34; docs/scale-out.md, "Faults"): while it is
// unreachable, /readyz answers 503 and every request 503 DATABASE_UNAVAILABLE with Retry-After
// within 2 s, a burst of them included (none waits for the dead database in turn); once it is back
// the server serves again by itself, without a restart. Two ways to lose it: PostgreSQL stopped
// (connections refused at once), and a network that goes silent (a relay that stops passing bytes:
// only the deadlines end the wait). The server reaches PostgreSQL through that relay in both.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { expectProblem, startServer, until, type TestServer } from '../helpers/server'
import { startPostgres, TEST_POSTGRES, type Postgres } from '../helpers/postgres'
import { tcpProxy, type TcpProxy } from '../helpers/tcp-proxy'

// Its own cluster, which it stops and starts (skipped on the PostgreSQL run, where it already ran).
const pg: Postgres | null = TEST_POSTGRES ? null : await startPostgres()
let proxy: TcpProxy
let s: TestServer
let token = ''
let agent: { agentId: string; apiKey: string }

beforeAll(async () => {
  if (!pg) return
  proxy = tcpProxy(pg.port)
  s = await startServer({ TASKGATE_DATABASE_URL: `postgres://taskgate@127.0.0.1:${proxy.port}/postgres` })
  token = await s.setupAdmin()
  agent = (await s.post('/api/v1/agents/register', { displayName: 'faults', capabilities: ['sentiment_analysis'] }, { token })).body
})
afterAll(async () => { await s?.cleanup(); proxy?.close(); pg?.cleanup() })

const submit = () => s.post('/api/v1/tasks/submit?wait=10', { agentId: agent.agentId, taskType: 'sentiment_analysis', prompt: 'The database came back and all was well.' }, { key: agent.apiKey })

/** Every kind of request, each answered 503 DATABASE_UNAVAILABLE with Retry-After within 2 s; then 20 at once, all within 2.5 s. */
async function expectUnavailable(): Promise<void> {
  const timed = async <T>(f: () => Promise<T>) => { const t0 = performance.now(); const v = await f(); return { v, ms: performance.now() - t0 } }
  const ready = await timed(() => s.get('/readyz'))
  expect(ready.v.status).toBe(503)
  expect(ready.v.body.checks).toMatchObject({ db: 'unavailable', database: 'unreachable' })
  expect(ready.v.headers.get('retry-after')).toBe('2')
  expect(ready.ms).toBeLessThan(2000)
  for (const call of [
    () => submit(),
    () => s.post('/api/v1/operator/keys', { name: 'while-down' }, { token }),
    () => s.get('/api/v1/tasks?limit=5'),
    () => s.get('/api/v1/auth/me', { token }),
  ]) {
    const r = await timed(call)
    expectProblem(r.v, 503, 'DATABASE_UNAVAILABLE')
    expect(Number(r.v.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(r.ms).toBeLessThan(2000)
  }
  const burst = await timed(() => Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? submit() : s.get('/api/v1/auth/me', { token })))))
  for (const r of burst.v) expectProblem(r, 503, 'DATABASE_UNAVAILABLE')
  expect(burst.ms).toBeLessThan(2500)
}

async function expectServingAgain(): Promise<void> {
  await until(() => s.get('/readyz'), (r) => r.status === 200, 100, 100)
  const t = await submit()
  expect(t.status).toBe(200)
  expect(t.body.status).toBe('COMPLETED')
}

describe.skipIf(!pg)('PostgreSQL unreachable', () => {
  test('works before', async () => {
    expect((await submit()).body.status).toBe('COMPLETED')
  })

  test('PostgreSQL stopped: 503 DATABASE_UNAVAILABLE within 2 s; started again: served again without a restart', async () => {
    pg!.stop()
    await expectUnavailable()
    pg!.start()
    await expectServingAgain()
  }, 60_000)

  test('the network goes silent: no request hangs; it speaks again: served again', async () => {
    proxy.freeze()
    try { await expectUnavailable() } finally { proxy.thaw() }
    await expectServingAgain()
  }, 60_000)
})
