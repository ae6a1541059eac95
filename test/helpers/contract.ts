// The response contract: every response a black-box test receives (through TestServer.req) is
// checked against the operation it answers in the server's own /openapi.json, by a validator
// that shares no code with the server (Ajv's JSON Schema 2020-12 validator, as OpenAPI 3.1 and 3.2 use).
//
// Checked: the path matches a documented path template and method; the status is documented
// (exact, NXX or default); the content type is one the response documents (and a body is sent
// only where one is documented); JSON bodies match the response schema; problem+json bodies
// also match components.schemas.Problem and carry the response's status; documented response
// headers are present when required and match their schema; and the headers clients rely on
// (Location, Retry-After, RateLimit-*, X-PAYMENT-RESPONSE, WWW-Authenticate, ...) are documented
// where they are sent. Event streams (text/event-stream) whose text was read: the stream is parsed
// with eventsource-parser (the HTML event-stream rules: comments and a `retry:`-only block are not
// events, `id` carries over) and every event `{ event, data, id }` is validated against the media
// type's OpenAPI 3.2 `itemSchema`, including the JSON inside `data` (`contentMediaType:
// application/json` + `contentSchema`, which Ajv alone only annotates; see sseEvents below).
// Binary bodies: status and content type only.
//
// default (strict)                    a mismatch throws inside the test that got it
// TASKGATE_VALIDATE_RESPONSES=report  mismatches are recorded, de-duplicated, printed as they
//                                     first appear and kept in test-results/contract-mismatches.json
//                                     (for working on the document without a red suite)
// TASKGATE_VALIDATE_RESPONSES=off     no checks
import { mkdirSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { ErrorObject, ValidateFunction } from 'ajv'
import Ajv2020 from 'ajv/dist/2020'
import addFormats from 'ajv-formats'
import { createParser } from 'eventsource-parser'

export type ContractMode = 'strict' | 'report' | 'off'

function parseMode(v: string | undefined): ContractMode {
  const m = (v ?? '').trim().toLowerCase()
  if (m === 'report') return 'report'
  if (m === 'off' || m === '0' || m === 'false') return 'off'
  return 'strict'
}

export const CONTRACT_MODE: ContractMode = parseMode(process.env.TASKGATE_VALIDATE_RESPONSES)
export const STRICT = CONTRACT_MODE === 'strict'
export const REPORT_FILE = resolve(import.meta.dir, '../../test-results/contract-mismatches.json')

export interface Mismatch {
  /** `METHOD /path/{template}` (or the raw path when no template matches). */
  operation: string
  status: number
  /** path | method | status | media-type | body | problem | header | schema | fuzz-… | matrix-… */
  kind: string
  message: string
}

/** What the validator needs of one exchange. */
export interface Exchange {
  method: string
  /** Path and query, as requested. */
  url: string
  status: number
  headers: Headers
  /** The body as text; null when it was not read (event streams checked by status and type only). */
  text: string | null
}

/** Paths the document leaves out on purpose: the UI, the docs, the document itself, explorer pages. */
const HIDDEN = [/^\/$/, /^\/docs$/, /^\/openapi\.json$/, /^\/explorer\//, /^\/[^/]+\.(?:html|js|css|map|ico|png|svg|txt|webmanifest)$/]

/** Response headers clients act on: sent without being documented → mismatch. */
const NOTABLE_HEADERS = [
  'location', 'retry-after', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'ratelimit-policy', 'ratelimit',
  'x-payment-response', 'www-authenticate', 'content-disposition', 'idempotent-replayed',
]

const isJsonType = (t: string) => t === 'application/json' || t.endsWith('+json')
const mediaOf = (h: string | null) => (h ?? '').split(';')[0]!.trim().toLowerCase()

interface OpEntry { method: string; template: string; re: RegExp; params: number; op: Record<string, any> }

/** The operations of a document and the compiled schemas to check responses with. */
export class Contract {
  readonly ops: OpEntry[] = []
  /** Problems of the document itself (schemas that do not compile, unknown formats). */
  readonly docProblems: string[] = []
  private ajv: Ajv2020
  private validators = new Map<string, ValidateFunction | string>()
  private templates: { template: string; re: RegExp; params: number }[] = []

  constructor(readonly doc: any) {
    this.ajv = new Ajv2020({
      strict: false, allErrors: true, validateFormats: true,
      logger: { log() {}, warn: (...a: unknown[]) => this.docProblems.push(a.map(String).join(' ')), error: (...a: unknown[]) => this.docProblems.push(a.map(String).join(' ')) },
    })
    addFormats(this.ajv)
    addContentSchema(this.ajv)
    for (const [name, schema] of Object.entries<any>(doc?.components?.schemas ?? {})) {
      try {
        this.ajv.addSchema({ ...rewriteRefs(schema), $id: `urn:taskgate:schema:${name}` })
      } catch (e) {
        this.docProblems.push(`components.schemas.${name}: ${(e as Error).message}`)
      }
    }
    for (const [template, item] of Object.entries<any>(doc?.paths ?? {})) {
      const names: string[] = []
      const re = new RegExp('^' + template.split(/(\{[^}]+\})/).map((part) => {
        if (/^\{[^}]+\}$/.test(part)) { names.push(part); return '([^/]+)' }
        return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
      }).join('') + '$')
      this.templates.push({ template, re, params: names.length })
      for (const [method, op] of Object.entries<any>(item ?? {})) {
        if (!['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'].includes(method)) continue
        this.ops.push({ method: method.toUpperCase(), template, re, params: names.length, op })
      }
    }
    // literal segments win over templates (/tasks/submit before /tasks/{id})
    this.templates.sort((a, b) => a.params - b.params || b.template.length - a.template.length)
  }

  /** Follows an OpenAPI (not JSON Schema) `$ref` inside the document. */
  deref<T = any>(o: T): T {
    let cur: any = o
    for (let i = 0; cur && typeof cur === 'object' && typeof cur.$ref === 'string' && i < 20; i++) {
      const ref: string = cur.$ref
      if (!ref.startsWith('#/')) return cur
      cur = ref.slice(2).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~')).reduce((x: any, k) => x?.[k], this.doc)
    }
    return cur
  }

  /** The path template a concrete path answers to. */
  template(pathname: string): string | null {
    const p = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname
    return this.templates.find((t) => t.re.test(p))?.template ?? null
  }

  operation(method: string, pathname: string): OpEntry | null {
    const template = this.template(pathname)
    if (!template) return null
    const m = method.toUpperCase() === 'HEAD' ? ['HEAD', 'GET'] : [method.toUpperCase()]
    for (const mm of m) {
      const e = this.ops.find((o) => o.template === template && o.method === mm)
      if (e) return e
    }
    return null
  }

  /** Validates a value against a schema of the document; returns the error messages (empty = valid). */
  validate(key: string, schema: unknown, value: unknown): string[] {
    const v = this.compile(key, schema)
    if (typeof v === 'string') return [`schema does not compile: ${v}`]
    if (v(value)) return []
    return formatErrors(v.errors ?? [])
  }

  compile(key: string, schema: unknown): ValidateFunction | string {
    let v = this.validators.get(key)
    if (!v) {
      try {
        v = this.ajv.compile(typeof schema === 'object' && schema !== null ? rewriteRefs(schema) : (schema as any))
      } catch (e) {
        v = (e as Error).message
        this.docProblems.push(`${key}: ${v}`)
      }
      this.validators.set(key, v)
    }
    return v
  }

  /** Every mismatch between one exchange and the document. */
  check(ex: Exchange): Mismatch[] {
    const out: Mismatch[] = []
    const url = new URL(ex.url, 'http://x')
    const method = ex.method.toUpperCase()
    const template = this.template(url.pathname)
    const add = (operation: string, kind: string, message: string) => out.push({ operation, status: ex.status, kind, message })
    const ct = mediaOf(ex.headers.get('content-type'))
    let body: unknown
    let parsed = false
    const json = (): unknown => {
      if (!parsed) { parsed = true; try { body = ex.text ? JSON.parse(ex.text) : undefined } catch { body = Symbol.for('invalid') } }
      return body
    }
    const problemCheck = (operation: string) => {
      if (ct !== 'application/problem+json' || ex.text === null) return
      const b = json()
      if (typeof b === 'symbol') return add(operation, 'problem', 'problem+json body is not JSON')
      const problem = this.doc?.components?.schemas?.Problem
      if (!problem) return add(operation, 'problem', 'the document has no components.schemas.Problem')
      for (const m of this.validate('#Problem', { $ref: '#/components/schemas/Problem' }, b)) add(operation, 'problem', `Problem schema: ${m}`)
      if (b && typeof b === 'object' && (b as { status?: unknown }).status !== ex.status) add(operation, 'problem', `problem status ${(b as { status?: unknown }).status} differs from the response status`)
    }
    if (!template) {
      if (HIDDEN.some((re) => re.test(url.pathname))) return out
      const operation = `${method} ${url.pathname} (no path template)`
      if (ex.status === 404 || ex.status === 405 || ex.status === 413) { problemCheck(`${method} (unknown path)`); return out }
      add(operation, 'path', 'path matches no path template of the document')
      return out
    }
    const entry = this.operation(method, url.pathname)
    if (!entry) {
      if (ex.status === 405 || ex.status === 404 || ex.status === 413) { problemCheck(`${method} ${template} (undocumented method)`); return out }
      add(`${method} ${template}`, 'method', `${method} is not documented on ${template}`)
      return out
    }
    const operation = `${entry.method} ${entry.template}`
    const responses = entry.op.responses ?? {}
    const code = String(ex.status)
    const key = code in responses ? code : `${code[0]}XX` in responses ? `${code[0]}XX` : 'default' in responses ? 'default' : null
    if (!key) {
      add(operation, 'status', `status ${ex.status} is not documented (documented: ${Object.keys(responses).join(', ') || 'none'})${problemCode(ct, json)}`)
      problemCheck(operation)
      return out
    }
    const resp = this.deref(responses[key]) ?? {}
    const content: Record<string, any> = resp.content ?? {}
    const types = Object.keys(content)
    const hasBody = ex.text === null ? ex.status !== 204 && ex.status !== 304 && method !== 'HEAD' : ex.text.length > 0 || ct === 'text/event-stream'
    if (types.length === 0) {
      if (hasBody) add(operation, 'media-type', `response has a body (${ct || 'no content-type'}) but the document gives no content for ${key}`)
    } else if (!hasBody) {
      if (method !== 'HEAD') add(operation, 'media-type', `documented content (${types.join(', ')}) but the body is empty`)
    } else {
      const mt = types.find((t) => t.toLowerCase() === ct)
        ?? types.find((t) => t.endsWith('/*') && ct.startsWith(t.slice(0, -1).toLowerCase()))
        ?? types.find((t) => t === '*/*')
      if (!mt) add(operation, 'media-type', `content-type ${ct || '(none)'} is not documented (documented: ${types.join(', ')})`)
      else if (isJsonType(ct) && ex.text !== null) {
        const b = json()
        const schema = content[mt]?.schema
        if (typeof b === 'symbol') add(operation, 'body', `${ct} body is not JSON`)
        else if (schema === undefined) add(operation, 'media-type', `${mt} has no schema`)
        else for (const m of this.validate(`${operation} ${key} ${mt}`, schema, b).slice(0, 8)) add(operation, 'body', m)
      } else if (ct === 'text/event-stream' && ex.text !== null) {
        const itemSchema = content[mt]?.itemSchema
        if (itemSchema === undefined) add(operation, 'media-type', `${mt} has no itemSchema (each event cannot be checked)`)
        else {
          const seen = new Set<string>()
          for (const [i, e] of sseEvents(ex.text).entries()) {
            for (const m of this.validate(`${operation} ${key} ${mt} item`, itemSchema, e)) {
              if (seen.has(m)) continue
              seen.add(m)
              add(operation, 'sse-event', `event #${i + 1} (${e.event}): ${m}`)
            }
          }
        }
      }
    }
    problemCheck(operation)
    // documented headers
    const documented = new Set<string>()
    for (const [name, h0] of Object.entries<any>(resp.headers ?? {})) {
      const lname = name.toLowerCase()
      documented.add(lname)
      if (lname === 'content-type') continue
      const h = this.deref(h0) ?? {}
      const value = ex.headers.get(lname)
      if (value === null) { if (h.required) add(operation, 'header', `required header ${name} is missing`); continue }
      if (h.schema) {
        const t = this.deref(h.schema)?.type
        const v = (t === 'integer' || t === 'number') && /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value
        for (const m of this.validate(`${operation} ${key} header ${lname}`, h.schema, v)) add(operation, 'header', `header ${name}: ${m}`)
      }
    }
    const undocumented = NOTABLE_HEADERS.filter((name) => ex.headers.get(name) !== null && !documented.has(name))
    if (undocumented.length) add(operation, 'header', `sent but not documented for ${key}: ${undocumented.join(', ')}`)
    return out
  }
}

