// JSON Schema (the subset /openapi.json uses) → fast-check arbitraries, for the fuzz test.
//
//   valid(schema)     values the schema admits, of typical size
//   boundary(schema)  values the schema admits, at its edges (min/max lengths, bounds, item counts)
//   invalid(schema)   values meant to be refused: wrong type, one past a bound, a missing required
//                     member, an unknown member where additionalProperties is false, a value
//                     outside an enum or pattern. Not every one is: the fuzz test classifies each
//                     generated input with the validator (Ajv), never by how it was generated.
//
// Supported: $ref (into the document), type (or a list of types), const, enum, anyOf, oneOf, allOf
// (merged), null, boolean, integer/number (minimum, maximum, exclusive bounds, multipleOf),
// string (minLength, maxLength, pattern, format), array (items, minItems, maxItems, uniqueItems),
// object (properties, required, additionalProperties, patternProperties, minProperties,
// maxProperties). Lengths count code points, as JSON Schema does.
//
// Nothing generated ever points the server at another host: strings with a URI format, and any
// string under a member whose name ends in "url"/"uri", are loopback URLs on a closed port.
import { NO_NUL_PATTERN } from '../../src/http/request-schema'
import fc from 'fast-check'

type Schema = Record<string, any>
export type Resolver = (ref: string) => Schema | undefined

const LOOPBACK_URL = 'http://127.0.0.1:9'
/** The longest string built: long enough for every bound the API sets (100 000-character prompts). */
const MAX_BUILT = 200_001
const MAX_ITEMS = 300

export class SchemaArbs {
  /**
   * @param maxString the longest string generated (parameters travel in the request line and
   *   headers, which the HTTP server caps at a few KiB before the application sees them)
   */
  constructor(private resolveRef: Resolver, private maxString = MAX_BUILT) {}

  /**
   * The strings matching a pattern (fast-check's stringMatching), built once per pattern: building
   * one parses the expression (long ones, like the exact CID pattern, take a good part of a
   * second), and arbitraries are built again for every generated case. Null when the pattern is
   * no ECMAScript regex or uses a construct fast-check cannot generate from.
   */
  private matchingCache = new Map<string, fc.Arbitrary<string> | null>()
  private matching(pattern: string): fc.Arbitrary<string> | null {
    let a = this.matchingCache.get(pattern)
    if (a === undefined) {
      try { a = fc.stringMatching(new RegExp(pattern, 'u')) } catch { a = null }
      this.matchingCache.set(pattern, a)
    }
    return a
  }

  /** Follows $ref and merges allOf. */
  norm(s0: unknown): Schema {
    let s: Schema = s0 && typeof s0 === 'object' ? (s0 as Schema) : s0 === false ? { not: {} } : {}
    for (let i = 0; i < 20 && typeof s.$ref === 'string'; i++) {
      const { $ref, ...rest } = s
      s = { ...(this.resolveRef($ref) ?? {}), ...rest }
    }
    if (Array.isArray(s.allOf)) {
      const { allOf, ...rest } = s
      let merged: Schema = { ...rest }
      for (const part of allOf as unknown[]) {
        const p = this.norm(part)
        merged = {
          ...merged, ...p,
          properties: { ...(merged.properties ?? {}), ...(p.properties ?? {}) },
          required: [...new Set([...(merged.required ?? []), ...(p.required ?? [])])],
        }
      }
      if (!Object.keys(merged.properties).length) delete merged.properties
      if (!merged.required.length) delete merged.required
      s = merged
    }
    return s
  }

