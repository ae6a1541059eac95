// Starts the real server as a child process on a random loopback port with a temp data dir.
// Set TASKGATE_TEST_BIN=dist/taskgate to run the suite against the compiled binary.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import type { Subprocess } from 'bun'
import { databaseFor, dropDatabaseFor, TEST_POSTGRES } from './postgres'
import { callerFile, CONTRACT_MODE, contractFor, countChecked, printNewMismatches, recordDocProblems, recordMismatches, STRICT, type Contract } from './contract'

export const ROOT = resolve(import.meta.dir, '../..')
const BIN = process.env.TASKGATE_TEST_BIN ? resolve(ROOT, process.env.TASKGATE_TEST_BIN) : null

export function cliCommand(args: string[]): string[] {
  return BIN ? [BIN, ...args] : [process.execPath, 'run', join(ROOT, 'src/main.ts'), ...args]
}

/** Runs a CLI command to completion. */
export async function cli(args: string[], env: Record<string, string> = {}) {
  const dataDir = args[args.indexOf('--data-dir') + 1]
  const database = TEST_POSTGRES && args.includes('--data-dir') && dataDir && !env.TASKGATE_DATABASE_URL ? { TASKGATE_DATABASE_URL: await databaseFor(dataDir) } : {}
  const p = Bun.spawn(cliCommand(args), { env: { ...process.env, ...database, ...env }, stdout: 'pipe', stderr: 'pipe' })
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited])
  return { stdout, stderr, code }
}

export interface Res<T = any> { status: number; headers: Headers; body: T; text: string }

export interface ReqOptions { token?: string; key?: string; body?: unknown; raw?: BodyInit; headers?: Record<string, string>; signal?: AbortSignal }

export class TestServer {
  url = ''
  port = 0
  proc!: Subprocess<'ignore', 'pipe', 'pipe'>
  private out = ''
  private err = ''
  private contractP: Promise<Contract | null> | null = null

  constructor(public dataDir: string, public env: Record<string, string>) {}

  get stdout(): string { return this.out }
  get stderr(): string { return this.err }

  /** Setup token printed on the console at start (null when an operator exists). */
  setupToken(): string | null {
    const m = [...this.err.matchAll(/setup\?token=([A-Za-z0-9]+)/g)]
    return m.length ? m[m.length - 1]![1]! : null
  }

  async start(): Promise<this> {
    this.out = ''
    this.err = ''
    this.contractP = null
    // On the PostgreSQL run (TASKGATE_TEST_POSTGRES), the data dir's own database.
    const database = TEST_POSTGRES && !this.env.TASKGATE_DATABASE_URL ? { TASKGATE_DATABASE_URL: await databaseFor(this.dataDir) } : {}
    this.proc = Bun.spawn(cliCommand(['serve', '--port', '0', '--host', '127.0.0.1', '--data-dir', this.dataDir]), {
      // Every test client shares 127.0.0.1, so the per-address sign-up limit would end most suites
      // early; it has its own test (login-abuse), which asks for the real default.
      env: { ...process.env, TASKGATE_LOG_LEVEL: 'info', TASKGATE_SIGNUPS_PER_ADDRESS_PER_HOUR: '1000', ...database, ...this.env },
      stdin: 'ignore', stdout: 'pipe', stderr: 'pipe',
    }) as Subprocess<'ignore', 'pipe', 'pipe'>
    const pump = async (stream: ReadableStream<Uint8Array>, into: 'out' | 'err') => {
      const dec = new TextDecoder()
      const reader = stream.getReader()
      for (let r = await reader.read(); !r.done; r = await reader.read()) this[into] += dec.decode(r.value, { stream: true })
    }
    void pump(this.proc.stdout, 'out')
    void pump(this.proc.stderr, 'err')
    const deadline = Date.now() + 20_000
    while (Date.now() < deadline) {
      const m = this.out.match(/"port":(\d+)[^\n]*"msg":"listening"/)
      if (m) {
        this.port = Number(m[1])
        this.url = `http://127.0.0.1:${this.port}`
        // the setup banner is written right after the listening line
        await Bun.sleep(20)
        return this
      }
      if (this.proc.exitCode !== null) throw new Error(`server exited with ${this.proc.exitCode}\n${this.out}\n${this.err}`)
      await Bun.sleep(10)
    }
    throw new Error(`server did not start\n${this.out}\n${this.err}`)
  }

  async stop(signal: NodeJS.Signals | number = 'SIGTERM'): Promise<number | null> {
    if (this.proc && this.proc.exitCode === null) {
      this.proc.kill(signal)
      await this.proc.exited
    }
    printNewMismatches()
    return this.proc?.exitCode ?? null
  }

  async restart(): Promise<this> { await this.stop(); return this.start() }

  async cleanup(): Promise<void> {
    await this.stop()
    await dropDatabaseFor(this.dataDir)
    rmSync(this.dataDir, { recursive: true, force: true })
  }

  /**
   * The server's own /openapi.json, fetched once per start (before the first request through
   * req(), so it is the document of a fresh server) and compiled once per distinct text.
   */
  contract(): Promise<Contract | null> {
    if (!this.url) return Promise.resolve(null)
    return (this.contractP ??= (async () => {
      try {
        const r = await fetch(this.url + '/openapi.json')
        if (r.status !== 200) throw new Error(`GET /openapi.json → ${r.status}`)
        const c = contractFor(await r.text())
        recordDocProblems(c)
        return c
      } catch {
        this.contractP = null // the server may be down on purpose; try again next time
        return null
      }
    })())
  }

