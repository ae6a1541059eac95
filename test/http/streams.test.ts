// Event streams over real HTTP (docs/foundation.md, "Event streams"):
//  - an open stream ends within 5 s once its API key is revoked, its bearer token logged out (or
//    expired), or its operator suspended;
//  - no stream is cut by the server's idle timeout, however long it stays quiet, and a submit that
//    waits longer than the idle timeout still gets its answer;
//  - the overflow queue is FIFO per operator and model: a saturated model holds up nothing else.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { FakeLLM, gate, type Gate } from '../helpers/fake-llm'
import { expectProblem, startServer, type TestServer } from '../helpers/server'

interface Ev { id: number; event: string; data: any; at: number }

/** Reads an SSE response in the background, recording each event with its arrival time. */
class Stream {
  text = ''
  events: Ev[] = []
  done = false
  error: unknown = null
  private ended: Promise<void>
  private reader: ReadableStreamDefaultReader<Uint8Array>

  static async open(url: string, headers: Record<string, string> = {}): Promise<Stream> {
    const res = await fetch(url, { headers })
    if (res.status !== 200) throw new Error(`stream ${url}: ${res.status} ${await res.text()}`)
    return new Stream(res)
  }

  constructor(public res: Response) {
    this.reader = res.body!.getReader()
    this.ended = this.pump()
  }

  private async pump(): Promise<void> {
    const dec = new TextDecoder()
    let buf = ''
    try {
      for (;;) {
        const { done, value } = await this.reader.read()
        if (done) break
        const chunk = dec.decode(value, { stream: true })
        this.text += chunk
        buf += chunk
        let i: number
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i)
          buf = buf.slice(i + 2)
          const ev: Partial<Ev> = {}
          for (const line of block.split('\n')) {
            if (line.startsWith('id: ')) ev.id = Number(line.slice(4))
            else if (line.startsWith('event: ')) ev.event = line.slice(7)
            else if (line.startsWith('data: ')) ev.data = JSON.parse(line.slice(6))
          }
          if (ev.event) this.events.push({ ...(ev as Ev), at: performance.now() })
        }
      }
    } catch (e) {
      this.error = e
    } finally {
      this.done = true
    }
  }

  /** Waits until the server ends the stream; returns how long that took (throws after `ms`). */
  async endsWithin(ms: number): Promise<number> {
    const t0 = performance.now()
    let timer: ReturnType<typeof setTimeout> | undefined
    const r = await Promise.race([this.ended.then(() => 'ended' as const), new Promise<'timeout'>((res) => { timer = setTimeout(() => res('timeout'), ms) })])
    clearTimeout(timer)
    if (r === 'timeout') throw new Error(`stream still open after ${ms} ms; got so far:\n${this.text.slice(-1500)}`)
    return performance.now() - t0
  }

  async waitForEvent(pred: (e: Ev) => boolean, ms = 5000): Promise<Ev> {
    const deadline = Date.now() + ms
    for (;;) {
      const hit = this.events.find(pred)
      if (hit) return hit
      if (this.done) throw new Error(`stream ended without the event; got:\n${this.text.slice(-1500)}`)
      if (Date.now() > deadline) throw new Error(`no matching event within ${ms} ms; got:\n${this.text.slice(-1500)}`)
      await Bun.sleep(10)
    }
  }

  cancel(): void { this.reader.cancel().catch(() => {}) }
}

const secret = (name: string) => `sk-streams-${name}-${crypto.randomUUID()}`

// ---------------------------------------------------------------------------------------------

