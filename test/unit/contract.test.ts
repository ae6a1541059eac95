// The response validator the black-box tests run every response through (helpers/contract.ts),
// against a small document: what it accepts and each kind of mismatch it reports.
import { describe, expect, test } from 'bun:test'
import { Contract, type Exchange } from '../helpers/contract'

const problem = { description: 'problem', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } }
const doc = {
  openapi: '3.1.0',
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
    '/stream': { get: { responses: { 200: { description: 'events', content: { 'text/event-stream': { schema: { type: 'string' } } } } } } },
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
})
