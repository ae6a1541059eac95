// drizzle's PostgreSQL query builder on the synchronous connection (src/db/pg/drizzle.ts), on a
// throwaway cluster: prepared statements with placeholders answer get/all/values/run at once, with
// drizzle's column mapping (bigint as number, boolean), ON CONFLICT … RETURNING, an UPDATE's count.
import { afterAll, describe, expect, test } from 'bun:test'
import { eq, sql } from 'drizzle-orm'
import { bigint, boolean, integer, pgTable, text } from 'drizzle-orm/pg-core'
import { PgConnection } from '../../src/db/pg/connection'
import { syncPgDrizzle, type SyncPgQuery } from '../../src/db/pg/drizzle'
import { startPostgres, type Postgres } from '../helpers/postgres'

// null without PostgreSQL installed: skipped with a warning (CI requires it)
const pg: Postgres | null = await startPostgres()
const conn = pg ? new PgConnection(pg.url) : null
afterAll(() => { conn?.close(); pg?.cleanup() })

const items = pgTable('items', { id: text('id').primaryKey(), n: integer('n').notNull(), at: bigint('at', { mode: 'number' }), ok: boolean('ok').notNull().default(false) })
const p = sql.placeholder

describe.skipIf(!pg)('drizzle on PgConnection', () => {
  test('prepared statements answer at once, mapped by drizzle\'s column types', () => {
    const db = syncPgDrizzle(conn!)
    conn!.query('CREATE TABLE items (id text PRIMARY KEY, n integer NOT NULL, at bigint, ok boolean NOT NULL DEFAULT false)')
    const insert = db.insert(items).values({ id: p('id'), n: p('n'), at: p('at') }).onConflictDoNothing({ target: items.id }).returning({ id: items.id }).prepare('insert') as unknown as SyncPgQuery
    expect(insert.get({ id: 'a', n: 1, at: 1_700_000_000_000 })).toEqual({ id: 'a' })
    expect(insert.get({ id: 'a', n: 5, at: 1 })).toBeUndefined() // the conflict: nothing inserted, nothing returned
    expect(insert.get({ id: 'b', n: 2, at: null })).toEqual({ id: 'b' })
    const one = db.select().from(items).where(eq(items.id, p('id'))).prepare('one') as unknown as SyncPgQuery
    expect(one.get({ id: 'a' })).toEqual({ id: 'a', n: 1, at: 1_700_000_000_000, ok: false })
    expect(typeof (one.get({ id: 'a' }) as { at: unknown }).at).toBe('number')
    const bump = db.update(items).set({ n: sql`${items.n} + 1`, ok: true }).where(eq(items.id, p('id'))).prepare('bump') as unknown as SyncPgQuery
    expect(bump.run({ id: 'a' })).toEqual({ changes: 1 })
    expect(bump.run({ id: 'nobody' })).toEqual({ changes: 0 })
    expect(one.get({ id: 'a' })).toEqual({ id: 'a', n: 2, at: 1_700_000_000_000, ok: true })
    const all = db.select({ id: items.id, n: items.n }).from(items).orderBy(items.id).prepare('all') as unknown as SyncPgQuery
    expect(all.all()).toEqual([{ id: 'a', n: 2 }, { id: 'b', n: 2 }])
    expect(all.values()).toEqual([['a', 2], ['b', 2]])
  })
})
