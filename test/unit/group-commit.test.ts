// GroupCommitter on a real SQLite file: callers of one event-loop turn share one transaction, each
// in its own savepoint (a failing one undoes only its own writes), a lone caller runs in a
// transaction of its own and fails alone, and every caller resolves only once its writes are
// committed (a second connection sees them).
import { Database } from 'bun:sqlite'
import { afterEach, beforeEach, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { GroupCommitter } from '../../src/db/group-commit'
import { SqliteTransactor } from '../../src/db/transactor'

let dir: string
let db: Database
let other: Database
let group: GroupCommitter
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tg-group-'))
  db = new Database(join(dir, 'g.db'))
  db.run('PRAGMA journal_mode = WAL')
  db.run('CREATE TABLE t (k TEXT PRIMARY KEY)')
  other = new Database(join(dir, 'g.db'), { readonly: true })
  group = new GroupCommitter(new SqliteTransactor(db))
})
afterEach(() => {
  other.close()
  db.close()
  rmSync(dir, { recursive: true, force: true })
})

const insert = (k: string) => () => { db.query('INSERT INTO t (k) VALUES (?1)').run(k); return k }
const seen = () => (other.query('SELECT k FROM t ORDER BY k').all() as { k: string }[]).map((r) => r.k)

test('callers of one turn share one transaction; a failing one undoes only its own writes', async () => {
  const results = await Promise.allSettled([
    group.run(insert('a')),
    group.run(() => { insert('b')(); throw new Error('b fails') }),
    group.run(insert('c')),
  ])
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
  expect((results[1] as PromiseRejectedResult).reason.message).toBe('b fails')
  expect(seen()).toEqual(['a', 'c'])
  expect(db.inTransaction).toBe(false)
})

test('a lone caller commits in a transaction of its own, visible to another connection when it resolves', async () => {
  const k = await group.run(() => { const v = insert('lone')(); expect(db.inTransaction).toBe(true); return v })
  expect(k).toBe('lone')
  expect(seen()).toEqual(['lone'])
})

test('a lone caller that fails is rejected and leaves nothing written', async () => {
  await expect(group.run(() => { insert('x')(); throw new Error('no') })).rejects.toThrow('no')
  expect(seen()).toEqual([])
  expect(db.inTransaction).toBe(false)
  expect(await group.run(insert('y'))).toBe('y') // the next one works
  expect(seen()).toEqual(['y'])
})

test('each caller resolves only after the shared COMMIT', async () => {
  const order: string[] = []
  await Promise.all(['p', 'q'].map((k) => group.run(insert(k)).then(() => order.push(`${k}: ${seen().join(',')}`))))
  expect(order).toEqual(['p: p,q', 'q: p,q'])
})

test('afterCommit: runs for each committed caller after the COMMIT, before the microtasks its callback queued and before its promise resolves', async () => {
  const order: string[] = []
  const caller = (k: string, fail = false) => () => {
    insert(k)()
    expect(group.afterCommit(() => order.push(`after ${k} (seen: ${seen().includes(k)})`))).toBe(true)
    queueMicrotask(() => order.push(`microtask ${k}`))
    if (fail) throw new Error(`${k} fails`)
    return k
  }
  const all = Promise.allSettled([group.run(caller('a')), group.run(caller('b', true)), group.run(caller('c'))]).then(() => order.push('settled'))
  await all
  expect(order).toEqual(['after a (seen: true)', 'after c (seen: true)', 'microtask a', 'microtask b', 'microtask c', 'settled'])
  order.length = 0
  await group.run(caller('lone')) // a lone caller too
  expect(order).toEqual(['after lone (seen: true)', 'microtask lone'])
  expect(group.afterCommit(() => order.push('outside'))).toBe(false) // outside a callback: not registered
})

test('afterCommit: nothing runs when the whole transaction is rolled back', async () => {
  const order: string[] = []
  const results = await Promise.allSettled([
    group.run(() => { insert('a')(); group.afterCommit(() => order.push('a')) }),
    group.run(() => { db.run('ROLLBACK'); throw new Error('the transaction is gone') }), // as SQLITE_FULL does
  ])
  expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected'])
  expect(order).toEqual([])
  expect(seen()).toEqual([])
})
