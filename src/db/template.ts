// A new data dir's taskgate.db is a copy of an empty database that the build made by running the
// same migrations (scripts/build.ts embeds it in the binary) instead of running them at the first
// start: ~120 DDL statements cost ~12 ms of SQLite's CPU here, and the checkpoint after them a few
// ms of syncs (docs/performance.md, Start-up). From a checkout there is no template and the
// migrations run as before; either way migrate() runs next and applies what the copy lacks.
import { Database } from 'bun:sqlite'
import { closeSync, existsSync, fsyncSync, linkSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { migrate, openDb, type Db } from './index'
import { isStorageFull } from './storage'

/**
 * The values the migrations take from the clock (SQLite's 'now'): written again, with the time of
 * the copy, when the template is installed. test/unit/db-template.test.ts fails when a migration
 * reads the clock (or randomness) anywhere else.
 */
export const CLOCK_VALUES = [{ table: 'tos_versions', column: 'created_at' }] as const

/** Where the build puts the template, and where the binary finds it (`assets: ['dist/schema']`). */
export const TEMPLATE_DIR = 'dist/schema'
const EMBEDDED = import.meta.dir.startsWith('/$bunfs') ? join(import.meta.dir, 'schema', 'taskgate.db') : null

/** Builds the template at `path`: every migration applied, vacuumed, in WAL mode like a served database. */
export function buildTemplate(path: string): void {
  rmSync(path, { force: true })
  const db = new Database(path, { create: true, strict: true })
  try {
    migrate(db)
    db.run('VACUUM')
    db.run('PRAGMA journal_mode = WAL')
  } finally { db.close() }
}

/** The template embedded in the binary, or null (running from a checkout). */
export function embeddedTemplate(): Uint8Array | null {
  if (!EMBEDDED) return null
  try { return readFileSync(EMBEDDED) } catch { return null }
}

/**
 * Opens <dataDir>/taskgate.db (the data dir exists) with every migration applied: a new one is
 * first copied from the embedded template, then migrate() applies whatever the database lacks.
 * `fromTemplate`: the migrations the copy brought (0: no copy made); `applied`: those applied now.
 */
export function openMigrated(dataDir: string): { db: Db; fromTemplate: number; applied: number } {
  const fromTemplate = createFromTemplate(dataDir)
  const db = openDb(dataDir)
  return { db, fromTemplate, applied: migrate(db) }
}

/**
 * Creates <dataDir>/taskgate.db from the embedded template when there is none; returns how many
 * migrations it holds, 0 when nothing was created (a database was there, or no template is embedded).
 */
function createFromTemplate(dataDir: string): number {
  const template = embeddedTemplate()
  if (!template) return 0
  try {
    return installTemplate(template, join(dataDir, 'taskgate.db'), Date.now())
  } catch (e) {
    if (isStorageFull(e)) throw Object.assign(new Error('cannot create the database: the disk is full (free some space and start again)', { cause: e }), { code: 'SQLITE_FULL' })
    throw e
  }
}

/**
 * Installs `template` as `path` when no file is there, complete or not at all: the copy is written
 * under a temporary name, its clock values set to `nowMs`, synced, then linked into place (never
 * over a database another process created meanwhile) and the directory synced. Returns how many
 * migrations the new database holds, 0 when `path` existed.
 */
export function installTemplate(template: Uint8Array, path: string, nowMs: number): number {
  if (existsSync(path)) return 0
  const tmp = `${path}.new-${process.pid}`
  try {
    writeFileSync(tmp, template)
    const db = new Database(tmp, { strict: true })
    let migrations: number
    try {
      db.run('PRAGMA synchronous = OFF') // the file is synced once, below
      // whole seconds, as the migration writes them (strftime('%s', 'now') * 1000)
      db.transaction(() => { for (const v of CLOCK_VALUES) db.run(`UPDATE ${v.table} SET ${v.column} = ?1`, [Math.floor(nowMs / 1000) * 1000]) }).immediate()
      migrations = (db.query('SELECT count(*) AS n FROM "__drizzle_migrations"').get() as { n: number }).n
    } finally { db.close() }
    syncPath(tmp)
    try { linkSync(tmp, path) } catch (e) {
      if ((e as { code?: string }).code === 'EEXIST') return 0
      throw e
    }
    syncPath(dirname(path))
    return migrations
  } finally { for (const f of [tmp, `${tmp}-wal`, `${tmp}-shm`]) rmSync(f, { force: true }) }
}

function syncPath(path: string): void {
  const fd = openSync(path, 'r')
  try { fsyncSync(fd) } finally { closeSync(fd) }
}
