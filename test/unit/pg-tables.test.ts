// PostgreSQL's tables derived from the SQLite schema (src/db/pg/tables.ts): every table, every
// column with its nullability, key and default, the keys and the indexes (partial ones too) carry
// over, with the PostgreSQL type the mapping names.
import { describe, expect, test } from 'bun:test'
import { getTableColumns } from 'drizzle-orm'
import { getTableConfig as pgConfig } from 'drizzle-orm/pg-core'
import { getTableConfig as sqliteConfig, type SQLiteTable } from 'drizzle-orm/sqlite-core'
import * as schema from '../../src/db/schema'
import { pgTablesFrom } from '../../src/db/pg/tables'

const sqliteTables = Object.entries(schema).filter(([, v]) => { try { sqliteConfig(v as SQLiteTable); return true } catch { return false } }) as [string, SQLiteTable][]
const pg = pgTablesFrom(schema)

const PG_TYPE: Record<string, string> = { SQLiteText: 'text', SQLiteTextJson: 'text', SQLiteInteger: 'bigint', SQLiteBoolean: 'boolean', SQLiteReal: 'double precision', SQLiteBlobBuffer: 'bytea', SQLiteCustomColumn: 'bytea' }

describe('PostgreSQL tables from the SQLite schema', () => {
  test('every table is there, under the same export name and table name', () => {
    expect(sqliteTables.length).toBeGreaterThan(30)
    expect(Object.keys(pg).sort()).toEqual(sqliteTables.map(([k]) => k).sort())
    for (const [key, t] of sqliteTables) expect(pgConfig(pg[key]!).name).toBe(sqliteConfig(t).name)
  })

  test('columns keep their names, nullability, primary keys and defaults; types follow the mapping', () => {
    for (const [key, t] of sqliteTables) {
      const from = getTableColumns(t)
      const to = getTableColumns(pg[key]!)
      expect(Object.keys(to)).toEqual(Object.keys(from))
      for (const [k, c] of Object.entries(from)) {
        const p = to[k]!
        const where = `${key}.${k}`
        expect([where, p.name]).toEqual([where, c.name])
        expect([where, p.getSQLType()]).toEqual([where, where === 'tasks.verification' ? 'text' : PG_TYPE[c.columnType]])
        expect([where, p.primary]).toEqual([where, c.primary])
        const auto = (c as { autoIncrement?: boolean }).autoIncrement === true
        expect([where, p.notNull]).toEqual([where, c.notNull || auto])
        expect([where, p.hasDefault]).toEqual([where, c.hasDefault])
      }
    }
  })

  test('composite keys, foreign keys and indexes (with their WHERE) carry over by name', () => {
    let partial = 0
    for (const [key, t] of sqliteTables) {
      const a = sqliteConfig(t)
      const b = pgConfig(pg[key]!)
      expect(b.primaryKeys.map((k) => k.columns.map((c) => c.name))).toEqual(a.primaryKeys.map((k) => k.columns.map((c) => c.name)))
      expect(b.foreignKeys.map((f) => f.reference().foreignColumns.map((c) => c.name))).toEqual(a.foreignKeys.map((f) => f.reference().foreignColumns.map((c) => c.name)))
      expect(b.indexes.map((i) => [i.config.name, i.config.unique, (i.config.columns as { name: string }[]).map((c) => c.name)]))
        .toEqual(a.indexes.map((i) => [i.config.name, i.config.unique, (i.config.columns as { name: string }[]).map((c) => c.name)]))
      for (const i of b.indexes) if (i.config.where) partial++
    }
    expect(partial).toBeGreaterThan(0)
  })
})
