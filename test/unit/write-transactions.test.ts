// Every transaction the server opens takes SQLite's write lock first (BEGIN IMMEDIATE): a deferred
// one that reads and then writes fails at once with SQLITE_BUSY, without the busy timeout, when
// another process (a CLI command on a live data dir) holds the lock or committed since the read.
// test/http/lock-contention.test.ts shows it over HTTP; this catches a new call site anywhere.
import { expect, test } from 'bun:test'
import { Glob } from 'bun'
import { join } from 'node:path'

const SRC = join(import.meta.dir, '../../src')
/**
 * Read-only transactions (one consistent snapshot for a count and its page): deferred on purpose.
 * Services open them through Transactor.read (src/db/transactor.ts), write ones through
 * Transactor.write, which is BEGIN IMMEDIATE; both are counted here.
 */
const READ_ONLY = ['tasks/list.ts:page', 'db/transactor.ts:read']
/** A service's transaction: `tx.write(` / `this.tx.write(` (Transactor.write, BEGIN IMMEDIATE by construction). */
const TRANSACTOR_WRITE = /\btx\.write\(/g

function calls(text: string): { at: number; call: string; tail: string }[] {
  const out: { at: number; call: string; tail: string }[] = []
  for (let i = text.indexOf('.transaction('); i >= 0; i = text.indexOf('.transaction(', i + 1)) {
    let k = i + '.transaction('.length
    for (let depth = 1; depth > 0; k++) depth += text[k] === '(' ? 1 : text[k] === ')' ? -1 : 0
    out.push({ at: i, call: text.slice(i, k), tail: text.slice(k, k + 12) })
  }
  return out
}

test('every transaction in src/ is BEGIN IMMEDIATE (or a listed read-only one)', async () => {
  const deferred: string[] = []
  let seen = 0
  for await (const file of new Glob('**/*.ts').scan(SRC)) {
    const text = await Bun.file(join(SRC, file)).text()
    for (const c of calls(text)) {
      seen++
      const before = text.slice(0, c.at)
      const fn = [...before.matchAll(/^  (?:async )?(?:private )?(\w+)(?:<[^>]*>)?\(/gm)].pop()?.[1]
      const where = `${file}:${fn}`
      if (c.tail.startsWith('.immediate()') || READ_ONLY.includes(where)) continue
      // drizzle's form runs at once: db.transaction(fn, { behavior: 'immediate' })
      if (c.call.endsWith(", { behavior: 'immediate' })") && !c.tail.startsWith('(')) continue
      deferred.push(`${where} (${c.tail.trim() || 'end'})`)
    }
    seen += text.match(TRANSACTOR_WRITE)?.length ?? 0
  }
  expect(seen).toBeGreaterThan(30)
  expect(deferred).toEqual([])
})
