// ReadCache: a cached row is dropped by the very next write to a table it depends on (through
// this connection), survives writes to other tables, never keeps a row read inside a transaction,
// and sees another connection's writes after its TTL.
import { afterAll, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ReadCache } from '../../src/db/read-cache'

const dir = mkdtempSync(join(tmpdir(), 'read-cache-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function setup(name: string, ttlMs = 60_000) {
  let clock = 0
  const path = join(dir, `${name}.db`)
  const db = new Database(path, { create: true, strict: true })
  db.run('PRAGMA journal_mode = WAL')
  db.run('CREATE TABLE operators (id TEXT PRIMARY KEY, tier TEXT NOT NULL)')
  db.run('CREATE TABLE api_keys (id TEXT PRIMARY KEY, operator_id TEXT NOT NULL)')
  db.run('CREATE TABLE tasks (id TEXT PRIMARY KEY)')
  db.run("INSERT INTO operators VALUES ('op1', 'FREE'), ('op2', 'PRO')")
  let loads = 0
  const cache = new ReadCache<string | null>(db, ['operators', 'api_keys'], ttlMs, 50_000, () => clock)
  const read = (id: string) => cache.get(id, () => { loads++; return (db.query('SELECT tier FROM operators WHERE id = ?1').get(id) as { tier: string } | null)?.tier ?? null })
  return { db, path, read, loads: () => loads, advance: (ms: number) => { clock += ms } }
}

describe('ReadCache', () => {
  test('a hit needs no read; writes to other tables keep the entries', () => {
    const { db, read, loads } = setup('hits')
    expect(read('op1')).toBe('FREE')
    expect(read('op1')).toBe('FREE')
    expect(loads()).toBe(1)
    db.run("INSERT INTO tasks VALUES ('t1')")
    db.run("UPDATE tasks SET id = 't2'")
    expect(read('op1')).toBe('FREE')
    expect(loads()).toBe(1)
  })

  test('every kind of write to a watched table is seen by the next read', () => {
    const { db, read, loads } = setup('writes')
    expect(read('op1')).toBe('FREE')
    db.run("UPDATE operators SET tier = 'ENTERPRISE' WHERE id = 'op1'")
    expect(read('op1')).toBe('ENTERPRISE')
    db.run("DELETE FROM operators WHERE id = 'op1'")
    expect(read('op1')).toBeNull()
    db.run("INSERT INTO operators VALUES ('op1', 'PRO')")
    expect(read('op1')).toBe('PRO')
    expect(read('op2')).toBe('PRO')
    db.run("INSERT INTO api_keys VALUES ('k1', 'op2')") // the second watched table
    const before = loads()
    expect(read('op2')).toBe('PRO')
    expect(loads()).toBe(before + 1)
  })

  test('a row read inside a transaction that rolls back is never served', () => {
    const { db, read } = setup('rollback')
    expect(read('op1')).toBe('FREE')
    expect(() => db.transaction(() => {
      db.run("UPDATE operators SET tier = 'ENTERPRISE' WHERE id = 'op1'")
      expect(read('op1')).toBe('ENTERPRISE') // this transaction sees its own write
      throw new Error('roll back')
    })()).toThrow('roll back')
    // A later transaction moves the count by the same amount and commits another value.
    db.transaction(() => { db.run("UPDATE operators SET tier = 'PRO' WHERE id = 'op1'") })()
    expect(read('op1')).toBe('PRO')
    expect(() => db.transaction(() => { read('op2'); throw new Error('again') })()).toThrow('again')
    expect(read('op1')).toBe('PRO')
    // Read inside a transaction that rolls back, then outside it, then a commit of the same size.
    expect(() => db.transaction(() => {
      db.run("UPDATE operators SET tier = 'FREE' WHERE id = 'op1'")
      expect(read('op1')).toBe('FREE')
      throw new Error('roll back again')
    })()).toThrow('roll back again')
    expect(read('op1')).toBe('PRO')
    db.run("UPDATE operators SET tier = 'ENTERPRISE' WHERE id = 'op1'")
    expect(read('op1')).toBe('ENTERPRISE')
  })

  test("another connection's write is seen after the TTL", () => {
    const { path, read, advance } = setup('ttl', 30)
    expect(read('op1')).toBe('FREE')
    const other = new Database(path, { strict: true })
    other.run("UPDATE operators SET tier = 'PRO' WHERE id = 'op1'")
    other.close()
    expect(read('op1')).toBe('FREE') // not this connection's write: cached until the TTL
    advance(29)
    expect(read('op1')).toBe('FREE')
    advance(2)
    expect(read('op1')).toBe('PRO')
  })

  test('a watch on some columns ignores UPDATEs of the others, not INSERTs or DELETEs', () => {
    const db = new Database(join(dir, 'columns.db'), { create: true, strict: true })
    db.run('CREATE TABLE agents (id TEXT PRIMARY KEY, status TEXT NOT NULL, total INTEGER NOT NULL)')
    db.run("INSERT INTO agents VALUES ('a1', 'ACTIVE', 0)")
    let loads = 0
    const cache = new ReadCache<string | null>(db, [{ table: 'agents', columns: ['status'], as: 'agents_status' }])
    const read = (id: string) => cache.get(id, () => { loads++; return (db.query('SELECT status FROM agents WHERE id = ?1').get(id) as { status: string } | null)?.status ?? null })
    expect(read('a1')).toBe('ACTIVE')
    db.run("UPDATE agents SET total = total + 1 WHERE id = 'a1'")
    expect(read('a1')).toBe('ACTIVE')
    expect(loads).toBe(1)
    db.run("UPDATE agents SET status = 'ARCHIVED' WHERE id = 'a1'")
    expect(read('a1')).toBe('ARCHIVED')
    db.run("INSERT INTO agents VALUES ('a2', 'ACTIVE', 0)")
    expect(read('a2')).toBe('ACTIVE')
    db.run("DELETE FROM agents WHERE id = 'a1'")
    expect(read('a1')).toBeNull()
    expect(loads).toBe(4)
    expect(() => new ReadCache(db, [{ table: 'agents', columns: ['status; DROP TABLE agents'], as: 'x' }])).toThrow('not a table or column name')
  })
})
