// Applying PostgreSQL's migrations (src/db/pg/migrations.ts) at start, once across replicas
// (issue 34): a session advisory lock serialises the processes that start together; the first
// applies what is missing, each migration in its own transaction, and records it with its sha256
// in `taskgate_migrations`; the others find it done. A recorded migration whose file changed stops
// the start (a released migration is never edited, as on SQLite).
import { PgError, type PgConnection } from './connection'
import { PG_MIGRATIONS } from './migrations'

/** The advisory lock's key: any constant no other application on the database uses ("taskgate"). */
const LOCK_KEY = 0x7461736b67617465n

const sha256 = (text: string) => new Bun.CryptoHasher('sha256').update(text).digest('hex')

/** Applies the migrations not yet recorded and returns how many; waits up to `waitMs` for another process that migrates. */
export function migratePg(conn: PgConnection, o: { waitMs?: number; now?: () => number } = {}): number {
  const deadline = Date.now() + (o.waitMs ?? 120_000)
  while (!(conn.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [LOCK_KEY.toString()]).rows[0]!.ok)) {
    if (Date.now() >= deadline) throw new Error('another process is applying the database migrations; start again once it has')
    Bun.sleepSync(100)
  }
  try {
    // a migration may take long on a big database: no statement timeout, no deadline meanwhile
    return conn.unbounded(() => {
      conn.query('CREATE TABLE IF NOT EXISTS taskgate_migrations (tag text PRIMARY KEY, sha256 text NOT NULL, applied_at bigint NOT NULL)')
      const done = new Map(conn.query<{ tag: string; sha256: string }>('SELECT tag, sha256 FROM taskgate_migrations').rows.map((r) => [r.tag, r.sha256]))
      let applied = 0
      for (const m of PG_MIGRATIONS) {
        const hash = sha256(m.sql)
        const recorded = done.get(m.tag)
        if (recorded !== undefined) {
          if (recorded !== hash) throw new Error(`migration ${m.tag} was applied with other content (sha256 ${recorded.slice(0, 12)}…, now ${hash.slice(0, 12)}…): a released migration is never edited`)
          continue
        }
        conn.query('BEGIN')
        try {
          for (const statement of m.sql.split('--> statement-breakpoint')) if (statement.trim()) conn.query(statement)
          conn.query('INSERT INTO taskgate_migrations (tag, sha256, applied_at) VALUES ($1, $2, $3)', [m.tag, hash, (o.now ?? Date.now)()])
          conn.query('COMMIT')
        } catch (e) {
          try { conn.query('ROLLBACK') } catch { /* the connection is gone: the server rolled it back */ }
          throw e instanceof PgError ? new Error(`migration ${m.tag} failed: ${e.message} (SQLSTATE ${e.sqlState})`, { cause: e }) : e
        }
        applied++
      }
      return applied
    })
  } finally {
    try { conn.query('SELECT pg_advisory_unlock($1)', [LOCK_KEY.toString()]) } catch { /* the lock ends with the session */ }
  }
}
