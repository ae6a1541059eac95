// The database template (src/db/template.ts): a new data dir's taskgate.db copied from it equals,
// object for object and row for row, one the migrations build, with the clock values of the time
// of the copy; an existing database is never replaced; no migration reads the clock or randomness
// where the copy would freeze it at build time.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrate, openDb } from '../../src/db'
import { journalEntries, sqlByTag } from '../../src/db/migrations'
import { buildTemplate, CLOCK_VALUES, installTemplate } from '../../src/db/template'

let dir: string
let template: Uint8Array
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tg-template-'))
  buildTemplate(join(dir, 'template.db'))
  template = readFileSync(join(dir, 'template.db'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const objects = (d: Database) => d.query("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").all()
const tables = (d: Database) => (d.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[]).map((t) => t.name)
const rows = (d: Database, table: string) => (d.query(`SELECT * FROM ${table}`).all() as Record<string, unknown>[]).map((r) => JSON.stringify(r)).sort()
const pragma = (d: Database, name: string) => d.query(`PRAGMA ${name}`).get()

describe('installTemplate', () => {
  test('the copy equals a migrated database: objects, recorded migrations, rows, pragmas; its clock values are the copy\'s', () => {
    mkdirSync(join(dir, 'migrated'))
    const migrated = openDb(join(dir, 'migrated'))
    const now = Date.UTC(2026, 10, 25, 12, 0, 0, 789)
    try {
      expect(migrate(migrated)).toBe(journalEntries.length)
      const path = join(dir, 'taskgate.db')
      expect(installTemplate(template, path, now)).toBe(journalEntries.length)
      const copy = openDb(dir)
      try {
        expect(migrate(copy)).toBe(0) // nothing left to apply
        const a = copy.$client, b = migrated.$client
        expect(objects(a).length).toBeGreaterThan(100)
        expect(objects(a)).toEqual(objects(b))
        expect(tables(a)).toEqual(tables(b))
        for (const name of ['journal_mode', 'page_size', 'user_version', 'application_id', 'auto_vacuum', 'encoding']) expect({ name, v: pragma(a, name) }).toEqual({ name, v: pragma(b, name) })
        const clock = new Set<string>(CLOCK_VALUES.map((v) => v.table))
        for (const t of tables(a)) if (!clock.has(t)) expect({ t, rows: rows(a, t) }).toEqual({ t, rows: rows(b, t) })
        for (const v of CLOCK_VALUES) {
          const strip = (d: Database) => (d.query(`SELECT * FROM ${v.table}`).all() as Record<string, unknown>[]).map(({ [v.column]: _, ...rest }) => JSON.stringify(rest)).sort()
          expect(strip(a)).toEqual(strip(b))
          const values = (a.query(`SELECT ${v.column} AS x FROM ${v.table}`).all() as { x: number }[]).map((r) => r.x)
          expect(values.length).toBeGreaterThan(0)
          for (const x of values) expect(x).toBe(Date.UTC(2026, 10, 25, 12, 0, 0)) // whole seconds, as the migration writes them
        }
        expect(a.query('PRAGMA integrity_check').get()).toEqual({ integrity_check: 'ok' })
        // a working database: foreign keys enforced, writes commit
        expect(() => a.run("INSERT INTO api_keys (id, operator_id, key_hash, first4, last4, rate_limit_rpm, created_at) VALUES ('k', 'nobody', 'h', 'a', 'b', 1, 0)")).toThrow(/FOREIGN KEY/)
        a.run("INSERT INTO meta (key, value) VALUES ('x', 'y')")
      } finally { copy.$client.close() }
      expect(readdirSync(dir).filter((f) => f.includes('.new-'))).toEqual([]) // no temporary file left
    } finally { migrated.$client.close() }
  })

  test('an existing database is never replaced', () => {
    const path = join(dir, 'taskgate.db')
    writeFileSync(path, 'not a template')
    expect(installTemplate(template, path, Date.now())).toBe(0)
    expect(readFileSync(path, 'utf8')).toBe('not a template')
    mkdirSync(join(dir, 'other'))
    const db = openDb(join(dir, 'other'))
    try {
      migrate(db)
      db.$client.run("INSERT INTO meta (key, value) VALUES ('mine', '1')")
    } finally { db.$client.close() }
    expect(installTemplate(template, join(dir, 'other', 'taskgate.db'), Date.now())).toBe(0)
    const again = openDb(join(dir, 'other'))
    try { expect(again.$client.query("SELECT value FROM meta WHERE key = 'mine'").get()).toEqual({ value: '1' }) } finally { again.$client.close() }
  })
})

describe('the migrations and the template', () => {
  // A statement that reads the clock or randomness outside a trigger body runs once, at build time,
  // when the database comes from the template: its table must be listed in CLOCK_VALUES.
  const CLOCK = /'now'|current_(timestamp|date|time)\b|\brandom(blob)?\s*\(|\bjulianday\s*\(\s*\)|\bunixepoch\s*\(\s*\)/i
  test('every migration statement that reads the clock writes a CLOCK_VALUES column, and nothing else does', () => {
    const found: string[] = []
    for (const e of journalEntries) {
      for (const stmt of sqlByTag[e.tag]!.split('--> statement-breakpoint')) {
        const s = stmt.replace(/--[^\n]*/g, '').trim()
        if (!s || /^CREATE\s+TRIGGER/i.test(s) || !CLOCK.test(s)) continue
        const table = /^(?:INSERT\s+(?:OR\s+\w+\s+)?INTO|UPDATE)\s+[`"]?(\w+)/i.exec(s)?.[1] ?? `(not an INSERT or UPDATE: ${s.slice(0, 60)})`
        found.push(table)
      }
    }
    expect(found.length).toBeGreaterThan(0) // the check sees the seeded Terms of Service
    expect([...new Set(found)].sort()).toEqual([...new Set(CLOCK_VALUES.map((v) => v.table))].sort())
  })
})
