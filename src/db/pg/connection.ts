// One PostgreSQL connection behind a synchronous interface, for PostgreSQL mode (issue 34): the
// data layer's transactions are synchronous callbacks (src/db/transactor.ts, the group commit), as
// bun:sqlite's are, and stay so on PostgreSQL. A worker holds the connection (./worker.ts); a
// query is posted to it and the main thread waits in Atomics.wait until the answer is there, then
// takes it with receiveMessageOnPort. Measured on loopback (2 cores): ~0.09–0.11 ms a statement
// this way against ~0.04 ms for an awaited Bun.sql query; the event loop waits meanwhile, as it
// does during a bun:sqlite statement.
//
// The server cancels a statement (or a lock wait) longer than `timeoutMs` (PgError 57014 or
// 55P03). An answer that does not come half a second after that (the server or the network gone)
// ends the worker and its connection: PostgreSQL rolls back whatever transaction was open, and the
// call throws DatabaseUnavailable. So does a connection that cannot be made or is lost. For the
// next half second every query throws DatabaseUnavailable at once (requests queued behind a dead
// database are answered, not each kept waiting in turn); the first one after it starts a new
// worker and connection. A statement the server refuses throws PgError with its SQLSTATE.
import { receiveMessageOnPort } from 'node:worker_threads'
import { workerUrl } from '../../lib/worker-url'

export class DatabaseUnavailable extends Error {
  readonly code = 'DATABASE_UNAVAILABLE'
  constructor(message: string) { super(message); this.name = 'DatabaseUnavailable' }
}

export class PgError extends Error {
  constructor(message: string, readonly sqlState: string) { super(message); this.name = 'PgError' }
}

export interface PgConnectionOptions {
  /** postgres://user:password@host:port/database */
  url: string
  /** the server's statement and lock timeouts (default 1,000 ms); with no answer half a second after it, the database is unavailable */
  timeoutMs?: number
  /** the longest connecting may take (default 1 s) */
  connectTimeoutS?: number
  /** after the database was found unreachable, how long every query fails at once without asking it (default 500 ms) */
  downForMs?: number
}

export interface PgResult<Row> { rows: Row[]; count: number }

type Answer = { rows: unknown[]; count: number } | { error: { message: string; sqlState?: string; unavailable?: boolean } }

export class PgConnection {
  private worker: Worker | null = null
  private port: MessagePort | null = null
  private readonly flag = new Int32Array(new SharedArrayBuffer(4))
  /** The worker was just started: its first answer also waits for it to connect. */
  private connecting = false
  private readonly timeoutMs: number
  private readonly connectTimeoutS: number
  private readonly downForMs: number
  /** Until when (performance.now()) the database counts as unavailable without asking it. */
  private downUntil = 0
  /** Asks wait without a deadline (migrations at start; the server's timeouts are lifted meanwhile). */
  private unboundedWait = false

  constructor(private readonly url: string, o: Omit<PgConnectionOptions, 'url'> = {}) {
    this.timeoutMs = o.timeoutMs ?? 1000
    this.connectTimeoutS = o.connectTimeoutS ?? 1
    this.downForMs = o.downForMs ?? 500
  }

  /**
   * Runs `fn` with no statement or lock timeout and no deadline on the answers: for work that may
   * take long and runs before any request (migrations at start).
   */
  unbounded<T>(fn: () => T): T {
    this.query('SET statement_timeout = 0')
    this.query('SET lock_timeout = 0')
    this.unboundedWait = true
    try { return fn() } finally {
      this.unboundedWait = false
      try {
        this.query(`SET statement_timeout = ${this.timeoutMs}`)
        this.query(`SET lock_timeout = ${this.timeoutMs}`)
      } catch (e) { if (!(e instanceof DatabaseUnavailable)) throw e } // a new connection starts with them
    }
  }

  /** Rows as objects keyed by column name. */
  query<Row = Record<string, unknown>>(text: string, params: unknown[] = []): PgResult<Row> { return this.ask(text, params, false) as PgResult<Row> }

  /** Rows as arrays of column values, in the select list's order. */
  values(text: string, params: unknown[] = []): PgResult<unknown[]> { return this.ask(text, params, true) as PgResult<unknown[]> }

  /** Ends the worker and its connection (an open transaction is rolled back by the server). */
  close(): void {
    this.worker?.terminate()
    this.port?.close()
    this.worker = null
    this.port = null
  }

  private ask(text: string, params: unknown[], values: boolean): PgResult<unknown> {
    if (performance.now() < this.downUntil) throw new DatabaseUnavailable('PostgreSQL unreachable (trying again shortly)')
    const port = this.port ?? this.start()
    port.postMessage({ text, params, values })
    // The server cancels a statement or lock wait at timeoutMs; half a second more covers its answer.
    // The first query also waits for the worker to start and connect.
    const wait = this.unboundedWait ? 2 ** 31 : this.timeoutMs + 500 + (this.connecting ? this.connectTimeoutS * 1000 : 0)
    this.connecting = false
    const deadline = performance.now() + wait
    for (;;) {
      // The worker posts an answer, then counts it in the flag and wakes us: read the count before
      // looking at the port, so an answer posted after the look has changed it and the wait returns.
      const seen = Atomics.load(this.flag, 0)
      // One ask at a time, and a port per worker (a timeout ends both): a message is this ask's answer.
      const m = receiveMessageOnPort(port as never) as { message: Answer } | undefined
      if (m) return this.result(m.message)
      const left = deadline - performance.now()
      if (left <= 0) {
        this.unavailable()
        throw new DatabaseUnavailable(`no answer from PostgreSQL within ${wait} ms`)
      }
      Atomics.wait(this.flag, 0, seen, left)
    }
  }

  private result(a: Answer): PgResult<unknown> {
    if (!('error' in a)) return { rows: a.rows, count: a.count }
    if (a.error.sqlState) throw new PgError(a.error.message, a.error.sqlState)
    this.unavailable()
    throw new DatabaseUnavailable(`PostgreSQL unreachable: ${a.error.message}`)
  }

  /** Ends the connection and answers every query of the next `downForMs` (half a second) at once. */
  private unavailable(): void {
    this.close()
    this.downUntil = performance.now() + this.downForMs
  }

  private start(): MessagePort {
    const { port1, port2 } = new MessageChannel()
    const worker = new Worker(workerUrl('db/pg/worker.ts'), { smol: true })
    worker.postMessage({ port: port2, flag: this.flag.buffer, url: this.url, connectTimeoutS: this.connectTimeoutS, statementTimeoutMs: this.timeoutMs }, [port2])
    this.worker = worker
    this.port = port1
    this.connecting = true
    return port1
  }
}
