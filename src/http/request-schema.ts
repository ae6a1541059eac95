// The request schemas as they are enforced. A route declares its params, query and body once
// (http/route.ts); this module turns each into the one form that both Elysia validates and the
// OpenAPI document states, so the two cannot disagree:
//  - body objects refuse members they do not name (`additionalProperties: false` on every object
//    that does not say otherwise), which Elysia enforces because it runs with `normalize: false`
//    (with normalize on it silently strips unknown members instead);
//  - numbers in a JSON body are numbers: Elysia's coercing `t.Integer`/`t.Numeric` (which also take
//    the string "5") become plain TypeBox integers/numbers;
//  - query objects ignore parameters they do not name (clients add cache busters);
//  - string lengths count characters (code points), as JSON Schema does, not UTF-16 code units
//    as TypeBox's minLength/maxLength would (an emoji is one character, two code units);
//  - no string holds U+0000 (NUL): a string without a pattern of its own gets NO_NUL_PATTERN (the
//    others exclude it already). PostgreSQL's text cannot store it, and both backends answer the
//    same (docs/api.md, "Text");
//  - object keywords that state a rule the handler enforces with its own problem code (`anyOf`,
//    `allOf` with if/then, e.g. "prompt or messages") stay in the document and are left out of the
//    copy Elysia compiles.
// Every caller gets its own deep copy: Elysia annotates the schemas it compiles, and the document
// is built from copies taken before any of that.
import { FormatRegistry, Kind, OptionalKind, ReadonlyKind, type TSchema } from '@sinclair/typebox'
import { charLength } from '../lib/chars'

export type Where = 'params' | 'query' | 'body'

/** Deep copy of a TypeBox schema, symbol keys (Kind, Optional, Transform …) included. */
export function cloneSchema<T>(v: T): T {
  if (Array.isArray(v)) return v.map(cloneSchema) as T
  if (!v || typeof v !== 'object') return v
  const out: Record<string | symbol, unknown> = {}
  for (const k of Reflect.ownKeys(v)) out[k] = cloneSchema((v as Record<string | symbol, unknown>)[k])
  return out as T
}

/** Object keywords the handler enforces (with its own problem code); documented, not compiled. */
export const DOC_ONLY_KEYWORDS = ['anyOf', 'oneOf', 'allOf', 'not', 'if', 'then', 'else'] as const

/** The pattern of every request string that has none of its own: any text but U+0000. */
export const NO_NUL_PATTERN = '^[^\\u0000]*$'

/** Elysia's coercing number types: a union of a numeric string and the number itself. */
function isCoercion(o: Record<string, unknown>): boolean {
  const any = o.anyOf as Record<string, unknown>[] | undefined
  return any?.length === 2 && any[0]?.type === 'string' && ['integer', 'numeric'].includes(String(any[0]?.format))
    && (any[1]?.type === 'integer' || any[1]?.type === 'number')
}

function strict(v: unknown, root: boolean, where: Where): unknown {
  if (Array.isArray(v)) return v.map((x) => strict(x, false, where))
  if (!v || typeof v !== 'object') return v
  let o = v as Record<string | symbol, unknown>
  if (isCoercion(o)) {
    const inner = (o.anyOf as Record<string | symbol, unknown>[])[1]!
    for (const s of [OptionalKind, ReadonlyKind]) if (s in o) inner[s] = o[s]
    o = inner
  }
  for (const k of Object.keys(o)) {
    // `properties` maps names to schemas; everything else that holds schemas is walked the same way
    o[k] = k === 'properties' && o[k] && typeof o[k] === 'object'
      ? Object.fromEntries(Object.entries(o[k] as Record<string, unknown>).map(([n, s]) => [n, strict(s, false, where)]))
      : strict(o[k], false, where)
  }
  if (o.type === 'string' && o.pattern === undefined && o.const === undefined && o.enum === undefined) o.pattern = NO_NUL_PATTERN
  if (o.type === 'object' && !('additionalProperties' in o) && !('patternProperties' in o)) {
    o.additionalProperties = where === 'query' && root
  }
  return o
}

/** The enforced form of a route's params, query or body schema (a fresh copy each call). */
export function requestSchema(schema: TSchema, where: Where): TSchema {
  return strict(cloneSchema(schema), true, where) as TSchema
}