/** One server-sent event as the OpenAPI 3.2 item model sees it (strings; `retry` a number). */
export interface SseItem { event: string; data: string; id?: string; retry?: number }

/**
 * The events of an event-stream text, parsed by eventsource-parser (the HTML rules): a block
 * without `data:` is no event (the `retry:` hint, `: ping` comments), `event` defaults to
 * `message`, and the last event id carries over to the events that do not set one. An incomplete
 * last block (a stream cut short) is not an event.
 */
export function sseEvents(text: string): SseItem[] {
  const out: SseItem[] = []
  let lastId: string | undefined
  const parser = createParser({
    onEvent: (e) => {
      if (e.id !== undefined) lastId = e.id
      out.push({ event: e.event ?? 'message', data: e.data, ...(lastId !== undefined ? { id: lastId } : {}) })
    },
  })
  parser.feed(text)
  return out
}

/**
 * JSON Schema's `contentSchema` is an annotation (Ajv accepts it and checks nothing); OpenAPI 3.2
 * describes the JSON inside an SSE `data:` string with it. This replaces Ajv's keyword with one
 * that validates: where `contentMediaType` is a JSON media type, a string instance must parse as
 * JSON and the parsed value must match `contentSchema` (errors point into the string, e.g.
 * `/data/status`).
 */
