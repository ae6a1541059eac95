// PostgreSQL's migration for the changes in src/db/schema.ts (issue 34; docs/architecture.md,
// "Data layer"): PostgreSQL's tables are derived from that one schema (src/db/pg/tables.ts), and
// drizzle-kit's API diffs them against the snapshot of the last PostgreSQL migration
// (migrations/pg/meta/snapshot.json), then this writes migrations/pg/NNNN_<name>.sql and the new
// snapshot. `npm run db:generate` runs it after drizzle-kit has written SQLite's migration (it
// needs drizzle-kit, which that script installs for the run). Triggers are written by hand, as for SQLite.
//   bun scripts/db-generate-pg.ts [name]    (default: "init" for the first, else the name of SQLite's newest migration)
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import * as schema from '../src/db/schema'
import { pgTablesFrom } from '../src/db/pg/tables'

const { generateDrizzleJson, generateMigration } = await import('drizzle-kit/api') as typeof import('drizzle-kit/api')

const dir = resolve(import.meta.dir, '../migrations/pg')
const existing = existsSync(dir) ? readdirSync(dir).filter((f) => /^\d{4}_.*\.sql$/.test(f)) : []
const sqliteNewest = (JSON.parse(readFileSync(resolve(import.meta.dir, '../migrations/meta/_journal.json'), 'utf8')) as { entries: { tag: string }[] }).entries.at(-1)!.tag
const name = process.argv[2] ?? (existing.length === 0 ? 'init' : sqliteNewest.replace(/^\d{4}_/, ''))
if (!/^[a-z0-9_]+$/.test(name)) { console.error('usage: bun scripts/db-generate-pg.ts [name: a-z, 0-9, _]'); process.exit(2) }
const snapshotFile = join(dir, 'meta', 'snapshot.json')
mkdirSync(join(dir, 'meta'), { recursive: true })
const before = existsSync(snapshotFile) ? JSON.parse(readFileSync(snapshotFile, 'utf8')) : generateDrizzleJson({})
const after = generateDrizzleJson(pgTablesFrom(schema), before.id)
const statements = await generateMigration(before, after)
if (statements.length === 0) { console.log('PostgreSQL: no changes'); process.exit(0) }
const file = `${String(existing.length).padStart(4, '0')}_${name}.sql`
writeFileSync(join(dir, file), `${statements.join('\n--> statement-breakpoint\n')}\n`)
writeFileSync(snapshotFile, `${JSON.stringify(after, null, 2)}\n`)
console.log(`PostgreSQL: wrote migrations/pg/${file} (${statements.length} statements); add it to src/db/pg/migrations.ts`)
