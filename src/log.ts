// pino to an in-process destination (transports do not work inside a compiled binary).
// Redaction is a second line of defence: request logs never carry headers or bodies at all.
import pino from 'pino'

export const REDACT_PATHS = [
  'authorization', 'password', 'key', 'apiKey', 'secret', 'token', 'accessToken', 'privateKey', 'clientSecret',
  '*.authorization', '*["x-api-key"]', '*.cookie', '*.password', '*.key', '*.apiKey', '*.secret', '*.token',
  '*.accessToken', '*.privateKey', '*.clientSecret', '*.jwtSecret', '*.signerKey', '*.webhookSecret', 'databaseUrl', '*.databaseUrl',
  'headers.authorization', 'headers["x-api-key"]', 'headers.cookie',
]

export type Logger = pino.Logger

/** Where batched log text goes: Bun's native stdout sink (buffered, ordered writes). */
interface Sink { write(chunk: Uint8Array): unknown; flush(): unknown }

/** How long a log line may wait before it reaches stdout. */
const FLUSH_MS = 25
const BUFFER_BYTES = 64 * 1024

/**
 * Collects log lines as UTF-8 bytes and writes them to stdout together, at most FLUSH_MS after the
 * first one (or when the buffer fills). pino's own destination (sonic-boom) cost a quarter of a
 * busy server's CPU (string-to-Buffer conversion and a write callback per chunk), a write per
 * event-loop turn another fifth, and joining many lines' strings most of what was left: each
 * line is copied into the buffer as it comes (request lines, ASCII, natively as latin1).
 */
export class BatchingDestination {
  private buf = Buffer.allocUnsafe(BUFFER_BYTES)
  private pos = 0
  private timer: ReturnType<typeof setTimeout> | null = null
  private encoder = new TextEncoder()
  constructor(private sink: Sink) {
    process.once('exit', () => this.flush())
  }

  /** A line from pino (any text). */
  write(line: string): boolean {
    if (line.length * 3 > this.buf.length - this.pos) this.drain()
    if (line.length * 3 > this.buf.length) { this.send(this.encoder.encode(line)); return true }
    this.pos += this.encoder.encodeInto(line, this.buf.subarray(this.pos)).written
    this.schedule()
    return true
  }

  /** Appends one line of ASCII text (the request line: its fields are ASCII by construction). */
  writeAscii(line: string): void {
    if (line.length > this.buf.length - this.pos) this.drain()
    if (line.length > this.buf.length) { this.send(this.encoder.encode(line)); return }
    this.pos += this.buf.write(line, this.pos, 'latin1') // ASCII is latin1: one byte per character, copied natively
    this.schedule()
  }

  private schedule(): void {
    if (!this.timer) {
      this.timer = setTimeout(this.drain, FLUSH_MS)
      this.timer.unref?.()
    }
  }

  private drain = (): void => {
    if (this.timer) { clearTimeout(this.timer); this.timer = null }
    if (this.pos === 0) return
    const chunk = this.buf.subarray(0, this.pos)
    this.buf = Buffer.allocUnsafe(BUFFER_BYTES) // the sink may keep the written bytes until it flushes
    this.pos = 0
    this.send(chunk)
  }

  // Not `emit`: pino calls a destination's emit() as an EventEmitter's ("message" events).
  private send(chunk: Uint8Array): void {
    try {
      this.sink.write(chunk)
      this.sink.flush()
    } catch { /* stdout closed: nothing to log to */ }
  }

  flush(cb?: (err?: Error) => void): void {
    this.drain()
    cb?.()
  }
}

export const stdoutDestination = (): pino.DestinationStream => new BatchingDestination(Bun.stdout.writer())

export function createLogger(level: string, dest: pino.DestinationStream = stdoutDestination()): Logger {
  const log = pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
    },
    dest,
  )
  ;(log as Logger & { requestLine?: RequestLine }).requestLine = !log.isLevelEnabled('info') ? () => {}
    : dest instanceof BatchingDestination ? requestLineWriter((line) => dest.writeAscii(line))
      : requestLineWriter((line) => dest.write(line))
  return log
}

/** One request's log line: method, route template, status, duration, request id. */
export type RequestLine = (method: string, route: string, status: number, ms: number, requestId: string) => void

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])
const ISO_MS = { at: -1, text: '' }
const isoNow = (): string => {
  const now = Date.now()
  if (now !== ISO_MS.at) { ISO_MS.at = now; ISO_MS.text = new Date(now).toISOString() }
  return ISO_MS.text
}

/**
 * Request lines have a fixed shape that cannot hold a secret, so they skip pino's serialisation and
 * redaction (a third of a busy server's CPU went there): the same JSON pino writes, built directly.
 * Every member is safe to embed: the route is a template of ours (or static/unmatched), the request
 * id matches [A-Za-z0-9._:-] or is a UUID, and an unusual method is JSON-escaped.
 */
function requestLineWriter(write: (line: string) => void): RequestLine {
  return (method, route, status, ms, requestId) => {
    const m = METHODS.has(method) ? `"${method}"` : JSON.stringify(method).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    // A template (a rope the latin1 copy flattens), not an array joined: a seventh of the cost.
    write(`{"level":"info","time":"${isoNow()}","method":${m},"route":"${route}","status":${status},"ms":${Math.round(ms * 100) / 100},"requestId":"${requestId}","msg":"request"}\n`)
  }
}

/** The one-line request log (same destination as the logger; a no-op below level info). */
export const requestLogger = (log: Logger): RequestLine => (log as Logger & { requestLine?: RequestLine }).requestLine
  ?? ((method, route, status, ms, requestId) => log.info({ method, route, status, ms: Math.round(ms * 100) / 100, requestId }, 'request'))