  /** The JSON types a schema admits (null when it says nothing about types). */
  types(s0: unknown): Set<string> | null {
    const s = this.norm(s0)
    if ('const' in s) return new Set([jsonType(s.const)])
    if (Array.isArray(s.enum)) return new Set(s.enum.map(jsonType))
    const alts = (s.anyOf ?? s.oneOf) as unknown[] | undefined
    if (Array.isArray(alts)) {
      const out = new Set<string>()
      for (const a of alts) {
        const t = this.types(a)
        if (!t) return null
        for (const x of t) out.add(x)
      }
      return out
    }
    if (typeof s.type === 'string') return new Set(s.type === 'integer' ? ['integer'] : [s.type])
    if (Array.isArray(s.type)) return new Set(s.type)
    if (s.properties || s.additionalProperties !== undefined || s.required) return new Set(['object'])
    if (s.items) return new Set(['array'])
    if (s.pattern !== undefined || s.minLength !== undefined || s.maxLength !== undefined || s.format !== undefined) return new Set(['string'])
    return null
  }

  valid(s: unknown, name = '', depth = 0): fc.Arbitrary<unknown> { return this.gen(s, 'valid', name, depth) }
  boundary(s: unknown, name = '', depth = 0): fc.Arbitrary<unknown> { return this.gen(s, 'boundary', name, depth) }

