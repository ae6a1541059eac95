// PostgreSQL's migrations (src/db/pg/migrate.ts) on a throwaway cluster: every file of
// migrations/pg/ is embedded; a fresh database gets the same tables, columns (names, NOT NULL; in any order) and
// indexes as SQLite's after its own migrations; a second run applies nothing; a process that
// migrates holds the others off (advisory lock); an edited migration stops the start.
import { afterAll, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { migrate } from '../../src/db'
import { PgConnection } from '../../src/db/pg/connection'
import { migratePg } from '../../src/db/pg/migrate'
import { PG_MIGRATIONS } from '../../src/db/pg/migrations'
import { ROOT } from '../helpers/server'
import { startPostgres, type Postgres } from '../helpers/postgres'

// null without PostgreSQL installed: skipped with a warning (CI requires it)
const pg: Postgres | null = await startPostgres()
const conn = pg ? new PgConnection(pg.url) : null
afterAll(() => { conn?.close(); pg?.cleanup() })

test('every file of migrations/pg/ is embedded, in order', () => {
  const files = readdirSync(join(ROOT, 'migrations', 'pg')).filter((f) => f.endsWith('.sql')).sort()
  expect(PG_MIGRATIONS.map((m) => `${m.tag}.sql`)).toEqual(files)
})

describe.skipIf(!pg)('PostgreSQL migrations', () => {
  test('a fresh database gets SQLite\'s tables, columns and indexes; a second run applies nothing', () => {
    expect(migratePg(conn!)).toBe(PG_MIGRATIONS.length)
    expect(migratePg(conn!)).toBe(0)

    const sqlite = new Database(':memory:')
    migrate(sqlite)
    const sqliteTables = (sqlite.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '__drizzle_migrations' ORDER BY name").all() as { name: string }[]).map((r) => r.name)
    // (the IPFS blocks, in ipfs.db on SQLite, are in the one database on PostgreSQL: migrations/pg/0003_ipfs_blocks.sql)
    const pgTables = conn!.query<{ name: string }>("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> 'taskgate_migrations' AND table_name NOT LIKE 'ipfs\\_%' ORDER BY table_name").rows.map((r) => r.name)
    expect(pgTables).toEqual(sqliteTables)
    expect(conn!.query<{ name: string }>("SELECT table_name AS name FROM information_schema.tables WHERE table_name LIKE 'ipfs\\_%' ORDER BY 1").rows.map((r) => r.name)).toEqual(['ipfs_blocks', 'ipfs_kv'])
    // columns by name (SQLite appends an added column; the derived tables list them as declared)
    const byName = (cols: (string | boolean)[][]) => cols.sort((x, y) => String(x[0]).localeCompare(String(y[0])))
    for (const t of sqliteTables) {
      const a = (sqlite.query(`SELECT name, "notnull" AS nn, pk FROM pragma_table_info('${t}') ORDER BY cid`).all() as { name: string; nn: number; pk: number }[]).map((c) => [c.name, c.nn === 1 || c.pk > 0])
      const b = conn!.query<{ name: string; nullable: string }>('SELECT column_name AS name, is_nullable AS nullable FROM information_schema.columns WHERE table_schema = \'public\' AND table_name = $1 ORDER BY ordinal_position', [t]).rows.map((c) => [c.name, c.nullable === 'NO'])
      expect([t, byName(b)]).toEqual([t, byName(a)])
    }
    const sqliteIndexes = (sqlite.query("SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex_%' ORDER BY name").all() as { name: string }[]).map((r) => r.name)
    const pgIndexes = conn!.query<{ name: string }>(`SELECT i.relname AS name FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_namespace n ON n.oid = i.relnamespace
      WHERE n.nspname = 'public' AND NOT x.indisprimary AND i.relname NOT LIKE 'ipfs\\_%' ORDER BY i.relname COLLATE "C"`).rows.map((r) => r.name)
    expect(pgIndexes).toEqual(sqliteIndexes)
    sqlite.close()
  })

  test('a process that migrates holds the others off; once it is done they find nothing to do', () => {
    const other = new PgConnection(pg!.url)
    try {
      other.query('SELECT pg_advisory_lock($1)', [0x7461736b67617465n.toString()])
      const t0 = performance.now()
      expect(() => migratePg(conn!, { waitMs: 300 })).toThrow('another process is applying the database migrations')
      expect(performance.now() - t0).toBeGreaterThanOrEqual(250)
      other.query('SELECT pg_advisory_unlock($1)', [0x7461736b67617465n.toString()])
      expect(migratePg(conn!, { waitMs: 300 })).toBe(0)
    } finally { other.close() }
  })

  test('a recorded migration whose content changed stops the start', () => {
    conn!.query('UPDATE taskgate_migrations SET sha256 = $1 WHERE tag = $2', ['0'.repeat(64), PG_MIGRATIONS[0]!.tag])
    expect(() => migratePg(conn!)).toThrow('a released migration is never edited')
  })
})
