// A full disk (docs/security.md, "A full disk"), for real: the data dir is a small tmpfs the test
// mounts and fills with a filler file. Writes answer 507 problem+json STORAGE_FULL; reads, /healthz
// and sign-in keep answering; /readyz answers 503 with storage "full"; the work in flight (a task
// whose stage commit hit the full disk, a compute job whose result could not be recorded, a job
// waiting in the overflow queue) completes once space is back, without a restart, each task once
// with one debit; the process never exits; and the server starts on a full disk (after a stop on
// the full disk, and after a clean stop) and says so in its log.
import { TEST_POSTGRES } from '../helpers/postgres'
import { Database } from 'bun:sqlite'
import { afterAll, beforeAll, expect, test } from 'bun:test'
import { mkdirSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { FakeLLM, gate } from '../helpers/fake-llm'
import { expectProblem, TestServer } from '../helpers/server'
import { fillDisk as fill, mountTmpfs, type Tmpfs } from '../helpers/tmpfs'

/** The data dir's disk (PostgreSQL's disk is its server's): on SQLite only. */
const SQLITE_ONLY = TEST_POSTGRES !== null

let fs: Tmpfs
let s: TestServer | undefined
let fake: FakeLLM | undefined

beforeAll(async () => {
  fs = mountTmpfs(24, 'taskgate-diskfull-')
  if (fs.mounted) fake = await FakeLLM.start()
})

afterAll(async () => {
  if (process.env.DISKFULL_DEBUG && s) console.log(`--- server stdout ---\n${s.stdout.slice(-6000)}\n--- server stderr ---\n${s.stderr.slice(-4000)}`)
  await s?.stop('SIGKILL')
  fake?.stop()
  fs.unmount()
})

const dataDir = () => join(fs.dir, 'data')
const filler = (n: number) => join(fs.dir, `filler-${n}`)

async function until<T>(what: string, f: () => Promise<T | null | undefined | false>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms
  const exited = async () => {
    if (s) await Promise.race([s.proc.exited, Bun.sleep(200)])
    return s?.proc.exitCode != null ? new Error(`the server exited (code ${s.proc.exitCode}) while waiting for ${what}\n${s.stderr.slice(-2000)}`) : null
  }
  for (;;) {
    let v: T | null | undefined | false
    try { v = await f() } catch (e) { throw (await exited()) ?? e }
    if (v) return v
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(25)
  }
}

const alive = () => { expect(s!.proc.exitCode).toBeNull() }

const PROMPT = 'Summarise why an appliance must ride out a full disk.'

test.skipIf(SQLITE_ONLY)('full disk: 507 on writes, reads and sign-in keep working, in-flight work resumes, and a restart on a full disk works', async () => {
  if (!fs.mounted) { console.warn(`disk-full test skipped: ${fs.skipReason}`); return }
  // No background checkpoints: they let SQLite reuse the write-ahead log's space, so small writes
  // could still succeed on a full disk and the 507 path under test would depend on timing.
  const env = { TASKGATE_STORAGE_PROBE_MS: '100', TASKGATE_PROVIDER_TIMEOUT_MS: '10000', TASKGATE_CHECKPOINT_INTERVAL_MS: '0' }
  s = new TestServer(dataDir(), env)
  mkdirSync(dataDir())
  await s.start()
  const admin = await s.setupAdmin('admin', 'admin-password')
  const op = await s.signup('diskfull-op', 'operator-password')
  // Model "pool-model": one key, one call at a time (the rest waits in the overflow queue);
  // model "direct-model": its own key. The fake provider holds the calls the test gates.
  const g1 = gate(), g2 = gate(), g3 = gate()
  fake!.set('sk-pool', {}).next('sk-pool', { gate: g1 }, { gate: g2 })
  fake!.set('sk-direct', {}).next('sk-direct', { gate: g3 })
  for (const [name, model, key] of [['pool', 'pool-model', 'sk-pool'], ['direct', 'direct-model', 'sk-direct']] as const) {
    const r = await s.post('/api/v1/admin/providers', { name, kind: 'openai', baseUrl: fake!.baseUrl, models: [model], keys: [{ key, rpm: 1000, concurrency: 1 }] }, { token: admin })
    expect(r.status).toBe(201)
  }
  const agent = (await s.post('/api/v1/agents/register', { displayName: 'Disk Bot', capabilities: ['general'] }, { token: op })).body
  expect(agent.apiKey).toBeString()
  const balance0 = (await s.get('/api/v1/operator/billing', { token: op })).body.balance.balance as number
  const submit = async (model: string) => {
    const r = await s!.post('/api/v1/tasks/submit?wait=0', { agentId: agent.agentId, taskType: 'general', model, prompt: PROMPT }, { key: agent.apiKey })
    expect(r.status).toBe(202)
    return r.body.id as string
  }
  const poolCalls = () => fake!.requestsFor('sk-pool').length

  // Work in flight when the disk fills:
  //  A takes the pool's key (held by g1); B waits in the overflow queue; A finishes, so B runs
  //  from the overflow queue (held by g2); C then waits in the overflow queue behind B;
  //  D is in its pipeline job's compute stage on the other model (held by g3).
  const a = await submit('pool-model')
  await until('A to call the provider', async () => poolCalls() === 1)
  const b = await submit('pool-model')
  await until('B to wait in the overflow queue', async () => (await s!.get(`/api/v1/tasks/${b}`, { token: op })).body.status === 'QUEUED')
  g1.release()
  await until('A to complete', async () => (await s!.get(`/api/v1/tasks/${a}`, { token: op })).body.status === 'COMPLETED')
  await until('B to run from the overflow queue', async () => poolCalls() === 2)
  const c = await submit('pool-model')
  await until('C to wait in the overflow queue', async () => (await s!.get(`/api/v1/tasks/${c}`, { token: op })).body.status === 'QUEUED')
  const d = await submit('direct-model')
  await until('D to call the provider', async () => fake!.requestsFor('sk-direct').length === 1)

  expect(fill(filler(1))).toBeGreaterThan(0)
  g2.release() // B's result: recording it hits the full disk (the overflow queue keeps it in memory)
  g3.release() // D's result: committing its compute stage hits the full disk (its job waits)

  // The failed background writes flip the service to "storage full"; the process stays up.
  const ready = await until('/readyz to report storage full', async () => {
    const r = await s!.get('/readyz')
    return r.status === 503 && r.body.checks?.storage === 'full' ? r : null
  })
  expect(ready.body).toEqual({ status: 'not ready', checks: { db: 'ok', database: 'ok', storage: 'full', jobs: 'ok', ipfs: 'ok' } })
  await until('both held calls to be answered', async () => fake!.requests.filter((r) => r.answeredWith === 200).length === 3)
  alive()

  // Writes: 507 problem+json STORAGE_FULL with Retry-After; nothing is charged.
  const w1 = await s.post('/api/v1/operator/keys', { name: 'while-full' }, { token: op })
  expectProblem(w1, 507, 'STORAGE_FULL')
  expect(w1.headers.get('retry-after')).toBeTruthy()
  expectProblem(await s.post('/api/v1/tasks/submit?wait=0', { agentId: agent.agentId, taskType: 'general', model: 'builtin', prompt: PROMPT }, { key: agent.apiKey }), 507, 'STORAGE_FULL')
  // Reads, liveness and sign-in keep answering.
  expect((await s.get('/healthz')).status).toBe(200)
  for (const id of [b, c]) expect((await s.get(`/api/v1/tasks/${id}`, { token: op })).body.status).toBe('QUEUED')
  expect((await s.get(`/api/v1/tasks/${d}`, { key: agent.apiKey })).body.status).toBe('PROCESSING')
  expect((await s.get('/api/v1/operator/keys', { token: op })).status).toBe(200)
  expect((await s.get('/api/v1/operator/billing', { token: op })).body.balance.balance).toBe(balance0 - 4)
  const login = await s.post('/api/v1/auth/login', { login: 'diskfull-op', password: 'operator-password' })
  expect(login.status).toBe(200)
  expect((await s.get('/api/v1/agents', { token: login.body.accessToken })).status).toBe(200)
  await Bun.sleep(300) // the job runner, the overflow queue and the probe go round a few times on the full disk
  alive()

  // Space comes back: /readyz turns ready and every task finishes, without a restart.
  rmSync(filler(1))
  const t0 = performance.now()
  await until('/readyz to turn ready', async () => (await s!.get('/readyz')).status === 200)
  const recoveredMs = performance.now() - t0
  for (const id of [b, c, d]) {
    const done = await until(`task ${id} to finish`, async () => {
      const r = await s!.get(`/api/v1/tasks/${id}`, { token: op })
      return r.body.status === 'COMPLETED' || r.body.status === 'FAILED' ? r.body : null
    }, 15_000)
    expect(done.status).toBe('COMPLETED')
    expect(done.output).toBe('fake completion')
  }
  const finishedMs = performance.now() - t0
  // B's result was kept, not asked for again; C ran once; D's compute stage ran again (its result was not committed).
  expect(poolCalls()).toBe(3)
  expect(fake!.requestsFor('sk-direct').length).toBe(2)
  expect((await s.get('/api/v1/operator/billing', { token: op })).body.balance.balance).toBe(balance0 - 4)
  expect((await s.post('/api/v1/operator/keys', { name: 'after-full' }, { token: op })).status).toBe(200)
  alive()
  console.log(`storage available ${Math.round(recoveredMs)} ms after the filler was removed; every task done after ${Math.round(finishedMs)} ms`)

  // Stop on a full disk (the final checkpoint cannot grow the database file, so -wal and -shm
  // stay), top the disk up again, and start on the full disk.
  fill(filler(2))
  expect(await s.stop('SIGTERM')).toBe(0)
  if (process.env.DISKFULL_DEBUG) console.log(`--- first run ---\n${s.stdout}\n${s.stderr}`)
  fill(filler(3))
  await s.start()
  const log = s.stdout + s.stderr
  expect(log).toMatch(/storage is full/i)
  expect((await s.get('/healthz')).status).toBe(200)
  expect((await s.get(`/api/v1/tasks/${d}`, { token: op })).body.status).toBe('COMPLETED')
  expect((await s.post('/api/v1/auth/login', { login: 'diskfull-op', password: 'operator-password' })).status).toBe(200)
  const notReady = await s.get('/readyz')
  expect(notReady.status).toBe(503)
  expect(notReady.body.checks.storage).toBe('full')
  expectProblem(await s.post('/api/v1/operator/keys', { name: 'full-again' }, { token: op }), 507, 'STORAGE_FULL')
  alive()

  // Space back once more: the deferred start-up work runs and the server is ready.
  rmSync(filler(2)); rmSync(filler(3))
  await until('/readyz to turn ready after the restart', async () => (await s!.get('/readyz')).status === 200)
  expect((await s.post('/api/v1/operator/keys', { name: 'after-restart' }, { token: op })).status).toBe(200)

  // A clean stop with room on the disk removes SQLite's -wal and -shm files; the disk then fills
  // while the server is down. Reading a WAL database needs its -shm file back (SQLite writes one
  // byte per 4 KiB page of it): the server's reserve file is what makes room for that.
  expect(await s.stop('SIGTERM')).toBe(0)
  expect(readdirSync(dataDir()).filter((f) => f.endsWith('-shm') || f.endsWith('-wal'))).toEqual([])
  fill(filler(4))
  await s.start()
  expect(s.stdout + s.stderr).toMatch(/storage is full/i)
  expect((await s.get(`/api/v1/tasks/${d}`, { token: op })).body.status).toBe('COMPLETED')
  expect((await s.get('/api/v1/operator/keys', { token: op })).status).toBe(200)
  expect((await s.get('/readyz')).body.checks.storage).toBe('full')
  expectProblem(await s.post('/api/v1/operator/keys', { name: 'full-after-clean-stop' }, { token: op }), 507, 'STORAGE_FULL')
  rmSync(filler(4))
  await until('/readyz to turn ready after the clean restart', async () => (await s!.get('/readyz')).status === 200)
  expect(await s.stop('SIGTERM')).toBe(0)

  // Each task: one debit, no refund, each stage committed once, its job done.
  const db = new Database(join(dataDir(), 'taskgate.db'), { readonly: true })
  try {
    for (const id of [a, b, c, d]) {
      const n = (sql: string) => (db.query(sql).get(id) as { n: number }).n
      expect(n("SELECT count(*) AS n FROM ledger_entries WHERE task_id = ?1 AND reason = 'task_debit'")).toBe(1)
      expect(n("SELECT count(*) AS n FROM ledger_entries WHERE task_id = ?1 AND reason = 'task_refund'")).toBe(0)
      const done = "FROM tasks t, json_each(t.timeline) e WHERE t.id = ?1 AND coalesce(json_extract(e.value, '$.status'), json_extract(e.value, '$[1]')) IN ('done', 'completed')"
      const stage = "coalesce(json_extract(e.value, '$.stage'), json_extract(e.value, '$[0]'))" // an event is an object or an array (src/tasks/row-encoding.ts)
      expect(n(`SELECT count(*) AS n FROM (SELECT ${stage} AS s ${done} GROUP BY s HAVING count(*) > 1)`)).toBe(0)
      expect(n(`SELECT count(DISTINCT ${stage}) AS n ${done}`)).toBe(8)
    }
    expect((db.query("SELECT count(*) AS n FROM jobs WHERE kind = 'task.run' AND status != 'done'").get() as { n: number }).n).toBe(0)
    expect((db.query("SELECT count(*) AS n FROM compute_jobs WHERE status != 'completed'").get() as { n: number }).n).toBe(0)
  } finally { db.close() }
}, 60_000)
