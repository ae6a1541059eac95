// SQL migrations embedded in the build (text imports work the same under `bun run` and in the
// compiled binary). Add one import per file that drizzle-kit generates; test/unit/migrations.test.ts
// fails when a file in migrations/ is missing here.
import journal from '../../migrations/meta/_journal.json'
import m0000 from '../../migrations/0000_init.sql' with { type: 'text' }
import m0001 from '../../migrations/0001_pipeline.sql' with { type: 'text' }
import m0002 from '../../migrations/0002_money.sql' with { type: 'text' }
import m0003 from '../../migrations/0003_abuse.sql' with { type: 'text' }
import m0004 from '../../migrations/0004_governance.sql' with { type: 'text' }
import m0005 from '../../migrations/0005_approvals.sql' with { type: 'text' }
import m0006 from '../../migrations/0006_lists.sql' with { type: 'text' }
import m0007 from '../../migrations/0007_proof_index.sql' with { type: 'text' }
import m0008 from '../../migrations/0008_partial_hash_indexes.sql' with { type: 'text' }
import m0009 from '../../migrations/0009_pioneer_totals.sql' with { type: 'text' }
import m0010 from '../../migrations/0010_guardrail_counters.sql' with { type: 'text' }
import m0011 from '../../migrations/0011_list_indexes_without_status.sql' with { type: 'text' }
import m0012 from '../../migrations/0012_cid_indexes_dropped.sql' with { type: 'text' }
import m0013 from '../../migrations/0013_task_timeline.sql' with { type: 'text' }
import m0014 from '../../migrations/0014_refused_prompts_retention.sql' with { type: 'text' }
import m0015 from '../../migrations/0015_attestation_signatures.sql' with { type: 'text' }
import m0016 from '../../migrations/0016_doors.sql' with { type: 'text' }
import m0017 from '../../migrations/0017_usage_rollups.sql' with { type: 'text' }
import m0018 from '../../migrations/0018_a2a_push.sql' with { type: 'text' }
import m0019 from '../../migrations/0019_key_position.sql' with { type: 'text' }
import m0020 from '../../migrations/0020_replicas.sql' with { type: 'text' }
import m0021 from '../../migrations/0021_rate_windows.sql' with { type: 'text' }

export const sqlByTag: Record<string, string> = {
  '0000_init': m0000,
  '0001_pipeline': m0001,
  '0002_money': m0002,
  '0003_abuse': m0003,
  '0004_governance': m0004,
  '0005_approvals': m0005,
  '0006_lists': m0006,
  '0007_proof_index': m0007,
  '0008_partial_hash_indexes': m0008,
  '0009_pioneer_totals': m0009,
  '0010_guardrail_counters': m0010,
  '0011_list_indexes_without_status': m0011,
  '0012_cid_indexes_dropped': m0012,
  '0013_task_timeline': m0013,
  '0014_refused_prompts_retention': m0014,
  '0015_attestation_signatures': m0015,
  '0016_doors': m0016,
  '0017_usage_rollups': m0017,
  '0018_a2a_push': m0018,
  '0019_key_position': m0019,
  '0020_replicas': m0020,
  '0021_rate_windows': m0021,
}

export const journalEntries: { idx: number; when: number; tag: string; breakpoints: boolean }[] = journal.entries