describe('open streams end when their credential stops being valid', () => {
  const CHECK_MS = 200
  let s: TestServer
  let fake: FakeLLM
  let admin: string
  const HELD = secret('held')
  let held: Gate

  beforeAll(async () => {
    fake = await FakeLLM.start()
    s = await startServer({ TASKGATE_SSE_AUTH_CHECK_MS: String(CHECK_MS), TASKGATE_TEST_CLOCK: '1', TASKGATE_PROVIDER_TIMEOUT_MS: '60000' })
    admin = await s.setupAdmin()
    held = gate()
    fake.set(HELD, { content: 'released', gate: held })
    const p = await s.post('/api/v1/admin/providers', { name: 'held', kind: 'openai', baseUrl: fake.baseUrl, models: ['fake-held'], keys: [{ key: HELD, concurrency: 64, rpm: 100_000 }] }, { token: admin })
    expect(p.status).toBe(201)
  }, 30_000)
  afterAll(async () => {
    held?.release()
    await s?.cleanup()
    fake?.stop()
  })

  /** An operator with an agent, and a task plus a compute job that stay open (the provider holds them). */
  async function openWork(login: string, auth: { key?: string; token?: string }, token: string) {
    const agent = (await s.post('/api/v1/agents/register', { displayName: `${login} bot`, capabilities: ['general'] }, { token })).body
    const task = await s.post('/api/v1/tasks/submit?wait=0', { agentId: agent.agentId, taskType: 'general', prompt: 'Hold this task open.', model: 'fake-held' }, auth)
    expect(task.status).toBe(202)
    const job = await s.post('/api/v1/compute', { model: 'fake-held', prompt: 'Hold this job open.' }, auth)
    expect(job.status).toBe(202)
    await fake.waitForRequest((r) => r.body?.messages?.[0]?.content === 'Hold this job open.' && r.key === HELD)
    return { agent, taskId: task.body.id as string, jobId: job.body.jobId as string }
  }

  /** Opens both streams and checks they are live and stay open while the credential holds. */
  async function openStreams(w: { taskId: string; jobId: string }, taskUrl: string, jobUrl: string, headers: Record<string, string>) {
    const taskStream = await Stream.open(s.url + taskUrl, headers)
    const jobStream = await Stream.open(s.url + jobUrl, headers)
    await taskStream.waitForEvent((e) => e.data.name === 'debit')
    await jobStream.waitForEvent((e) => e.event === 'running')
    await Bun.sleep(CHECK_MS * 4) // several re-checks pass while the credential is fine
    expect(taskStream.done).toBe(false)
    expect(jobStream.done).toBe(false)
    return [taskStream, jobStream]
  }

  test('revoking the API key ends the streams opened with it within 5 s', async () => {
    const token = await s.signup('stream-revoke')
    const k = await s.createKey(token, 'streaming key')
    const w = await openWork('stream-revoke', { key: k.key }, token)
    const streams = await openStreams(w, `/api/v1/tasks/${w.taskId}/events`, `/api/v1/compute/${w.jobId}/status`, { 'x-api-key': k.key })

    expect((await s.del(`/api/v1/operator/keys/${k.id}`, { token })).status).toBe(200)
    for (const st of streams) {
      expect(await st.endsWithin(5000)).toBeLessThan(5000)
      expect(st.error).toBeNull() // ended by the server, cleanly
      expect(st.text).not.toContain('event: completed')
    }
    expectProblem(await s.get(`/api/v1/tasks/${w.taskId}/events`, { key: k.key }), 401, 'INVALID_API_KEY')
  }, 20_000)

  test('logging out ends the streams opened with the bearer token (header and ?access_token=) within 5 s', async () => {
    const token = await s.signup('stream-logout')
    const w = await openWork('stream-logout', { token }, token)
    const [viaHeader1, viaHeader2] = await openStreams(w, `/api/v1/tasks/${w.taskId}/events`, `/api/v1/compute/${w.jobId}/status`, { authorization: `Bearer ${token}` })
    const [viaQuery1, viaQuery2] = await openStreams(w, `/api/v1/tasks/${w.taskId}/events?access_token=${token}`, `/api/v1/compute/${w.jobId}/status?access_token=${token}`, {})

    expect((await s.post('/api/v1/auth/logout', undefined, { token })).status).toBe(200)
    for (const st of [viaHeader1!, viaHeader2!, viaQuery1!, viaQuery2!]) {
      expect(await st.endsWithin(5000)).toBeLessThan(5000)
      expect(st.error).toBeNull()
    }
    expectProblem(await s.get(`/api/v1/compute/${w.jobId}/status?access_token=${token}`), 401, 'INVALID_TOKEN')
  }, 20_000)

  test('suspending the operator ends its key and token streams within 5 s; an agent key stream too', async () => {
    const token = await s.signup('stream-suspend')
    const id = (await s.get('/api/v1/auth/me', { token })).body.id as string
    const k = await s.createKey(token, 'key of a soon suspended operator')
    const w = await openWork('stream-suspend', { key: k.key }, token)
    const byKey = await openStreams(w, `/api/v1/tasks/${w.taskId}/events`, `/api/v1/compute/${w.jobId}/status`, { 'x-api-key': k.key })
    const byToken = await openStreams(w, `/api/v1/tasks/${w.taskId}/events`, `/api/v1/compute/${w.jobId}/status`, { authorization: `Bearer ${token}` })
    const byAgentKey = await Stream.open(`${s.url}/api/v1/tasks/${w.taskId}/events`, { 'x-api-key': w.agent.apiKey })
    await byAgentKey.waitForEvent((e) => e.data.name === 'debit')

    const r = await s.patch(`/api/v1/admin/operators/${id}`, { status: 'SUSPENDED' }, { token: admin })
    expect(r.status).toBe(200)
    for (const st of [...byKey, ...byToken, byAgentKey]) {
      expect(await st.endsWithin(5000)).toBeLessThan(5000)
      expect(st.error).toBeNull()
    }
    expectProblem(await s.get(`/api/v1/tasks/${w.taskId}/events`, { token }), 403, 'OPERATOR_SUSPENDED')
  }, 20_000)

  test('a stream keeps following while its credential holds, and ends with its task', async () => {
    const token = await s.signup('stream-normal')
    const w = await openWork('stream-normal', { token }, token)
    const [taskStream, jobStream] = await openStreams(w, `/api/v1/tasks/${w.taskId}/events`, `/api/v1/compute/${w.jobId}/status`, { authorization: `Bearer ${token}` })
    held.release()
    await jobStream!.endsWithin(5000)
    expect(jobStream!.events.at(-1)).toMatchObject({ event: 'completed' })
    await taskStream!.endsWithin(10_000)
    expect(taskStream!.events.at(-1)!.data).toMatchObject({ name: 'receipt', status: 'completed' })
    // the events published live (stages 4–8 commit together) carry the ids the timeline stored
    const stored = (await s.get(`/api/v1/tasks/${w.taskId}`, { token })).body.timeline as { id: number; name: string; status: string }[]
    expect(taskStream!.events.map((e) => [e.id, e.data.name, e.data.status])).toEqual(stored.map((e) => [e.id, e.name, e.status]))
    held = gate()
    fake.set(HELD, { content: 'released', gate: held })
  }, 20_000)

  // Last in this block: it moves the service clock past every token's lifetime. Compute jobs only:
  // advancing the clock waits for the scheduler, which a held task would block.
  test('a bearer token that expires while its stream is open ends the stream within 5 s', async () => {
    for (let i = 0; i < 250 && (await s.get('/api/v1/tasks?status=PROCESSING')).body.total > 0; i++) await Bun.sleep(20)
    const token = await s.signup('stream-expiry')
    const job = await s.post('/api/v1/compute', { model: 'fake-held', prompt: 'Outlive my token.' }, { token })
    expect(job.status).toBe(202)
    const streams = [
      await Stream.open(`${s.url}${job.body.statusUrl}`, { authorization: `Bearer ${token}` }),
      await Stream.open(`${s.url}${job.body.statusUrl}?access_token=${token}`),
    ]
    for (const st of streams) await st.waitForEvent((e) => e.event === 'running')
    await Bun.sleep(CHECK_MS * 4)
    for (const st of streams) expect(st.done).toBe(false)
    expect((await s.post('/api/v1/admin/clock/advance', { ms: 13 * 3600_000 }, { token: admin })).status).toBe(200)
    for (const st of streams) {
      expect(await st.endsWithin(5000)).toBeLessThan(5000)
      expect(st.error).toBeNull()
    }
  }, 20_000)
})

