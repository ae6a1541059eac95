// Every handler is linear in its input (docs/security.md, "Limits before patterns"): each string
// field of every operation in /openapi.json that carries a pattern or a format gets an adversarial
// value of about 1 MiB (in a body; 8 KB in a path, query or header parameter, which the HTTP
// server's line and header limits bound), built to make a backtracking pattern work hardest: a
// valid prefix, a long run of a character the pattern repeats, then a character it refuses. The
// server must answer each within 100 ms, and `/healthz`, asked at the same time, too.
//
// Before the fix the callback URL pattern (`[^\s/?#]+[^\s]*$`) took 0.5 s at 10 KB and pinned a
// core for good at 900 KB: the length limit ran after the pattern.
import { afterAll, describe, expect, test } from 'bun:test'
import { createOwner, fillPath, LIFTED_LIMITS_ENV, operationsOf, type Operation } from '../helpers/operations'
import { startServer } from '../helpers/server'
import { NO_NUL_PATTERN } from '../../src/http/request-schema'

const s = await startServer({ ...LIFTED_LIMITS_ENV, TASKGATE_WEBHOOK_ALLOW_PRIVATE: '1' })
afterAll(async () => { await s.cleanup() })
const contract = (await s.contract())!
const admin = await s.setupAdmin()
const me = await createOwner(s, admin, 'linear', 'ln')

const BODY_CHARS = 1_000_000 // the JSON body limit is 1 MiB; the value and its wrapping stay under it
const PARAM_CHARS = 8_000
const BUDGET_MS = 100

type Path = (string | number)[]
interface Field { where: 'body' | 'path' | 'query' | 'header'; name: string; path: Path; schema: Record<string, any> }

/** String schemas with a pattern or a format, with where they sit in a body. */
function* stringFields(schema: unknown, path: Path, seen = new Set<unknown>()): Generator<{ path: Path; schema: Record<string, any> }> {
  const sch = contract.deref(schema as any) as Record<string, any> | undefined
  if (!sch || typeof sch !== 'object' || seen.has(sch)) return
  seen.add(sch)
  // ("no U+0000", the pattern of every string without one of its own, is checked with includes(): linear)
  if (sch.type === 'string' && ((sch.pattern !== undefined && sch.pattern !== NO_NUL_PATTERN) || sch.format !== undefined)) yield { path, schema: sch }
  for (const [k, v] of Object.entries<unknown>(sch.properties ?? {})) yield* stringFields(v, [...path, k], seen)
  if (sch.items) yield* stringFields(sch.items, [...path, 0], seen)
  for (const k of ['anyOf', 'oneOf', 'allOf'] as const) for (const v of sch[k] ?? []) yield* stringFields(v, path, seen)
}

function fieldsOf(op: Operation): Field[] {
  const out: Field[] = []
  for (const p of op.params) {
    if (p.in === 'cookie') continue
    for (const f of stringFields(p.schema, [])) out.push({ where: p.in, name: p.name, path: [], schema: f.schema })
  }
  const json = op.body?.content['application/json']
  if (json) for (const f of stringFields(json, [])) out.push({ where: 'body', name: f.path.join('.'), path: f.path, schema: f.schema })
  return out
}

/**
 * Values that make a backtracking matcher of this pattern work hardest: a short valid-looking
 * prefix (the pattern's leading literal, e.g. `http://` or `0x`), then a long run of one character,
 * then one it refuses (whitespace, a control character or punctuation).
 */
function adversarial(schema: Record<string, any>, n: number): string[] {
  const prefix = leadingLiteral(String(schema.pattern ?? ''))
  const runs = ['a', '0', 'A', '.']
  return runs.map((c, i) => prefix + c.repeat(n - prefix.length - 1) + [' ', '\u0000', '!', '\n'][i]!)
}

/** The literal a pattern starts with (`^[Hh][Tt][Tt][Pp][Ss]?://` → `http://`; optional tokens left out). */
function leadingLiteral(pattern: string): string {
  let out = ''
  const token = /^(?:\[([A-Za-z0-9])[A-Za-z0-9]?\]|([A-Za-z0-9:/_-]))(\?)?/
  for (let rest = pattern.replace(/^\^/, ''), m = token.exec(rest); m; rest = rest.slice(m[0].length), m = token.exec(rest)) {
    if (!m[3]) out += (m[1] ?? m[2])!.toLowerCase()
  }
  return out
}

