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

export function createLogger(level: string, dest: pino.DestinationStream = pino.destination({ dest: 1, sync: false })): Logger {
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
  // Request lines have a fixed shape (method, route template, status, ms, requestId) that cannot
  // hold a secret, so they go through a logger without the (costly) wildcard redaction.
  ;(log as Logger & { requests?: Logger }).requests = pino({ level, base: undefined, timestamp: pino.stdTimeFunctions.isoTime, formatters: { level: (label) => ({ level: label }) } }, dest)
  return log
}

/** The logger for one-line request logs (same destination, no redaction pass). */
export const requestLogger = (log: Logger): Logger => (log as Logger & { requests?: Logger }).requests ?? log