// ---------------------------------------------------------------------------------------------

describe('the idle timeout never cuts a stream or a long wait', () => {
  // Bun (uSockets) sweeps idle sockets on a 4 s tick, so a 1 s idle timeout cuts a quiet connection
  // somewhere between 1 and 5 s: the quiet stretch must be longer than that to be sure to catch it.
  const SLOW_MS = 5600
  let s: TestServer
  let fake: FakeLLM
  let op: string
  let agent: { agentId: string; apiKey: string }

  beforeAll(async () => {
    fake = await FakeLLM.start()
    // Bun closes a connection idle for 1 s; pings would only come after 60 s.
    s = await startServer({ TASKGATE_IDLE_TIMEOUT_SECONDS: '1', TASKGATE_SSE_PING_MS: '60000' })
    const admin = await s.setupAdmin()
    const SLOW = secret('slow')
    fake.set(SLOW, { content: 'worth the wait', delayMs: SLOW_MS })
    const p = await s.post('/api/v1/admin/providers', { name: 'slow', kind: 'openai', baseUrl: fake.baseUrl, models: ['fake-slow'], keys: [{ key: SLOW, concurrency: 16, rpm: 100_000 }] }, { token: admin })
    expect(p.status).toBe(201)
    op = await s.signup('idle-op')
    agent = (await s.post('/api/v1/agents/register', { displayName: 'Patient Bot', capabilities: ['general'] }, { token: op })).body
  }, 30_000)
  afterAll(async () => {
    await s?.cleanup()
    fake?.stop()
  })

  /** The longest silence between two consecutive events of a stream. */
  const longestGap = (evs: Ev[]) => Math.max(...evs.slice(1).map((e, i) => e.at - evs[i]!.at))

  test('a task event stream quiet for 5.6 s still delivers its next events and ends normally', async () => {
    const t = await s.post('/api/v1/tasks/submit?wait=0', { agentId: agent.agentId, taskType: 'general', prompt: 'Take your time.', model: 'fake-slow' }, { key: agent.apiKey })
    expect(t.status).toBe(202)
    const st = await Stream.open(`${s.url}/api/v1/tasks/${t.body.id}/events`, { 'x-api-key': agent.apiKey })
    await st.endsWithin(15_000)
    expect(st.error).toBeNull()
    expect(st.events.at(-1)!.data).toMatchObject({ name: 'receipt', status: 'completed' })
    expect(st.events.some((e) => e.data.name === 'compute' && e.data.status === 'done')).toBe(true)
    expect(longestGap(st.events)).toBeGreaterThan(5000) // the quiet stretch, well past the 1 s idle timeout
    expect(st.text).not.toContain(': ping')
  }, 20_000)

  test('a compute status stream quiet for 5.6 s still delivers `completed`', async () => {
    const j = await s.post('/api/v1/compute', { model: 'fake-slow', prompt: 'Slow job.' }, { token: op })
    expect(j.status).toBe(202)
    const st = await Stream.open(`${s.url}${j.body.statusUrl}?access_token=${op}`)
    await st.endsWithin(15_000)
    expect(st.error).toBeNull()
    expect(st.events.map((e) => e.event)).toEqual(['queued', 'running', 'completed'])
    expect(st.events[2]!.data.result.output).toBe('worth the wait')
    expect(st.events[2]!.at - st.events[1]!.at).toBeGreaterThan(5000)
  }, 20_000)

  test('submit with ?wait= whose compute outlasts the idle timeout still answers 200 with the result', async () => {
    const t0 = performance.now()
    const r = await s.post('/api/v1/tasks/submit?wait=20', { agentId: agent.agentId, taskType: 'general', prompt: 'Wait for me.', model: 'fake-slow' }, { token: op })
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ status: 'COMPLETED', output: 'worth the wait' })
    expect(performance.now() - t0).toBeGreaterThan(5000)
  }, 20_000)

  test('an ordinary idle connection is still closed by the idle timeout', async () => {
    // A request that never finishes sending its body: the server must not keep it forever.
    const { connect } = await import('node:net')
    const url = new URL(s.url)
    const closedAfter = await new Promise<number>((resolve, reject) => {
      const t0 = performance.now()
      const sock = connect(Number(url.port), url.hostname, () => {
        sock.write(`POST /api/v1/auth/login HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{`)
      })
      sock.on('close', () => resolve(performance.now() - t0))
      sock.on('error', () => {})
      setTimeout(() => { sock.destroy(); reject(new Error('idle connection was not closed within 10 s')) }, 10_000)
    })
    expect(closedAfter).toBeLessThan(8000)
  }, 20_000)
})