function addContentSchema(ajv: Ajv2020): void {
  ajv.removeKeyword('contentSchema')
  ajv.addKeyword({
    keyword: 'contentSchema',
    schemaType: ['object', 'boolean'],
    errors: true,
    compile(schema: unknown, parent: Record<string, unknown>) {
      const mt = typeof parent.contentMediaType === 'string' ? parent.contentMediaType.split(';')[0]!.trim().toLowerCase() : ''
      if (!isJsonType(mt)) return () => true
      const inner = ajv.compile(schema as object)
      const check = (data: unknown, cxt?: { instancePath?: string }): boolean => {
        if (typeof data !== 'string') return true
        const at = cxt?.instancePath ?? ''
        let value: unknown
        try { value = JSON.parse(data) } catch {
          check.errors = [{ instancePath: at, schemaPath: '#/contentSchema', keyword: 'contentSchema', params: {}, message: `must hold ${mt} (it does not parse)` }]
          return false
        }
        if (inner(value)) { check.errors = undefined; return true }
        check.errors = (inner.errors ?? []).map((e) => ({ ...e, instancePath: `${at}${e.instancePath}` }))
        return false
      }
      check.errors = undefined as Partial<ErrorObject>[] | undefined
      return check
    },
  })
}

function problemCode(ct: string, json: () => unknown): string {
  if (ct !== 'application/problem+json') return ''
  const b = json() as { code?: unknown } | symbol
  return typeof b === 'object' && b && typeof b.code === 'string' ? ` [code ${b.code}]` : ''
}