/**
 * Format names standing for "the string rules of this schema, in a safe order" in the copies Elysia
 * compiles. TypeBox checks `pattern` in its own code and, when it lists a refused value's errors,
 * runs the pattern even on a value already too long; a length limit must come first (docs/security.md,
 * "Limits before patterns"). So every string's minLength, maxLength, pattern and format move into one
 * format function that checks, in this order: the length in code units against twice the maximum (a
 * character is one or two code units, so this refuses a 1 MiB value in O(1)), the length in
 * characters, the pattern, then the format. `uri` is checked by the WHATWG URL parser, never by a
 * regular expression.
 */
export const STRING_FORMAT = 'taskgate-string'

interface StringRule { min: number; max: number | null; pattern: RegExp | null; format: string | null }
const rules = new Map<string, StringRule>()

/** The first rule a value breaks, or null (the same order the format function checks them in). */
function broken(r: StringRule, v: string): 'length' | 'pattern' | 'format' | null {
  if (r.max !== null && v.length > 2 * r.max) return 'length'
  if (v.length < r.min) return 'length'
  const n = charLength(v)
  if (n < r.min || (r.max !== null && n > r.max)) return 'length'
  if (r.pattern && (r.pattern.source === NO_NUL_PATTERN ? v.includes('\u0000') : !r.pattern.test(v))) return 'pattern'
  if (r.format && !formatCheck(r.format)(v)) return 'format'
  return null
}

/** `uri`: what the WHATWG URL parser accepts; any other format: the registered check (Elysia's). */
function formatCheck(name: string): (v: string) => boolean {
  if (name === 'uri') return (v) => URL.canParse(v)
  return FormatRegistry.Get(name) ?? (() => false)
}

function stringFormat(o: Record<string | symbol, unknown>): string {
  const rule: StringRule = {
    min: (o.minLength as number | undefined) ?? 0,
    max: (o.maxLength as number | undefined) ?? null,
    pattern: typeof o.pattern === 'string' ? new RegExp(o.pattern) : null,
    format: typeof o.format === 'string' ? o.format : null,
  }
  const name = `${STRING_FORMAT}:${rule.min}:${rule.max ?? ''}:${rule.format ?? ''}:${rule.pattern?.source ?? ''}`
  if (!rules.has(name)) {
    rules.set(name, rule)
    FormatRegistry.Set(name, (v) => broken(rule, v) === null)
  }
  return name
}

/** Why a value failed a STRING_FORMAT format (for the problem's `errors`), or null for another format. */
export function stringRuleMessage(format: string, value: unknown): string | null {
  const r = rules.get(format)
  if (!r || typeof value !== 'string') return null
  switch (broken(r, value)) {
    case 'length': return r.max === null ? `must be at least ${r.min} characters long` : `must be ${r.min} to ${r.max} characters long`
    case 'pattern': return r.pattern!.source === NO_NUL_PATTERN ? 'must not contain the character U+0000 (NUL)' : `must match the pattern ${r.pattern!.source}`
    case 'format': return r.format === 'uri' ? 'must be a URL' : `must be a ${r.format}`
    default: return 'invalid value'
  }
}

/** The copy Elysia compiles: the enforced form, string rules in one safe format, without the handler-enforced object keywords. */
export function validatorSchema(schema: TSchema, where: Where): TSchema {
  const s = requestSchema(schema, where)
  const adapt = (v: unknown): void => {
    if (Array.isArray(v)) { v.forEach(adapt); return }
    if (!v || typeof v !== 'object') return
    const o = v as Record<string | symbol, unknown>
    if (o[Kind] === 'Object') for (const k of DOC_ONLY_KEYWORDS) delete o[k]
    // Elysia's custom-error keyword: with it, Elysia's ValidationError takes this short text as its
    // message instead of pretty-printing the refused value and its errors into one (~50 ms for a
    // 1 MiB body, spent on a message nobody reads: http/app.ts answers from the errors themselves).
    if (typeof o[Kind] === 'string') o.error = 'invalid value'
    if (o[Kind] === 'String' && ['minLength', 'maxLength', 'pattern', 'format'].some((k) => o[k] !== undefined)) {
      o.format = stringFormat(o)
      delete o.minLength
      delete o.maxLength
      delete o.pattern
    }
    for (const k of Object.keys(o)) adapt(o[k])
  }
  adapt(s)
  return s
}