// ---------------------------------------------------------------------------------------------

describe('overflow queue: FIFO per operator and model', () => {
  let s: TestServer
  let fake: FakeLLM
  let op: string
  const NARROW = secret('narrow')

  beforeAll(async () => {
    fake = await FakeLLM.start()
    s = await startServer({ TASKGATE_PROVIDER_TIMEOUT_MS: '60000' })
    const admin = await s.setupAdmin()
    const p = await s.post('/api/v1/admin/providers', { name: 'narrow', kind: 'openai', baseUrl: fake.baseUrl, models: ['fake-narrow'], keys: [{ key: NARROW, concurrency: 1 }] }, { token: admin })
    expect(p.status).toBe(201)
    op = await s.signup('hol-op')
  }, 30_000)
  afterAll(async () => {
    await s?.cleanup()
    fake?.stop()
  }, 20_000)

  test('a job for a saturated model does not hold up the same operator\'s job for another model', async () => {
    const g = gate()
    fake.set(NARROW, { content: 'narrow done', gate: g })
    try {
      const first = await s.post('/api/v1/compute', { model: 'fake-narrow', prompt: 'Occupy the only slot.' }, { token: op })
      expect(first.status).toBe(202)
      await fake.waitForRequest((r) => r.key === NARROW)
      const second = await s.post('/api/v1/compute', { model: 'fake-narrow', prompt: 'Wait for the slot.' }, { token: op })
      expect(second.status).toBe(202)
      const waiting = await Stream.open(`${s.url}${second.body.statusUrl}`, { authorization: `Bearer ${op}` })
      await waiting.waitForEvent((e) => e.event === 'queued')

      // Same operator, another model: runs at once, not behind the queued fake-narrow job.
      const t0 = performance.now()
      const builtin = await s.post('/api/v1/compute', { model: 'builtin', prompt: 'Summarize this sentence, please. It is short.' }, { token: op })
      expect(builtin.status).toBe(202)
      expect(builtin.body.position).toBe(1) // nothing ahead of it for its model
      const st = await Stream.open(`${s.url}${builtin.body.statusUrl}`, { authorization: `Bearer ${op}` })
      await st.endsWithin(3000)
      expect(st.events.at(-1)).toMatchObject({ event: 'completed', data: { result: { provider: 'builtin' } } })
      expect(performance.now() - t0).toBeLessThan(3000)
      expect(waiting.events.map((e) => e.event)).toEqual(['queued']) // still waiting for its own model

      g.release()
      await waiting.endsWithin(5000)
      expect(waiting.events.map((e) => e.event)).toEqual(['queued', 'running', 'completed'])
    } finally {
      g.release()
    }
  }, 20_000)
})
