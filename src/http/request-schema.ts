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
  if (o.type === 'object' && !('additionalProperties' in o) && !('patternProperties' in o)) {
    o.additionalProperties = where === 'query' && root
  }
  return o
}

/** The enforced form of a route's params, query or body schema (a fresh copy each call). */
export function requestSchema(schema: TSchema, where: Where): TSchema {
  return strict(cloneSchema(schema), true, where) as TSchema
}


/** Format names standing for "minLength/maxLength in characters" in the copies Elysia compiles. */
export const LENGTH_FORMAT = 'taskgate-length'
const lengthFormat = (min: number, max: number | null): string => {
  const name = `${LENGTH_FORMAT}:${min}:${max ?? ''}`
  if (!FormatRegistry.Has(name)) FormatRegistry.Set(name, (v) => { const n = charLength(v); return n >= min && (max === null || n <= max) })
  return name
}

/** The copy Elysia compiles: the enforced form, lengths in characters, without the handler-enforced object keywords. */
export function validatorSchema(schema: TSchema, where: Where): TSchema {
  const s = requestSchema(schema, where)
  const adapt = (v: unknown): void => {
    if (Array.isArray(v)) { v.forEach(adapt); return }
    if (!v || typeof v !== 'object') return
    const o = v as Record<string | symbol, unknown>
    if (o[Kind] === 'Object') for (const k of DOC_ONLY_KEYWORDS) delete o[k]
    if (o[Kind] === 'String' && o.format === undefined && (typeof o.minLength === 'number' || typeof o.maxLength === 'number')) {
      o.format = lengthFormat((o.minLength as number | undefined) ?? 0, (o.maxLength as number | undefined) ?? null)
      delete o.minLength
      delete o.maxLength
    }
    for (const k of Object.keys(o)) adapt(o[k])
  }
  adapt(s)
  return s
}