  private gen(s0: unknown, mode: 'valid' | 'boundary', name: string, depth: number): fc.Arbitrary<unknown> {
    const s = this.norm(s0)
    if ('const' in s) return fc.constant(s.const)
    if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]))
    const alts = (s.anyOf ?? s.oneOf) as unknown[] | undefined
    if (Array.isArray(alts) && alts.length) {
      const { anyOf: _a, oneOf: _o, ...rest } = s
      return fc.oneof(...alts.map((a) => this.gen({ ...rest, ...this.norm(a) }, mode, name, depth)))
    }
    const types = Array.isArray(s.type) ? s.type as string[] : typeof s.type === 'string' ? [s.type] : null
    if (types && types.length > 1) return fc.oneof(...types.map((t) => this.gen({ ...s, type: t }, mode, name, depth)))
    const t = types?.[0] ?? [...(this.types(s) ?? [])][0]
    switch (t) {
      case 'null': return fc.constant(null)
      case 'boolean': return fc.boolean()
      case 'integer': return this.integer(s, mode)
      case 'number': return this.number(s, mode)
      case 'string': return this.string(s, mode, name)
      case 'array': return this.array(s, mode, name, depth)
      case 'object': return this.object(s, mode, depth)
      default: return depth > 2 ? fc.constant('x') : fc.jsonValue({ maxDepth: 2 })
    }
  }

  private bounds(s: Schema): { min: number; max: number } {
    const int = s.type === 'integer'
    let min = typeof s.minimum === 'number' ? s.minimum : -1e9
    let max = typeof s.maximum === 'number' ? s.maximum : 1e9
    if (typeof s.exclusiveMinimum === 'number') min = Math.max(min, int ? Math.floor(s.exclusiveMinimum) + 1 : s.exclusiveMinimum)
    if (typeof s.exclusiveMaximum === 'number') max = Math.min(max, int ? Math.ceil(s.exclusiveMaximum) - 1 : s.exclusiveMaximum)
    return { min, max }
  }

  private integer(s: Schema, mode: string): fc.Arbitrary<unknown> {
    const { min, max } = this.bounds(s)
    const lo = Math.ceil(Math.max(min, Number.MIN_SAFE_INTEGER)), hi = Math.floor(Math.min(max, Number.MAX_SAFE_INTEGER))
    const m = typeof s.multipleOf === 'number' && s.multipleOf > 0 ? s.multipleOf : 1
    const fit = (n: number) => m === 1 ? n : Math.min(hi, Math.max(lo, Math.round(n / m) * m))
    if (mode === 'boundary') return fc.constantFrom(...new Set([lo, hi, Math.min(hi, lo + 1), Math.max(lo, hi - 1), lo <= 0 && hi >= 0 ? 0 : lo].map(fit)))
    const small = fc.integer({ min: Math.max(lo, Math.min(hi, -10)), max: Math.min(hi, Math.max(lo, 100)) })
    return fc.oneof({ arbitrary: small, weight: 3 }, { arbitrary: fc.integer({ min: lo, max: hi }), weight: 1 }).map(fit)
  }

  private number(s: Schema, mode: string): fc.Arbitrary<unknown> {
    const { min, max } = this.bounds(s)
    const minExcluded = typeof s.exclusiveMinimum === 'number' && s.exclusiveMinimum >= min
    const maxExcluded = typeof s.exclusiveMaximum === 'number' && s.exclusiveMaximum <= max
    if (mode === 'boundary') {
      const edges = [minExcluded ? nextUp(min) : min, maxExcluded ? nextDown(max) : max]
      return fc.constantFrom(...edges.filter((x) => Number.isFinite(x)))
    }
    const d = fc.double({ min, max, minExcluded, maxExcluded, noNaN: true, noDefaultInfinity: true }).map((x) => (Object.is(x, -0) ? 0 : x))
    const ints = fc.integer({ min: Math.ceil(minExcluded ? nextUp(min) : min), max: Math.floor(maxExcluded ? nextDown(max) : max) })
    return Math.ceil(min) <= Math.floor(max) ? fc.oneof(d, ints) : d
  }

  private string(s: Schema, mode: string, name: string): fc.Arbitrary<unknown> {
    // "no U+0000" (docs/api.md, "Text"): any string of the other rules, its NULs replaced
    if (s.pattern === NO_NUL_PATTERN) return this.string({ ...s, pattern: undefined }, mode, name).map((x) => (typeof x === 'string' ? x.replaceAll('\u0000', ' ') : x))
    const minLength: number = s.minLength ?? 0
    const maxLength: number = Math.min(s.maxLength ?? Infinity, this.maxString)
    const fits = (x: string) => { const n = cpLength(x); return n >= minLength && n <= maxLength }
    if (s.format === 'uri' || s.format === 'url' || s.format === 'iri' || /ur[il]$/i.test(name)) {
      return fc.webSegment().map((seg) => `${LOOPBACK_URL}/${seg}`).filter(fits)
    }
    if (typeof s.pattern === 'string') {
      const matching = this.matching(s.pattern)
      if (matching) return matching.filter(fits)
    }
    switch (s.format) {
      case 'email': return fc.emailAddress().filter(fits)
      case 'date-time': return fc.date({ min: new Date(0), max: new Date(4102444800000), noInvalidDate: true }).map((d) => d.toISOString()).filter(fits)
      case 'date': return fc.date({ min: new Date(0), max: new Date(4102444800000), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10))
      case 'uuid': return fc.uuid()
      case 'ipv4': return fc.ipV4()
      case 'ipv6': return fc.ipV6()
    }
    const text = (o: { minLength: number; maxLength: number }) => fc.oneof(
      { arbitrary: fc.string({ ...o, unit: 'grapheme-ascii' }), weight: 6 },
      { arbitrary: fc.string({ ...o, unit: 'binary' }), weight: 1 },
      { arbitrary: fc.string({ ...o, unit: 'binary-ascii' }), weight: 1 },
    )
    if (mode === 'boundary') {
      const lengths = [...new Set([minLength, Number.isFinite(maxLength) ? maxLength : minLength + 64, minLength + 1, Number.isFinite(maxLength) ? maxLength - 1 : minLength + 2])]
        .filter((n) => n >= minLength && n <= maxLength)
      return fc.tuple(fc.constantFrom(...lengths), text({ minLength: 1, maxLength: 6 })).map(([n, chunk]) => repeatTo(chunk, n))
    }
    return text({ minLength, maxLength: Math.min(maxLength, minLength + 24) })
  }

  private array(s: Schema, mode: string, name: string, depth: number): fc.Arbitrary<unknown> {
    const minItems: number = s.minItems ?? 0
    const maxItems: number = Math.min(s.maxItems ?? Infinity, MAX_ITEMS)
    const item = depth > 3 ? fc.constant(null) : this.gen(s.items ?? {}, 'valid', name, depth + 1)
    const build = (min: number, max: number) => s.uniqueItems
      ? fc.uniqueArray(item, { minLength: min, maxLength: max, selector: (v) => JSON.stringify(v) })
      : fc.array(item, { minLength: min, maxLength: max })
    if (mode === 'boundary') {
      const hi = Number.isFinite(maxItems) ? maxItems : minItems + 8
      return fc.oneof(build(minItems, minItems), build(hi, hi))
    }
    return build(minItems, Math.min(maxItems, minItems + 4))
  }

  private object(s: Schema, mode: string, depth: number): fc.Arbitrary<unknown> {
    const props: Record<string, unknown> = s.properties ?? {}
    const required = new Set<string>((s.required as string[] | undefined) ?? [])
    const arbs: Record<string, fc.Arbitrary<unknown>> = {}
    for (const [k, p] of Object.entries(props)) {
      arbs[k] = depth > 4 ? fc.constant(null) : (mode === 'boundary' ? fc.oneof(this.gen(p, 'boundary', k, depth + 1), this.gen(p, 'valid', k, depth + 1)) : this.gen(p, 'valid', k, depth + 1))
    }
    for (const r of required) if (!(r in arbs)) arbs[r] = fc.jsonValue({ maxDepth: 1 })
    let rec: fc.Arbitrary<Record<string, unknown>> = fc.record(arbs, { requiredKeys: [...required] }) as fc.Arbitrary<Record<string, unknown>>
    if (mode === 'boundary') {
      // only the required members, or every member
      rec = fc.oneof(fc.record(Object.fromEntries([...required].map((k) => [k, arbs[k]!]))), fc.record(arbs)) as fc.Arbitrary<Record<string, unknown>>
    }
    const ap = s.additionalProperties
    const extraValue = ap && typeof ap === 'object' ? this.gen(ap, 'valid', '', depth + 1) : ap === false ? null : fc.jsonValue({ maxDepth: 1 })
    const pattern = s.patternProperties && Object.keys(s.patternProperties).length ? Object.entries<unknown>(s.patternProperties)[0]! : null
    let out: fc.Arbitrary<Record<string, unknown>> = rec
    if (extraValue || pattern) {
      const value = pattern ? this.gen(pattern[1], 'valid', '', depth + 1) : extraValue!
      const extraKey = fc.string({ minLength: 1, maxLength: 8, unit: 'grapheme-ascii' }).map((k) => `zz_${k}`).filter((k) => !(k in props))
      const extras = fc.dictionary(extraKey, value, { maxKeys: 2 })
      out = fc.tuple(rec, fc.oneof({ arbitrary: fc.constant({}), weight: 3 }, { arbitrary: extras, weight: 1 })).map(([a, b]) => ({ ...b, ...a }))
    }
    const minP: number = s.minProperties ?? 0
    const maxP: number = s.maxProperties ?? Infinity
    if (minP > 0 || Number.isFinite(maxP)) out = out.filter((o) => Object.keys(o).length >= minP && Object.keys(o).length <= maxP)
    return out
  }

  /**
   * One small, deterministic value the schema admits: the required members only (plus the
   * members `fill` names, when the schema has them), the first enum value, the shortest string.
   */
  example(s0: unknown, fill: Record<string, unknown> = {}, name = '', depth = 0): unknown {
    const s = this.norm(s0)
    if (name in fill && depth > 0) return fill[name]
    if ('const' in s) return s.const
    if (Array.isArray(s.enum)) return s.enum[0]
    const alts = (s.anyOf ?? s.oneOf) as unknown[] | undefined
    if (Array.isArray(alts) && alts.length) {
      const { anyOf: _a, oneOf: _o, ...rest } = s
      const ranked = [...alts].sort((a, b) => rank(this.types(a)) - rank(this.types(b)))
      return this.example({ ...rest, ...this.norm(ranked[0]) }, fill, name, depth)
    }
    const types = this.types(s)
    const t = types ? [...types].sort((a, b) => rank(new Set([a])) - rank(new Set([b])))[0] : undefined
    switch (t) {
      case 'null': return null
      case 'boolean': return true
      case 'integer': case 'number': {
        const { min, max } = this.bounds({ ...s, type: t })
        const v = Math.min(max, Math.max(min, 1))
        return t === 'integer' ? Math.ceil(v) : v
      }
      case 'string': {
        if (s.format === 'email') return 'owner@example.com'
        if (s.format === 'date-time') return new Date(0).toISOString()
        if (s.format === 'uri' || s.format === 'url' || /ur[il]$/i.test(name)) return `${LOOPBACK_URL}/x`
        if (typeof s.pattern === 'string' && s.pattern !== NO_NUL_PATTERN) {
          const matching = this.matching(s.pattern)
          if (matching) return fc.sample(matching, { seed: 1, numRuns: 1 })[0]
        }
        return 'x'.repeat(Math.max(1, s.minLength ?? 1))
      }
      case 'array': {
        const n = Math.max(s.minItems ?? 0, s.items ? 1 : 0)
        return Array.from({ length: Math.min(n, s.maxItems ?? n) }, (_, i) => s.uniqueItems ? withIndex(this.example(s.items ?? {}, fill, name, depth + 1), i) : this.example(s.items ?? {}, fill, name, depth + 1))
      }
      case 'object': {
        const props: Record<string, unknown> = s.properties ?? {}
        const keys = new Set<string>(s.required ?? [])
        for (const k of Object.keys(fill)) if (k in props) keys.add(k)
        for (const k of Object.keys(props)) { if (keys.size >= (s.minProperties ?? 0)) break; keys.add(k) }
        return Object.fromEntries([...keys].map((k) => [k, k in fill ? fill[k] : this.example(props[k] ?? {}, fill, k, depth + 1)]))
      }
      default: return {}
    }
  }

  /** Values meant to break the schema in one place (see the file comment). */
  invalid(s0: unknown, name = '', depth = 0): fc.Arbitrary<unknown> {
    const s = this.norm(s0)
    const opts: fc.Arbitrary<unknown>[] = []
    const types = this.types(s)
    const wrong = WRONG_TYPE_VALUES.filter(([t]) => types && !types.has(t) && !(t === 'integer' && types.has('number'))).map(([, v]) => v)
    if (wrong.length) opts.push(fc.constantFrom(...wrong))
    if ('const' in s || Array.isArray(s.enum)) {
      const allowed: unknown[] = 'const' in s ? [s.const] : s.enum
      const str = allowed.find((x) => typeof x === 'string') as string | undefined
      opts.push(fc.constantFrom('zz-not-allowed', str ? str.toLowerCase() === str ? str.toUpperCase() : str.toLowerCase() : 'ZZ', str ? `${str} ` : ''))
    }
    const alts = (s.anyOf ?? s.oneOf) as unknown[] | undefined
    if (Array.isArray(alts) && alts.length && depth < 4) opts.push(fc.oneof(...alts.map((a) => this.invalid(a, name, depth + 1))))
    const t = types && types.size === 1 ? [...types][0] : null
    if (t === 'string') {
      if ((s.minLength ?? 0) > 0) opts.push(fc.constant(repeatTo('a', s.minLength - 1)))
      if (typeof s.maxLength === 'number' && s.maxLength < this.maxString) opts.push(fc.string({ minLength: 1, maxLength: 4, unit: 'grapheme-ascii' }).map((c) => repeatTo(c, s.maxLength + 1)))
      if (s.pattern === NO_NUL_PATTERN) opts.push(fc.constant('a NUL \u0000 inside'))
      else if (typeof s.pattern === 'string') opts.push(fc.constantFrom('!', 'not matching', '0x', '../..', ' ', '%00'))
      if (s.format) opts.push(fc.constantFrom(`not-a-${s.format}`, 'a@', '2024-13-45'))
    }
    if (t === 'integer' || t === 'number') {
      const { min, max } = this.bounds(s)
      if (min > -1e9) opts.push(fc.constant(t === 'integer' ? Math.ceil(min) - 1 : typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum : min - 1))
      if (max < 1e9) opts.push(fc.constant(t === 'integer' ? Math.floor(max) + 1 : typeof s.exclusiveMaximum === 'number' ? s.exclusiveMaximum : max + 1))
      if (t === 'integer') opts.push(fc.constantFrom(1.5, -0.5, 1e21))
    }
    if (t === 'array' && depth < 4) {
      if ((s.minItems ?? 0) > 0) opts.push(fc.array(this.valid(s.items ?? {}, name, depth + 1), { minLength: s.minItems - 1, maxLength: s.minItems - 1 }))
      if (typeof s.maxItems === 'number' && s.maxItems < MAX_ITEMS) opts.push(fc.array(this.valid(s.items ?? {}, name, depth + 1), { minLength: s.maxItems + 1, maxLength: s.maxItems + 1 }))
      if (s.items) opts.push(fc.tuple(this.valid(s, name, depth + 1), this.invalid(s.items, name, depth + 1)).map(([a, bad]) => [...(a as unknown[]), bad]))
      if (s.uniqueItems) opts.push(this.valid(s.items ?? {}, name, depth + 1).map((x) => [x, x]))
    }
    if (t === 'object' && depth < 4) {
      const props: Record<string, unknown> = s.properties ?? {}
      const base = this.valid(s, name, depth + 1) as fc.Arbitrary<Record<string, unknown>>
      const required: string[] = s.required ?? []
      if (required.length) opts.push(fc.tuple(base, fc.constantFrom(...required)).map(([o, k]) => { const c = { ...o }; delete c[k]; return c }))
      const keys = Object.keys(props)
      if (keys.length) {
        opts.push(fc.constantFrom(...keys).chain((k) => fc.tuple(base, fc.constant(k), this.invalid(props[k], k, depth + 1))).map(([o, k, bad]) => ({ ...o, [k]: bad })))
      }
      if (s.additionalProperties === false) opts.push(base.map((o) => ({ ...o, zz_unknown_member: 1 })))
      if (typeof s.minProperties === 'number' && s.minProperties > 0) opts.push(fc.constant({}))
    }
    if (!opts.length) opts.push(fc.constantFrom<unknown>(12345, 'zz', true, null, [], {}))
    return fc.oneof(...opts)
  }
}