const credentials = (op: Operation) => op.auth === 'admin' ? { token: admin }
  : op.auth === 'apiKey' ? { key: me.key.key }
  : op.auth === 'none' ? {}
  : { token: me.token }

function bodyWith(path: Path, value: string): unknown {
  if (path.length === 0) return value
  const [head, ...rest] = path
  return typeof head === 'number' ? [bodyWith(rest, value)] : { [head!]: bodyWith(rest, value) }
}

const cases = operationsOf(contract).flatMap((op) => fieldsOf(op).map((f) => ({ op, f })))

describe('a ~1 MiB value in any pattern- or format-bearing field is answered at once', () => {
  test('the document has such fields (this test covers something)', () => {
    expect(cases.length).toBeGreaterThan(40)
    expect(cases.some((c) => c.f.name === 'callbackUrl')).toBe(true)
    expect(cases.some((c) => c.f.name === 'approvalWebhookUrl')).toBe(true)
  })

  test('every request string with a pattern has a length limit, which the server checks first', () => {
    const unbounded = cases.filter((c) => c.f.schema.pattern !== undefined && c.f.schema.pattern !== NO_NUL_PATTERN && typeof c.f.schema.maxLength !== 'number').map((c) => `${c.op.key} ${c.f.where} ${c.f.name}`)
    expect(unbounded).toEqual([])
  })

  test.each(cases.map((c) => [`${c.op.key} ${c.f.where} ${c.f.name}`, c] as const))('%s', async (_, { op, f }) => {
    const n = f.where === 'body' ? BODY_CHARS : PARAM_CHARS
    for (const value of adversarial(f.schema, n)) {
      const pathValues = Object.fromEntries(op.params.filter((p) => p.in === 'path').map((p) => [p.name, 'x']))
      const query = new URLSearchParams()
      const headers: Record<string, string> = {}
      if (f.where === 'path') pathValues[f.name] = value
      if (f.where === 'query') query.set(f.name, value)
      if (f.where === 'header') headers[f.name] = value.replace(/[\u0000\n]/g, ' ')
      const url = fillPath(op.template, pathValues) + (query.size ? `?${query}` : '')
      const c = credentials(op)
      if ('token' in c) headers.authorization = `Bearer ${c.token}`
      if ('key' in c) headers['x-api-key'] = c.key!
      let body: string | undefined
      if (f.where === 'body') { body = JSON.stringify(bodyWith(f.path, value)); headers['content-type'] = 'application/json' }
      else if (op.body?.content['application/json'] && op.body.required) { body = '{}'; headers['content-type'] = 'application/json' }

      // The best of three tries judges the time (a pattern that backtracks is slow every time; a
      // collection or a busy neighbour on a shared machine is not).
      let a = { status: 0, ms: Infinity }
      let h = { status: 0, ms: Infinity }
      for (let attempt = 0; attempt < 3 && (a.ms >= BUDGET_MS || h.ms >= BUDGET_MS); attempt++) {
        const t0 = performance.now()
        const answer = fetch(s.url + url, { method: op.method, headers, body, signal: AbortSignal.timeout(20_000) })
          .then(async (r) => { await r.arrayBuffer(); return { status: r.status, ms: performance.now() - t0 } })
        const health = fetch(s.url + '/healthz', { signal: AbortSignal.timeout(20_000) })
          .then(async (r) => { await r.arrayBuffer(); return { status: r.status, ms: performance.now() - t0 } })
        const [a1, h1] = await Promise.all([answer, health])
        if (a1.ms < a.ms) a = a1
        if (h1.ms < h.ms) h = h1
      }
      const seen = { status: a.status, answerMs: Math.round(a.ms), healthz: h.status, healthzMs: Math.round(h.ms) }
      const ok = { status: a.status < 500 ? a.status : 'a 4xx', answerMs: a.ms < BUDGET_MS ? seen.answerMs : `< ${BUDGET_MS}`, healthz: 200, healthzMs: h.ms < BUDGET_MS ? seen.healthzMs : `< ${BUDGET_MS}` }
      expect(seen).toEqual(ok as never)
    }
  })
})
