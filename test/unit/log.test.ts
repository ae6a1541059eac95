// The log destination (src/log.ts): pino's lines and the request lines reach stdout as UTF-8, in
// order, whole, batched; a sink standing in for stdout collects the bytes.
import { expect, test } from 'bun:test'
import { BatchingDestination, createLogger, requestLogger } from '../../src/log'

function collector() {
  const chunks: Uint8Array[] = []
  let flushes = 0
  return {
    sink: { write: (c: Uint8Array) => { chunks.push(c.slice()); return c.length }, flush: () => { flushes++ } },
    text: () => new TextDecoder().decode(Buffer.concat(chunks)),
    get writes() { return chunks.length },
    get flushes() { return flushes },
  }
}

test('pino lines (any text) and request lines (ASCII fields) come out in order and intact', () => {
  const out = collector()
  const dest = new BatchingDestination(out.sink)
  const log = createLogger('info', dest as never)
  const line = requestLogger(log)
  log.info({ who: 'Zoë ✓ 日本' }, 'first')
  line('GET', '/api/v1/tasks/:id', 200, 1.234567, 'req-1')
  log.warn('third — with an em dash')
  line('PATCH', '/x', 404, 0.5, 'req-2')
  expect(out.writes).toBe(0) // batched: nothing written before the flush
  dest.flush()
  const lines = out.text().trimEnd().split('\n').map((l) => JSON.parse(l))
  expect(lines.map((l) => l.msg)).toEqual(['first', 'request', 'third — with an em dash', 'request'])
  expect(lines[0].who).toBe('Zoë ✓ 日本')
  expect(lines[1]).toMatchObject({ level: 'info', method: 'GET', route: '/api/v1/tasks/:id', status: 200, ms: 1.23, requestId: 'req-1' })
  expect(lines[3]).toMatchObject({ method: 'PATCH', status: 404, requestId: 'req-2' })
  expect(out.writes).toBe(1)
})

test('an unusual method is escaped to ASCII JSON', () => {
  const out = collector()
  const dest = new BatchingDestination(out.sink)
  requestLogger(createLogger('info', dest as never))('GÉT"\n', '/x', 400, 1, 'r')
  dest.flush()
  expect(JSON.parse(out.text()).method).toBe('GÉT"\n')
})

test('more than a buffer of lines, and a line longer than the buffer, are all written in order', () => {
  const out = collector()
  const dest = new BatchingDestination(out.sink)
  const log = createLogger('info', dest as never)
  const line = requestLogger(log)
  for (let i = 0; i < 2000; i++) line('GET', '/healthz', 200, 0.01, `id-${i}`)
  log.info({ big: 'é'.repeat(100_000) }, 'big')
  line('GET', '/after', 200, 0.01, 'last')
  dest.flush()
  const lines = out.text().trimEnd().split('\n').map((l) => JSON.parse(l))
  expect(lines).toHaveLength(2002)
  expect(lines.slice(0, 2000).map((l) => l.requestId)).toEqual(Array.from({ length: 2000 }, (_, i) => `id-${i}`))
  expect(lines[2000].big).toHaveLength(100_000)
  expect(lines[2001].route).toBe('/after')
  expect(out.writes).toBeGreaterThan(2)
})
