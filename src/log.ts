// pino to an in-process destination (transports do not work inside a compiled binary).
// Redaction is a second line of defence: request logs never carry headers or bodies at all.
import pino from 'pino'

export const REDACT_PATHS = [
  'authorization', 'password', 'key', 'apiKey', 'secret', 'token', 'accessToken', 'privateKey', 'clientSecret',
  '*.authorization', '*["x-api-key"]', '*.cookie', '*.password', '*.key', '*.apiKey', '*.secret', '*.token',
  '*.accessToken', '*.privateKey', '*.clientSecret', '*.jwtSecret', '*.signerKey', '*.webhookSecret',
  'headers.authorization', 'headers["x-api-key"]', 'headers.cookie',
]

export type Logger = pino.Logger

/** Where batched log text goes: Bun's native stdout sink (buffered, ordered writes). */
interface Sink { write(chunk: string): unknown; flush(): unknown }

/** How long a log line may wait before it reaches stdout. */
const FLUSH_MS = 25

/**
 * Collects log lines and writes them to stdout together, at most FLUSH_MS after the first one.
 * pino's own destination (sonic-boom) cost a quarter of a busy server's CPU (string-to-Buffer
 * conversion and a write callback per chunk), and a write per event-loop turn another fifth.
 */
class BatchingDestination {
  private lines: string[] = []
  private timer: ReturnType<typeof setTimeout> | null = null
  constructor(private sink: Sink) {
    process.once('exit', () => this.flush())
  }
  write(line: string): boolean {
    this.lines.push(line)
    if (!this.timer) {
      this.timer = setTimeout(this.drain, FLUSH_MS)
      this.timer.unref?.()
    }
    return true
  }
  private drain = (): void => {
    this.timer = null
    if (this.lines.length === 0) return
    const chunk = this.lines.length === 1 ? this.lines[0]! : this.lines.join('')
    this.lines = []
    try {
      this.sink.write(chunk)
      this.sink.flush()
    } catch { /* stdout closed: nothing to log to */ }
  }
  flush(cb?: (err?: Error) => void): void {
    if (this.timer) { clearTimeout(this.timer); this.timer = null }
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
  ;(log as Logger & { requestLine?: RequestLine }).requestLine = log.isLevelEnabled('info') ? requestLineWriter(dest) : () => {}
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
function requestLineWriter(dest: pino.DestinationStream): RequestLine {
  return (method, route, status, ms, requestId) => {
    const m = METHODS.has(method) ? `"${method}"` : JSON.stringify(method)
    dest.write(`{"level":"info","time":"${isoNow()}","method":${m},"route":"${route}","status":${status},"ms":${Math.round(ms * 100) / 100},"requestId":"${requestId}","msg":"request"}\n`)
  }
}

/** The one-line request log (same destination as the logger; a no-op below level info). */
export const requestLogger = (log: Logger): RequestLine => (log as Logger & { requestLine?: RequestLine }).requestLine
  ?? ((method, route, status, ms, requestId) => log.info({ method, route, status, ms: Math.round(ms * 100) / 100, requestId }, 'request'))
