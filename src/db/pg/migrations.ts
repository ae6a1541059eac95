// PostgreSQL's migrations, embedded in the build like SQLite's (src/db/migrations.ts): one import
// per file of migrations/pg/, in order. `npm run db:generate` writes them (scripts/db-generate-pg.ts);
// test/unit/pg-migrate.test.ts fails when a file there is missing here.
import m0000 from '../../../migrations/pg/0000_init.sql' with { type: 'text' }
import m0001 from '../../../migrations/pg/0001_counters.sql' with { type: 'text' }
import m0002 from '../../../migrations/pg/0002_seed.sql' with { type: 'text' }
import m0003 from '../../../migrations/pg/0003_ipfs_blocks.sql' with { type: 'text' }
import m0004 from '../../../migrations/pg/0004_key_position.sql' with { type: 'text' }
import m0005 from '../../../migrations/pg/0005_replicas.sql' with { type: 'text' }
import m0006 from '../../../migrations/pg/0006_rate_windows.sql' with { type: 'text' }

export const PG_MIGRATIONS: readonly { tag: string; sql: string }[] = [
  { tag: '0000_init', sql: m0000 },
  { tag: '0001_counters', sql: m0001 },
  { tag: '0002_seed', sql: m0002 },
  { tag: '0003_ipfs_blocks', sql: m0003 },
  { tag: '0004_key_position', sql: m0004 },
  { tag: '0005_replicas', sql: m0005 },
  { tag: '0006_rate_windows', sql: m0006 },
]
