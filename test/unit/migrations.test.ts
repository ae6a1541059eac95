// Migrations: every file drizzle-kit writes to migrations/ must be in the journal and embedded in
// src/db/migrations.ts (a forgotten import fails here, not in production), migrate() is idempotent,
// and the migrated schema matches the drizzle table definitions.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { getTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core'
import { migrate as drizzleMigrate } from 'drizzle-orm/bun-sqlite/migrator'
import { migrate, openDatabase, openDb, type Db } from '../../src/db'
import { journalEntries, sqlByTag } from '../../src/db/migrations'
import * as schema from '../../src/db/schema'

const MIGRATIONS = resolve(import.meta.dir, '../../migrations')
const sqlFiles = readdirSync(MIGRATIONS).filter((f) => f.endsWith('.sql')).sort()
const journal = JSON.parse(readFileSync(join(MIGRATIONS, 'meta/_journal.json'), 'utf8')) as { version: string; dialect: string; entries: { idx: number; tag: string; when: number }[] }
const tagOf = (file: string) => file.slice(0, -'.sql'.length)

let dir: string
let db: Db
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tg-migrations-'))
  db = openDb(dir)
})
afterEach(() => {
  db.$client.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('migration files', () => {
  test('there is at least one migration file', () => {
    expect(sqlFiles.length).toBeGreaterThan(0)
  })

  test('every *.sql file has a journal entry', () => {
    const tags = new Set(journal.entries.map((e) => e.tag))
    expect(sqlFiles.filter((f) => !tags.has(tagOf(f)))).toEqual([])
  })

  test('every *.sql file is embedded in sqlByTag (src/db/migrations.ts)', () => {
    expect(sqlFiles.filter((f) => sqlByTag[tagOf(f)] === undefined)).toEqual([])
  })

  test('every journal entry has its file and its embedded text, and nothing extra is embedded', () => {
    expect(journal.entries.map((e) => `${e.tag}.sql`).filter((f) => !sqlFiles.includes(f))).toEqual([])
    expect(Object.keys(sqlByTag).sort()).toEqual(sqlFiles.map(tagOf))
  })

  test('the embedded text is the file on disk', () => {
    for (const f of sqlFiles) expect(sqlByTag[tagOf(f)]).toBe(readFileSync(join(MIGRATIONS, f), 'utf8'))
  })

  test('the journal src/db/migrations.ts exports is the one on disk, in order', () => {
    expect(journalEntries.map((e) => e.tag)).toEqual(journal.entries.map((e) => e.tag))
    expect(journal.entries.map((e) => e.idx)).toEqual(journal.entries.map((_, i) => i))
    const whens = journal.entries.map((e) => e.when)
    expect(whens).toEqual([...whens].sort((a, b) => a - b))
    expect(journal.entries.map((e) => e.tag)).toEqual(sqlFiles.map(tagOf)) // NNNN_ prefixes follow idx
  })
})

describe('migrate()', () => {
  test('applies every migration to a fresh database, then nothing the second time', () => {
    expect(migrate(db)).toBe(journalEntries.length)
    expect(migrate(db)).toBe(0)
    const n = db.$client.query('SELECT count(*) AS n FROM __drizzle_migrations').get() as { n: number }
    expect(n.n).toBe(journalEntries.length)
  })

  test('a reopened database is not migrated again', () => {
    migrate(db)
    db.$client.close()
    db = openDb(dir)
    expect(migrate(db)).toBe(0)
  })

  test('creates the expected tables', () => {
    migrate(db)
    const tables = (db.$client.query("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]).map((r) => r.name)
    for (const t of ['operators', 'api_keys', 'jobs', 'meta']) expect(tables).toContain(t)
  })

  test('the migrated columns and indexes match the drizzle schema (schema.ts and migrations/ agree)', () => {
    migrate(db)
    const tables = (Object.values(schema) as unknown[]).filter((v): v is SQLiteTable => v instanceof SQLiteTable)
    expect(tables.length).toBeGreaterThanOrEqual(4)
    for (const t of tables) {
      const cfg = getTableConfig(t)
      const cols = (db.$client.query(`PRAGMA table_info(${JSON.stringify(cfg.name)})`).all() as { name: string; notnull: number; pk: number }[])
      expect({ table: cfg.name, cols: cols.map((c) => c.name).sort() }).toEqual({ table: cfg.name, cols: cfg.columns.map((c) => c.name).sort() })
      for (const c of cfg.columns) {
        const dbCol = cols.find((x) => x.name === c.name)!
        expect({ col: `${cfg.name}.${c.name}`, notNull: dbCol.notnull === 1 || dbCol.pk === 1 }).toEqual({ col: `${cfg.name}.${c.name}`, notNull: c.notNull || c.primary })
      }
      const indexes = (db.$client.query(`PRAGMA index_list(${JSON.stringify(cfg.name)})`).all() as { name: string; unique: number; origin: string }[])
        .filter((i) => i.origin === 'c')
      expect(indexes.map((i) => `${i.name}:${i.unique}`).sort()).toEqual(cfg.indexes.map((i) => `${i.config.name}:${i.config.unique ? 1 : 0}`).sort())
    }
  })
})

describe('migrate() and drizzle-orm\'s own migrator', () => {
  // (the migrations table's CREATE statement differs in layout only: drizzle's is indented over lines)
  const objects = (d: Db) => (d.$client.query("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name").all() as { sql: string | null }[])
    .map((o) => ({ ...o, sql: o.sql?.replace(/\s+/g, ' ').replace(/\( /g, '(').replace(/ \)/g, ')') }))
  const recorded = (d: Db) => d.$client.query('SELECT hash, created_at FROM __drizzle_migrations ORDER BY created_at').all()
  const rows = (d: Db, table: string, except: string[] = []) => (d.$client.query(`SELECT * FROM ${table}`).all() as Record<string, unknown>[])
    .map((r) => JSON.stringify(Object.fromEntries(Object.entries(r).filter(([k]) => !except.includes(k))))).sort()
  let other: Db
  let otherDir: string
  beforeEach(() => { otherDir = mkdtempSync(join(tmpdir(), 'tg-migrations-drizzle-')); other = openDb(otherDir) })
  afterEach(() => { other.$client.close(); rmSync(otherDir, { recursive: true, force: true }) })

  test('a fresh database: the same schema objects, the same recorded migrations (hash, created_at), the same rows', () => {
    drizzleMigrate(other, { migrationsFolder: MIGRATIONS })
    expect(migrate(db)).toBe(journalEntries.length)
    expect(objects(db).length).toBeGreaterThan(50)
    expect(objects(db)).toEqual(objects(other))
    expect(recorded(db)).toEqual(recorded(other))
    expect(recorded(db)).toHaveLength(journalEntries.length)
    const tables = (objects(db) as unknown as { type: string; name: string }[]).filter((o) => o.type === 'table' && o.name !== '__drizzle_migrations').map((o) => o.name)
    for (const t of tables) expect({ t, rows: rows(db, t, ['created_at']) }).toEqual({ t, rows: rows(other, t, ['created_at']) })
    expect(rows(db, 'tos_versions').length).toBe(1) // the seeded Terms of Service
  })

  test('a database drizzle migrated up to the one before the last gets only the last, once', () => {
    const folder = join(otherDir, 'migrations')
    cpSync(MIGRATIONS, folder, { recursive: true })
    writeFileSync(join(folder, 'meta/_journal.json'), JSON.stringify({ ...journal, entries: journal.entries.slice(0, -1) }))
    drizzleMigrate(other, { migrationsFolder: folder })
    expect(recorded(other)).toHaveLength(journalEntries.length - 1)
    expect(migrate(other)).toBe(1)
    expect(migrate(other)).toBe(0)
    migrate(db)
    expect(objects(other)).toEqual(objects(db))
    expect(recorded(other)).toEqual(recorded(db))
  })

  test('what it applied, drizzle\'s migrator finds nothing left to apply in', () => {
    migrate(db)
    const before = recorded(db)
    drizzleMigrate(db, { migrationsFolder: MIGRATIONS })
    expect(recorded(db)).toEqual(before)
  })

  test('two connections to one database: the second applies nothing', () => {
    const second = openDb(dir)
    try {
      expect(migrate(db)).toBe(journalEntries.length)
      expect(migrate(second)).toBe(0)
      expect(recorded(second)).toHaveLength(journalEntries.length)
    } finally { second.$client.close() }
  })
})

describe('openDatabase', () => {
  test('turns on WAL, foreign keys, a busy timeout and synchronous NORMAL', () => {
    const sqlite = openDatabase(join(dir, 'other.db'))
    try {
      expect(sqlite.query('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' })
      expect(sqlite.query('PRAGMA foreign_keys').get()).toEqual({ foreign_keys: 1 })
      expect(sqlite.query('PRAGMA busy_timeout').get()).toEqual({ timeout: 5000 })
      expect(sqlite.query('PRAGMA synchronous').get()).toEqual({ synchronous: 1 })
    } finally { sqlite.close() }
  })

  test('openDb uses it: the pragmas hold on the service database and foreign keys are enforced', () => {
    expect(db.$client.query('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' })
    expect(db.$client.query('PRAGMA foreign_keys').get()).toEqual({ foreign_keys: 1 })
    migrate(db)
    expect(() => db.$client.run(
      "INSERT INTO api_keys (id, operator_id, key_hash, first4, last4, rate_limit_rpm, created_at) VALUES ('k', 'no-such-operator', 'h', 'a', 'b', 1, 0)",
    )).toThrow(/FOREIGN KEY/)
  })
})
