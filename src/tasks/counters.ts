// The task counters and daily rollups (task_counts, task_daily, task_latency_daily) are kept by
// triggers on `tasks` (migrations/0006_lists.sql; task_daily's since 0017_usage_rollups, which added
// tokens and cost). This module recomputes them from the tasks themselves with the migrations' own
// backfill statements, and reports where the kept values differ from that ground truth (tests, the
// benchmark's seeding, a repair after manual edits).
// Data layer (with repository.ts), SQLite's own: raw statements, as they are the migration's backfill
// and compare the tables through TEMP copies; each function is one transaction of its own.
import type { Database } from 'bun:sqlite'
import { journalEntries, sqlByTag } from '../db/migrations'

export const ROLLUP_TABLES = ['task_counts', 'task_daily', 'task_latency_daily'] as const

/**
 * Each table's backfill (one INSERT … SELECT … FROM tasks per scope) from the newest migration that
 * has one: a migration that adds columns to a rollup recounts the whole table (0017 for task_daily).
 */
export const BACKFILL: string[] = (() => {
  const byTable = new Map<string, string[]>()
  for (const { tag } of journalEntries) {
    const found = new Map<string, string[]>()
    for (const part of sqlByTag[tag]!.split('--> statement-breakpoint')) {
      const s = part.split('\n').filter((l) => !l.startsWith('--')).join('\n').trim()
      const table = ROLLUP_TABLES.find((t) => s.startsWith(`INSERT INTO ${t} `))
      if (table) found.set(table, [...(found.get(table) ?? []), s])
    }
    for (const [table, statements] of found) byTable.set(table, statements)
  }
  return ROLLUP_TABLES.flatMap((t) => byTable.get(t) ?? [])
})()

/** Rebuilds the counters and rollups from `tasks`. Runs in one transaction. */
export function recomputeRollups(db: Database): void {
  db.transaction(() => {
    for (const t of ROLLUP_TABLES) db.run(`DELETE FROM ${t}`)
    for (const s of BACKFILL) db.run(s)
  }).immediate()
}

const KEYS: Record<(typeof ROLLUP_TABLES)[number], string[]> = {
  task_counts: ['kind', 'agent_id', 'operator_id', 'task_type', 'status'],
  task_daily: ['operator_id', 'day'],
  task_latency_daily: ['operator_id', 'day', 'bucket'],
}

/**
 * Rows where a kept table differs from a fresh recomputation (rows whose values are all zero count
 * as absent). Empty when every counter is exact. Leaves the database unchanged.
 */
export function rollupDrift(db: Database): { table: string; row: Record<string, unknown>; kept: 'missing' | 'extra' | 'differs' }[] {
  const out: { table: string; row: Record<string, unknown>; kept: 'missing' | 'extra' | 'differs' }[] = []
  db.transaction(() => {
    db.run('SAVEPOINT drift')
    try {
      for (const t of ROLLUP_TABLES) db.run(`CREATE TEMP TABLE kept_${t} AS SELECT * FROM ${t}`)
      for (const t of ROLLUP_TABLES) db.run(`DELETE FROM ${t}`)
      for (const s of BACKFILL) db.run(s)
      for (const t of ROLLUP_TABLES) {
        const cols = (db.query(`SELECT name FROM pragma_table_info('${t}')`).all() as { name: string }[]).map((c) => c.name)
        const values = cols.filter((c) => !KEYS[t].includes(c))
        const nonZero = (alias: string) => values.map((c) => `${alias}.${c} != 0`).join(' OR ')
        const on = KEYS[t].map((k) => `k.${k} = f.${k}`).join(' AND ')
        const diff = values.map((c) => `k.${c} != f.${c}`).join(' OR ')
        for (const row of db.query(`SELECT f.*, 'missing' AS kept_state FROM ${t} f WHERE (${nonZero('f')}) AND NOT EXISTS (SELECT 1 FROM kept_${t} k WHERE ${on})
          UNION ALL SELECT k.*, 'extra' FROM kept_${t} k WHERE (${nonZero('k')}) AND NOT EXISTS (SELECT 1 FROM ${t} f WHERE ${on})
          UNION ALL SELECT k.*, 'differs' FROM kept_${t} k JOIN ${t} f ON ${on} WHERE ${diff}`).all() as Record<string, unknown>[]) {
          const { kept_state, ...rest } = row
          out.push({ table: t, row: rest, kept: kept_state as 'missing' | 'extra' | 'differs' })
        }
      }
    } finally {
      db.run('ROLLBACK TO drift')
      db.run('RELEASE drift')
      for (const t of ROLLUP_TABLES) db.run(`DROP TABLE IF EXISTS temp.kept_${t}`)
    }
  }).immediate()
  return out
}