/** `#/components/schemas/X` → the id the component was registered under. */
function rewriteRefs(v: any): any {
  if (Array.isArray(v)) return v.map(rewriteRefs)
  if (!v || typeof v !== 'object') return v
  const o: Record<string, unknown> = {}
  for (const [k, x] of Object.entries(v)) {
    o[k] = k === '$ref' && typeof x === 'string' && x.startsWith('#/components/schemas/') ? `urn:taskgate:schema:${x.slice('#/components/schemas/'.length)}` : rewriteRefs(x)
  }
  return o
}

/** Ajv errors as short, de-duplicable messages (array indexes folded to `*`). */
export function formatErrors(errors: ErrorObject[]): string[] {
  const out = new Set<string>()
  for (const e of errors) {
    const at = (e.instancePath || '/').replace(/\/\d+(?=\/|$)/g, '/*')
    const p = e.params as Record<string, unknown>
    const extra = p.additionalProperty !== undefined ? ` (${String(p.additionalProperty)})`
      : p.allowedValues !== undefined ? ` (${JSON.stringify(p.allowedValues)})`
      : p.allowedValue !== undefined ? ` (${JSON.stringify(p.allowedValue)})` : ''
    out.add(`${at} ${e.message ?? 'invalid'}${extra}`)
  }
  return [...out]
}

// ---------------------------------------------------------------- one contract per document

const contracts = new Map<string, Contract>()

/** The contract of a document (compiled once per distinct document; `servers` differ by port only). */
export function contractFor(docText: string): Contract {
  const doc = JSON.parse(docText)
  const { servers: _servers, ...rest } = doc
  const key = JSON.stringify(rest)
  let c = contracts.get(key)
  if (!c) {
    c = new Contract(doc)
    contracts.set(key, c)
  }
  return c
}