  /**
   * Checks one response against the operation it answers in /openapi.json (see contract.ts).
   * `text` null = the body was not read: status and content type only (an event stream's text, when
   * given, is parsed and each event checked).
   * Tests that call fetch() themselves may pass their responses here.
   */
  async checkContract(method: string, path: string, r: { status: number; headers: Headers; text: string | null }, stack: string | undefined = new Error().stack): Promise<void> {
    if (CONTRACT_MODE === 'off') return
    const c = await this.contract()
    if (!c) return
    const ms = c.check({ method, url: path, status: r.status, headers: r.headers, text: r.text })
    countChecked(ms.length > 0)
    if (ms.length === 0) return
    recordMismatches(ms, { request: `${method} ${path}`, response: r.text ?? '(not read)', file: callerFile(stack) })
    if (STRICT) {
      throw new Error(`response does not match /openapi.json: ${method} ${path} → ${r.status}\n${ms.map((m) => `  [${m.kind}] ${m.operation}: ${m.message}`).join('\n')}\n  body: ${(r.text ?? '(not read)').slice(0, 400)}`)
    }
  }

  async req<T = any>(method: string, path: string, o: ReqOptions = {}): Promise<Res<T>> {
    const stack = CONTRACT_MODE === 'off' ? undefined : new Error().stack
    if (CONTRACT_MODE !== 'off') await this.contract()
    const headers: Record<string, string> = { ...o.headers }
    if (o.token) headers.authorization = `Bearer ${o.token}`
    if (o.key) headers['x-api-key'] = o.key
    let body: BodyInit | undefined = o.raw
    if (o.body !== undefined) { body = JSON.stringify(o.body); headers['content-type'] ??= 'application/json' }
    const res = await fetch(this.url + path, { method, headers, body, redirect: 'manual', signal: o.signal })
    const text = await res.text()
    let parsed: any = text
    try { parsed = text ? JSON.parse(text) : null } catch { /* not JSON */ }
    if (CONTRACT_MODE !== 'off') await this.checkContract(method, path, { status: res.status, headers: res.headers, text }, stack)
    return { status: res.status, headers: res.headers, body: parsed, text }
  }

  get = <T = any>(path: string, o?: ReqOptions) => this.req<T>('GET', path, o)
  post = <T = any>(path: string, body?: unknown, o: ReqOptions = {}) => this.req<T>('POST', path, { ...o, body })
  patch = <T = any>(path: string, body?: unknown, o: ReqOptions = {}) => this.req<T>('PATCH', path, { ...o, body })
  del = <T = any>(path: string, o?: ReqOptions) => this.req<T>('DELETE', path, o)

  /** Creates the first admin through the setup URL and returns its bearer token. */
  async setupAdmin(login = 'admin', password = 'admin-password'): Promise<string> {
    const token = this.setupToken()
    if (!token) throw new Error('no setup token printed')
    const r = await this.post('/api/v1/setup', { token, login, password })
    if (r.status !== 201) throw new Error(`setup failed: ${r.status} ${r.text}`)
    return r.body.accessToken
  }

  /** Signs up a new operator (open sign-up is on in testnet) and returns its bearer token. */
  async signup(login: string, password = 'operator-password'): Promise<string> {
    const r = await this.post('/api/v1/auth/signup', { login, password })
    if (r.status !== 201) throw new Error(`signup failed: ${r.status} ${r.text}`)
    return r.body.accessToken
  }

  /** A signed-up operator with one registered agent: its token, id and the agent (with its apiKey). */
  async operatorWithAgent(login: string, capabilities = ['sentiment_analysis']): Promise<{ token: string; id: string; agent: any }> {
    const token = await this.signup(login)
    const r = await this.post('/api/v1/agents/register', { displayName: `${login}-bot`, capabilities }, { token })
    if (r.status !== 201) throw new Error(`agent registration failed: ${r.status} ${r.text}`)
    return { token, id: (await this.get('/api/v1/auth/me', { token })).body.id as string, agent: r.body }
  }

  async createKey(token: string, name = 'k', extra: Record<string, unknown> = {}): Promise<{ key: string; id: string }> {
    const r = await this.post('/api/v1/operator/keys', { name, ...extra }, { token })
    if (r.status !== 200) throw new Error(`create key failed: ${r.status} ${r.text}`)
    return r.body
  }
}

export function tempDir(prefix = 'taskgate-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix))
}

/** Polls `fn` (every `ms`, at most `tries` times) until `ok` holds for its value, for what happens asynchronously (a delivery arriving); time-based behaviour uses the test clock instead. */
export async function until<T>(fn: () => Promise<T> | T, ok: (v: T) => boolean, tries = 250, ms = 20): Promise<T> {
  let v = await fn()
  for (let i = 0; i < tries && !ok(v); i++) { await Bun.sleep(ms); v = await fn() }
  if (!ok(v)) throw new Error(`condition not met: ${JSON.stringify(v).slice(0, 400)}`)
  return v
}

/** Starts a server on a fresh data dir. */
export async function startServer(env: Record<string, string> = {}, dataDir = tempDir()): Promise<TestServer> {
  return new TestServer(dataDir, env).start()
}

export function expectProblem(r: Res, status: number, code?: string): void {
  if (r.status !== status) throw new Error(`expected ${status}, got ${r.status}: ${r.text}`)
  const ct = r.headers.get('content-type') ?? ''
  if (!ct.startsWith('application/problem+json')) throw new Error(`expected problem+json, got ${ct}: ${r.text}`)
  if (r.body.status !== status || typeof r.body.code !== 'string' || typeof r.body.requestId !== 'string' || typeof r.body.title !== 'string' || typeof r.body.type !== 'string') {
    throw new Error(`not a problem document: ${r.text}`)
  }
  if (code && r.body.code !== code) throw new Error(`expected code ${code}, got ${r.body.code}: ${r.text}`)
}