/** Which type an example prefers: objects and strings before null. */
function rank(types: Set<string> | null): number {
  if (!types) return 5
  for (const [i, t] of ['object', 'string', 'integer', 'number', 'array', 'boolean', 'null'].entries()) if (types.has(t)) return i
  return 6
}

const withIndex = (v: unknown, i: number): unknown => (typeof v === 'string' && i > 0 ? `${v}${i}` : typeof v === 'number' ? v + i : v)

const WRONG_TYPE_VALUES: [string, unknown][] = [
  ['string', 'zz'], ['integer', 7], ['number', 2.5], ['boolean', true], ['null', null], ['array', []], ['object', {}],
]

function jsonType(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'array'
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number'
  return typeof v
}

/** Length in code points (what JSON Schema's minLength/maxLength count). */
export function cpLength(s: string): number {
  let n = 0
  for (const _ of s) n++
  return n
}

/** A string of exactly n code points made by repeating a chunk. */
function repeatTo(chunk: string, n: number): string {
  const cps = [...chunk]
  if (n <= 0) return ''
  if (!cps.length) return 'a'.repeat(n)
  const whole = Math.floor(n / cps.length)
  return chunk.repeat(whole) + cps.slice(0, n - whole * cps.length).join('')
}

const nextUp = (x: number) => x + Math.max(Number.EPSILON, Math.abs(x) * Number.EPSILON * 2)
const nextDown = (x: number) => x - Math.max(Number.EPSILON, Math.abs(x) * Number.EPSILON * 2)