// ---------------------------------------------------------------- the report

interface Entry extends Mismatch { count: number; firstSeenIn: string; example: { request: string; response: string } }

const entries = new Map<string, Entry>()
const docProblemsSeen = new Set<string>()
let checked = 0
let withMismatch = 0
let printedUpTo = 0
const order: Entry[] = []

/** Counts one checked response (the report shows how many responses it covers). */
export function countChecked(mismatched: boolean): void {
  checked++
  if (mismatched) withMismatch++
}

/** Records mismatches (de-duplicated by operation, status, kind and message). */
export function recordMismatches(ms: Mismatch[], example: { request: string; response: string; file?: string }): void {
  let fresh = false
  for (const m of ms) {
    const k = `${m.operation}\u0000${m.status}\u0000${m.kind}\u0000${m.message}`
    const e = entries.get(k)
    if (e) { e.count++; continue }
    const entry: Entry = { ...m, count: 1, firstSeenIn: example.file ?? '?', example: { request: example.request, response: example.response.slice(0, 400) } }
    entries.set(k, entry)
    order.push(entry)
    fresh = true
  }
  if (fresh) flushContractReport()
}

let started = false

export function recordDocProblems(c: Contract): void {
  if (!started) { started = true; flushContractReport() } // replaces an earlier run's report
  let fresh = false
  for (const p of c.docProblems) if (!docProblemsSeen.has(p)) { docProblemsSeen.add(p); fresh = true; recordMismatches([{ operation: 'document', status: 0, kind: 'schema', message: p }], { request: 'GET /openapi.json', response: '' }) }
  if (fresh) flushContractReport()
}

/** All unique mismatches recorded so far in this process. */
export function recordedMismatches(): Entry[] { return [...order] }

/** Writes test-results/contract-mismatches.json (the whole process's de-duplicated list). */
export function flushContractReport(): void {
  if (CONTRACT_MODE === 'off') return
  try {
    mkdirSync(join(REPORT_FILE, '..'), { recursive: true })
    const list = [...order].sort((a, b) => a.operation.localeCompare(b.operation) || a.status - b.status || a.kind.localeCompare(b.kind) || a.message.localeCompare(b.message))
    writeFileSync(REPORT_FILE, JSON.stringify({
      mode: CONTRACT_MODE, updatedAt: new Date().toISOString(), responsesChecked: checked, responsesWithMismatch: withMismatch,
      unique: list.length, mismatches: list,
    }, null, 2) + '\n')
  } catch { /* the report is best effort */ }
}

/**
 * Prints the mismatches first seen since the last call, one line each (bun test fires no exit
 * event, so the summary is printed as it grows: when a server stops, i.e. at the end of a file).
 */
export function printNewMismatches(): void {
  if (CONTRACT_MODE === 'off') return
  flushContractReport()
  if (order.length === printedUpTo) return
  const fresh = order.slice(printedUpTo)
  printedUpTo = order.length
  const lines = fresh.map((e) => `  ${e.operation} → ${e.status || '-'} [${e.kind}] ${e.message}`)
  console.error(`contract: ${fresh.length} new mismatch(es) with /openapi.json (${order.length} unique over ${checked} responses so far; ${REPORT_FILE.replace(/^.*\/(test-results\/)/, '$1')}):\n${lines.join('\n')}`)
}

/** Summary for a global afterAll (bun test --preload test/helpers/contract-preload.ts). */
export function printContractSummary(): void {
  if (CONTRACT_MODE === 'off') return
  flushContractReport()
  const list = [...order].sort((a, b) => a.operation.localeCompare(b.operation) || a.status - b.status)
  console.error(`contract summary: ${checked} responses checked against /openapi.json, ${withMismatch} with a mismatch, ${list.length} unique mismatch(es)`)
  for (const e of list) console.error(`  ${e.operation} → ${e.status || '-'} [${e.kind}] ${e.message} (×${e.count})`)
}

/** The test file a request came from, for the report. */
export function callerFile(stack: string | undefined): string {
  const m = (stack ?? '').match(/(test\/(?:http|ui|unit)\/[^\s:)]+\.test\.ts)(?::(\d+))?/)
  return m ? `${m[1]}${m[2] ? `:${m[2]}` : ''}` : '?'
}
