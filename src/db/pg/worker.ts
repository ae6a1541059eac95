// The worker behind PgConnection (src/db/pg/connection.ts): holds one PostgreSQL connection
// (Bun's built-in client, Bun.sql) and answers one query at a time. Each answer is posted on the
// port the main thread gave, then counted in the shared flag so that the main thread, blocked in
// Atomics.wait, wakes and takes it with receiveMessageOnPort.
//
// Values cross as the data layer's statements, written for SQLite, expect them (docs/scale-out.md,
// "One schema, two dialects"): a number parameter is sent as untyped text, so PostgreSQL reads it
// as the type its place needs (1 into a boolean column is true, as SQLite's 1 is); int8 and numeric
// results (ids, ms timestamps, count(*), sum()) come back as numbers, as SQLite's integers do.
import { SQL } from 'bun'

declare const self: Worker

interface Init { port: MessagePort; flag: SharedArrayBuffer; url: string; connectTimeoutS: number; statementTimeoutMs: number }
interface Ask { text: string; params: unknown[]; values: boolean }

/** int8 and numeric, which Bun.sql returns as strings. */
const NUMERIC_TYPES = new Set([20, 1700])

/** Whether an error came from the server (an SQLSTATE), rather than from reaching it. */
const serverError = (e: unknown): e is { message: string; errno: string } =>
  typeof e === 'object' && e !== null && (e as { code?: unknown }).code === 'ERR_POSTGRES_SERVER_ERROR' && typeof (e as { errno?: unknown }).errno === 'string'

const param = (v: unknown) => (typeof v === 'number' ? String(v) : v)

/** Rewrites the int8 and numeric columns of `rows` (objects or arrays) as numbers. */
function numbersOf(rows: unknown[], columns: { name: string; type: number }[] | undefined, values: boolean): unknown[] {
  const numeric = (columns ?? []).flatMap((c, i) => (NUMERIC_TYPES.has(c.type) ? [values ? i : c.name] : []))
  if (!numeric.length) return rows
  for (const row of rows as Record<string | number, unknown>[]) {
    for (const k of numeric) { const v = row[k]; if (v !== null && v !== undefined) row[k] = Number(v) }
  }
  return rows
}

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
      const q = db.unsafe(text, params.map(param) as never[])
      const r = (values ? await q.values() : await q) as unknown[] & { count: number | null; statement?: { columns?: { name: string; type: number }[] } }
      answer({ rows: numbersOf(Array.from(r), r.statement?.columns, values), count: r.count ?? 0 })
    } catch (e) {
      answer(serverError(e)
        ? { error: { message: e.message, sqlState: e.errno } }
        : { error: { message: e instanceof Error ? e.message : String(e), unavailable: true } })
    }
  }
}
