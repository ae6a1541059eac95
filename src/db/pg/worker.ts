// The worker behind PgConnection (src/db/pg/connection.ts): holds one PostgreSQL connection
// (Bun's built-in client, Bun.sql) and answers one query at a time. Each answer is posted on the
// port the main thread gave, then counted in the shared flag so that the main thread, blocked in
// Atomics.wait, wakes and takes it with receiveMessageOnPort.
import { SQL } from 'bun'

declare const self: Worker

interface Init { port: MessagePort; flag: SharedArrayBuffer; url: string; connectTimeoutS: number; statementTimeoutMs: number }
interface Ask { text: string; params: unknown[]; values: boolean }

/** Whether an error came from the server (an SQLSTATE), rather than from reaching it. */
const serverError = (e: unknown): e is { message: string; errno: string } =>
  typeof e === 'object' && e !== null && (e as { code?: unknown }).code === 'ERR_POSTGRES_SERVER_ERROR' && typeof (e as { errno?: unknown }).errno === 'string'

self.onmessage = (ev: MessageEvent<Init>) => {
  const { port, url, connectTimeoutS, statementTimeoutMs } = ev.data
  const flag = new Int32Array(ev.data.flag)
  const db = new SQL({
    url, max: 1, idleTimeout: 0, connectionTimeout: connectTimeoutS,
    // a statement or a lock wait never blocks the main thread longer than this
    connection: { statement_timeout: String(statementTimeoutMs), lock_timeout: String(statementTimeoutMs) },
  })
  const answer = (msg: unknown) => {
    port.postMessage(msg)
    Atomics.add(flag, 0, 1)
    Atomics.notify(flag, 0)
  }
  port.onmessage = async (m: MessageEvent<Ask>) => {
    const { text, params, values } = m.data
    try {
      const q = db.unsafe(text, params as never[])
      const r = values ? await q.values() : await q
      answer({ rows: Array.from(r as unknown[]), count: (r as { count: number | null }).count ?? 0 })
    } catch (e) {
      answer(serverError(e)
        ? { error: { message: e.message, sqlState: e.errno } }
        : { error: { message: e instanceof Error ? e.message : String(e), unavailable: true } })
    }
  }
}
