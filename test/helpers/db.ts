// A migrated database in a fresh temporary directory, for unit tests of SQL, triggers and services.
import type { Database } from 'bun:sqlite'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrate, openDb, type Db } from '../../src/db'

export function migratedDb(prefix: string): { db: Db; sqlite: Database; dir: string; close(): void } {
  const dir = mkdtempSync(join(tmpdir(), `${prefix}-`))
  const db = openDb(dir)
  migrate(db)
  return { db, sqlite: db.$client, dir, close: () => { db.$client.close(); rmSync(dir, { recursive: true, force: true }) } }
}
