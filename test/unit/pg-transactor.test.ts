// PostgreSQL transactions (src/db/pg/transactor.ts) on a throwaway cluster: nested calls are
// savepoints (an inner failure leaves the outer's writes), and lock(key) makes a second
// transaction wait for the first one holding the same key (here it gives up at its timeout:
// 55P03 or 57014), while another key is free, and the key is free again once the holder commits. This is
// what keeps two replicas from both passing a count-then-insert limit (Transactor.lock).
import { afterAll, describe, expect, test } from 'bun:test'
import { PgConnection, PgError } from '../../src/db/pg/connection'
import { PgTransactor } from '../../src/db/pg/transactor'
import { startPostgres, type Postgres } from '../helpers/postgres'

const pg: Postgres | null = await startPostgres()
const one = pg ? new PgConnection(pg.url, { timeoutMs: 300 }) : null
const two = pg ? new PgConnection(pg.url, { timeoutMs: 300 }) : null
afterAll(() => { one?.close(); two?.close(); pg?.cleanup() })

describe.skipIf(!pg)('PgTransactor', () => {
  test('nested writes are savepoints: an inner failure is undone alone', () => {
    const tx = new PgTransactor(one!)
    one!.query('CREATE TABLE n (v integer)')
    tx.write(() => {
      one!.query('INSERT INTO n VALUES (1)')
      expect(() => tx.write(() => { one!.query('INSERT INTO n VALUES (2)'); throw new Error('inner') })).toThrow('inner')
      expect(tx.inTransaction()).toBe(true)
    })
    expect(one!.query('SELECT v FROM n').rows).toEqual([{ v: 1 }])
  })

  test('lock(key): a second transaction on the same key waits for the first (here: gives up at its timeout); another key is free', () => {
    const a = new PgTransactor(one!)
    const b = new PgTransactor(two!)
    a.write(() => {
      a.lock('limits:op_1')
      const blocked = (() => { try { b.write(() => b.lock('limits:op_1')); return null } catch (e) { return e } })()
      expect(blocked).toBeInstanceOf(PgError)
      expect(['55P03', '57014']).toContain((blocked as PgError).sqlState) // lock or statement timeout, whichever ends the wait first (both 503 DATABASE_BUSY)
      expect(() => b.write(() => b.lock('limits:op_2'))).not.toThrow()
    })
    // released with the holder's commit
    expect(() => b.write(() => b.lock('limits:op_1'))).not.toThrow()
    // outside a transaction it does nothing (it would end at once)
    expect(() => a.lock('limits:op_1')).not.toThrow()
  })
})
