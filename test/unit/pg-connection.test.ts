// The synchronous PostgreSQL connection (src/db/pg/connection.ts) against a throwaway cluster:
// queries with parameters, rows as objects or values, row counts, the server's refusals with their
// SQLSTATE, a transaction rolled back, the server's statement timeout, and the database going away
// (DatabaseUnavailable within the timeout, no hang) and coming back (the next query reconnects).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { DatabaseUnavailable, PgConnection, PgError } from '../../src/db/pg/connection'
import { startPostgres, type Postgres } from '../helpers/postgres'

// null without PostgreSQL installed: the tests below are skipped with a warning (CI requires it)
const pg: Postgres | null = await startPostgres()
let db: PgConnection

// downForMs 0: asks again at once after a failure (the half-second pause is checked with \`wary\`)
beforeAll(() => { if (pg) db = new PgConnection(pg.url, { timeoutMs: 1500, connectTimeoutS: 2, downForMs: 0 }) })
afterAll(() => { db?.close(); pg?.cleanup() })

describe.skipIf(!pg)('PgConnection', () => {
  test('queries with parameters; rows as objects or as values; the count of rows a write changed', () => {
    db.query('CREATE TABLE t (id text PRIMARY KEY, n integer NOT NULL, at bigint)')
    expect(db.query('INSERT INTO t VALUES ($1, $2, $3), ($4, $5, $6)', ['a', 1, 1_700_000_000_000, 'b', 2, null]).count).toBe(2)
    expect(db.query<{ id: string; n: number }>('SELECT id, n FROM t WHERE n >= $1 ORDER BY id', [1]).rows).toEqual([{ id: 'a', n: 1 }, { id: 'b', n: 2 }])
    expect(db.values('SELECT n, id FROM t ORDER BY n').rows).toEqual([[1, 'a'], [2, 'b']])
    expect(db.query('UPDATE t SET n = n + 1 WHERE n > $1', [0]).count).toBe(2)
    // int8 and numeric come back as numbers, as SQLite's integers do (ids, ms timestamps, sums: within 2^53)
    expect(db.query<{ at: number | null }>('SELECT at FROM t ORDER BY id').rows).toEqual([{ at: 1_700_000_000_000 }, { at: null }])
    expect(db.values('SELECT count(*), sum(at) FROM t').rows).toEqual([[2, 1_700_000_000_000]])
    // a number parameter is untyped text: PostgreSQL reads it as its place needs (1 into a boolean)
    expect(db.query<{ b: boolean }>('SELECT $1::boolean AS b', [1]).rows).toEqual([{ b: true }])
  })

  test('a statement the server refuses throws PgError with its SQLSTATE; the connection goes on', () => {
    const e = (() => { try { db.query('SELECT nope FROM t') } catch (x) { return x } })()
    expect(e).toBeInstanceOf(PgError)
    expect((e as PgError).sqlState).toBe('42703')
    const dup = (() => { try { db.query('INSERT INTO t VALUES ($1, 0, null)', ['a']) } catch (x) { return x } })()
    expect((dup as PgError).sqlState).toBe('23505')
    expect(db.query('SELECT count(*)::int AS n FROM t').rows[0]).toEqual({ n: 2 })
  })

  test('a transaction is the connection\'s: BEGIN … ROLLBACK leaves nothing', () => {
    db.query('BEGIN')
    db.query('INSERT INTO t VALUES ($1, 9, null)', ['c'])
    expect(db.query('SELECT count(*)::int AS n FROM t').rows[0]).toEqual({ n: 3 })
    db.query('ROLLBACK')
    expect(db.query('SELECT count(*)::int AS n FROM t').rows[0]).toEqual({ n: 2 })
  })

  test('a statement longer than the timeout is cancelled by the server (57014), well before the wait ends', () => {
    const t0 = performance.now()
    const e = (() => { try { db.query('SELECT pg_sleep(10)') } catch (x) { return x } })()
    expect((e as PgError).sqlState).toBe('57014')
    expect(performance.now() - t0).toBeLessThan(3000)
    expect(db.query('SELECT 1 AS one').rows).toEqual([{ one: 1 }])
  })

  test('the database gone: DatabaseUnavailable within the timeout, never a hang; back: the next query reconnects', () => {
    const wary = new PgConnection(pg!.url, { downForMs: 60_000 })
    expect(wary.query('SELECT 1 AS one').rows).toEqual([{ one: 1 }])
    pg!.stop()
    // once it found the database gone, it does not ask again for downForMs: every query fails at once
    expect((() => { try { wary.query('SELECT 1') } catch (x) { return x } })()).toBeInstanceOf(DatabaseUnavailable)
    const w0 = performance.now()
    for (let i = 0; i < 5; i++) expect((() => { try { wary.query('SELECT 1') } catch (x) { return x } })()).toBeInstanceOf(DatabaseUnavailable)
    expect(performance.now() - w0).toBeLessThan(50)
    wary.close()
    const t0 = performance.now()
    const e = (() => { try { db.query('SELECT 1 AS one') } catch (x) { return x } })()
    expect(e).toBeInstanceOf(DatabaseUnavailable)
    expect(performance.now() - t0).toBeLessThan(5000) // timeout 1.5 s + 0.5 s + connect 2 s at most
    const again = (() => { try { db.query('SELECT 1 AS one') } catch (x) { return x } })()
    expect(again).toBeInstanceOf(DatabaseUnavailable)
    pg!.start()
    expect(db.query('SELECT 1 AS one').rows).toEqual([{ one: 1 }])
    expect(db.query('SELECT count(*)::int AS n FROM t').rows[0]).toEqual({ n: 2 })
  }, 30_000)
})
