// The response validator the black-box tests run every response through (helpers/contract.ts),
// against a small document: what it accepts and each kind of mismatch it reports.
import { describe, expect, test } from 'bun:test'
import { Contract, sseEvents, type Exchange } from '../helpers/contract'

const problem = { description: 'problem', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } }
const doc = {
  openapi: '3.2.0',
  info: { title: 't', version: '1' },
  components: {
    schemas: {
      Problem: { type: 'object', required: ['type', 'title', 'status', 'code'], properties: { type: { type: 'string' }, title: { type: 'string' }, status: { type: 'integer' }, code: { type: 'string' } } },
      Item: { type: 'object', required: ['id', 'n'], additionalProperties: false, properties: { id: { type: 'string' }, n: { type: 'integer', minimum: 0 }, at: { type: 'string', format: 'date-time' } } },
    },
    responses: { NotFound: problem },
  },
  paths: {
    '/items/{id}': {
      get: {
        responses: {
          200: { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Item' } } }, headers: { 'X-Count': { required: true, schema: { type: 'integer', minimum: 0 } } } },
          404: { $ref: '#/components/responses/NotFound' },
        },
      },
      delete: { responses: { 204: { description: 'gone' }, '4XX': problem } },
    },
    '/items/special': { get: { responses: { 200: { description: 'text', content: { 'text/*': { schema: { type: 'string' } } } } } } },
    '/stream': { get: { responses: { 200: { description: 'events', content: { 'text/event-stream': { itemSchema: {
      type: 'object', required: ['event', 'data', 'id'],
      properties: { event: { type: 'string', enum: ['queued', 'done'] }, data: { type: 'string' }, id: { type: 'string', pattern: '^[1-9][0-9]*$' }, retry: { type: 'integer', minimum: 0 } },
      oneOf: [
        { properties: { event: { const: 'queued' }, data: { contentMediaType: 'application/json', contentSchema: { type: 'object', required: ['position'], properties: { position: { type: 'integer', minimum: 0 } } } } } },
        { properties: { event: { const: 'done' }, data: { contentMediaType: 'application/json', contentSchema: { $ref: '#/components/schemas/Item' } } } },
      ],
    } } } } } } },
  },
}

const c = new Contract(doc)
const ex = (method: string, url: string, status: number, headers: Record<string, string>, body: unknown | null): Exchange => ({
  method, url, status, headers: new Headers(headers), text: body === null ? null : typeof body === 'string' ? body : JSON.stringify(body),
})
const kinds = (e: Exchange) => c.check(e).map((m) => `${m.kind}: ${m.message}`)
const json = { 'content-type': 'application/json' }
const pj = { 'content-type': 'application/problem+json' }
const okProblem = (status: number) => ({ type: 'urn:x', title: 'x', status, code: 'NOT_FOUND' })

describe('the response contract validator', () => {
  test('a response that matches has no mismatch; literal paths win over templates', () => {
    expect(kinds(ex('GET', '/items/a1?x=1', 200, { ...json, 'x-count': '3' }, { id: 'a1', n: 2, at: '2024-01-01T00:00:00Z' }))).toEqual([])
    expect(kinds(ex('GET', '/items/special', 200, { 'content-type': 'text/plain; charset=utf-8' }, 'hello'))).toEqual([])
    expect(kinds(ex('GET', '/items/zz', 404, pj, okProblem(404)))).toEqual([])
    expect(kinds(ex('DELETE', '/items/zz', 204, {}, ''))).toEqual([])
    expect(kinds(ex('DELETE', '/items/zz', 409, pj, okProblem(409)))).toEqual([]) // 4XX
    expect(kinds(ex('GET', '/stream', 200, { 'content-type': 'text/event-stream' }, null))).toEqual([])
  })

  test('status, media type, body, problem and header mismatches', () => {
    expect(kinds(ex('GET', '/items/a', 500, pj, okProblem(500)))).toEqual(['status: status 500 is not documented (documented: 200, 404) [code NOT_FOUND]'])
    expect(kinds(ex('GET', '/items/a', 200, { 'content-type': 'text/html', 'x-count': '1' }, '<p>'))).toEqual(['media-type: content-type text/html is not documented (documented: application/json)'])
    expect(kinds(ex('GET', '/items/a', 200, { ...json, 'x-count': '1' }, { id: 1, extra: true, at: 'yesterday' }))).toEqual([
      'body: / must have required property \'n\'',
      'body: / must NOT have additional properties (extra)',
      'body: /id must be string',
      'body: /at must match format "date-time"',
    ])
    expect(kinds(ex('GET', '/items/a', 200, json, { id: 'a', n: 1 }))).toEqual(['header: required header X-Count is missing'])
    expect(kinds(ex('GET', '/items/a', 200, { ...json, 'x-count': '-1' }, { id: 'a', n: 1 }))).toEqual(['header: header X-Count: / must be >= 0'])
    expect(kinds(ex('GET', '/items/a', 404, { ...pj, 'retry-after': '3' }, { type: 'x', title: 'x', status: 400 }))).toEqual([
      'body: / must have required property \'code\'',
      'problem: Problem schema: / must have required property \'code\'',
      'problem: problem status 400 differs from the response status',
      'header: sent but not documented for 404: retry-after',
    ])
    expect(kinds(ex('DELETE', '/items/a', 204, json, { id: 'a' }))).toEqual(['media-type: response has a body (application/json) but the document gives no content for 204'])
  })

  test('paths and methods the document does not have', () => {
    expect(kinds(ex('GET', '/nowhere', 200, json, {}))).toEqual(['path: path matches no path template of the document'])
    expect(kinds(ex('GET', '/nowhere', 404, pj, okProblem(404)))).toEqual([])
    expect(kinds(ex('POST', '/items/a', 405, pj, okProblem(405)))).toEqual([])
    expect(kinds(ex('POST', '/items/a', 200, json, {}))).toEqual(['method: POST is not documented on /items/{id}'])
    expect(kinds(ex('GET', '/', 200, { 'content-type': 'text/html' }, '<html>'))).toEqual([])
  })

  test('event streams: each parsed event is checked against the itemSchema, the JSON in `data` against its contentSchema', () => {
    const sse = { 'content-type': 'text/event-stream' }
    const good = 'retry: 2000\n\n: ping\n\nid: 1\nevent: queued\ndata: {"position":0}\n\n: ping\n\nid: 2\nevent: done\ndata: {"id":"a",\ndata: "n":3}\n\n'
    expect(kinds(ex('GET', '/stream', 200, sse, good))).toEqual([])
    expect(kinds(ex('GET', '/stream', 200, sse, ''))).toEqual([]) // a stream that ended before its first event
    expect(kinds(ex('GET', '/stream', 200, sse, 'id: 1\nevent: queued\ndata: {"position":0}\n\nid: 2\nevent: queued\ndata: {"posi'))).toEqual([]) // cut short: the last block is no event
    // the JSON inside data breaks its event's schema
    expect(kinds(ex('GET', '/stream', 200, sse, 'id: 1\nevent: queued\ndata: {"position":-1}\n\n'))).toContain('sse-event: event #1 (queued): /data/position must be >= 0')
    expect(kinds(ex('GET', '/stream', 200, sse, 'id: 7\nevent: done\ndata: {"id":"a"}\n\n'))).toContain('sse-event: event #1 (done): /data must have required property \'n\'')
    // data that is not JSON, an undocumented event name, a missing id, an id that carries over
    expect(kinds(ex('GET', '/stream', 200, sse, 'id: 1\nevent: queued\ndata: queued\n\n'))).toContain('sse-event: event #1 (queued): /data must hold application/json (it does not parse)')
    expect(kinds(ex('GET', '/stream', 200, sse, 'id: 1\nevent: started\ndata: {}\n\n'))).toContain('sse-event: event #1 (started): /event must be equal to one of the allowed values (["queued","done"])')
    expect(kinds(ex('GET', '/stream', 200, sse, 'data: {"position":1}\n\n'))).toEqual(expect.arrayContaining([
      'sse-event: event #1 (message): / must have required property \'id\'',
      'sse-event: event #1 (message): /event must be equal to one of the allowed values (["queued","done"])',
    ]))
    expect(kinds(ex('GET', '/stream', 200, sse, 'id: 4\nevent: queued\ndata: {"position":1}\n\nevent: queued\ndata: {"position":2}\n\n'))).toEqual([])
    // a stream described the 3.1 way (schema: string) cannot be checked per event
    const old = new Contract({ ...doc, paths: { '/stream': { get: { responses: { 200: { description: 'events', content: { 'text/event-stream': { schema: { type: 'string' } } } } } } } } })
    expect(old.check(ex('GET', '/stream', 200, sse, good)).map((m) => m.kind)).toEqual(['media-type'])
  })

  test('sseEvents parses with the HTML rules', () => {
    expect(sseEvents('retry: 10\n\n: c\n\nid: 3\nevent: a\ndata: x\ndata: y\n\ndata: z\n\nevent: b\n\n')).toEqual([
      { event: 'a', data: 'x\ny', id: '3' },
      { event: 'message', data: 'z', id: '3' },
    ])
  })
})
