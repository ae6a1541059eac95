// Public lookups by content hash read one index entry, whatever the number of tasks: the proof
// pages and /public/* endpoints are anonymous, so a table scan there would be a denial of service.
import { afterAll, expect, test } from 'bun:test'
import { migratedDb } from '../helpers/db'

const { db, close } = migratedDb('tg-plans')
afterAll(close)

const plan = (sql: string) => (db.$client.query(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail).join(' | ')

test('a lookup by verification proof uses its partial index; tasks without a proof yet are not in it', () => {
  expect(plan('SELECT id FROM tasks WHERE verification_proof = ?1 LIMIT 1')).toContain('INDEX tasks_verification_proof_idx (verification_proof=?)')
  const sql = (db.$client.query("SELECT sql FROM sqlite_master WHERE name = 'tasks_verification_proof_idx'").get() as { sql: string }).sql
  expect(sql).toMatch(/WHERE verification_proof IS NOT NULL$/)
})

test('no index on the tasks\' CIDs: a proof by CID finds its task from the document (src/proofs/documents.ts)', () => {
  const cidIndexes = (db.$client.query("SELECT name FROM pragma_index_list('tasks') AS l WHERE EXISTS (SELECT 1 FROM pragma_index_info(l.name) WHERE name IN ('ipfs_cid', 'receipt_cid'))").all() as { name: string }[])
  expect(cidIndexes).toEqual([])
})

test('only the three list indexes led by the status hold it: a status change moves no entry in the others', () => {
  const indexes = (db.$client.query("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'tasks' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[]).map((r) => r.name)
  const withStatus = indexes.filter((name) => (db.$client.query(`PRAGMA index_info(${name})`).all() as { name: string }[]).some((c) => c.name === 'status'))
  expect(indexes).toContain('tasks_operator_idx')
  expect(withStatus).toEqual(['tasks_agent_status_idx', 'tasks_operator_status_idx', 'tasks_status_idx'])
})

test('the retention job finds old refused tasks through their partial index, which holds only them', () => {
  expect(plan("SELECT id FROM tasks INDEXED BY tasks_refused_idx WHERE status = 'FAILED' AND stage <= 1 AND completed_at < ?1 ORDER BY completed_at LIMIT ?2")).toBe('SEARCH tasks USING INDEX tasks_refused_idx (completed_at<?)')
  const sql = (db.$client.query("SELECT sql FROM sqlite_master WHERE name = 'tasks_refused_idx'").get() as { sql: string }).sql
  expect(sql).toMatch(/WHERE status = 'FAILED' AND stage <= 1$/)
})

test('an agent-bound key\'s approval list and count read its agent\'s index range, not its operator\'s', () => {
  const cols = 'id, created_at'
  expect(plan(`SELECT ${cols} FROM approvals WHERE agent_id = ?6 AND operator_id = ?1 AND decision = ?2 ORDER BY created_at DESC, id DESC LIMIT ?3`)).toContain('INDEX approvals_agent_idx (agent_id=? AND decision=?)')
  expect(plan("SELECT count(*) AS n FROM approvals WHERE agent_id = ?2 AND operator_id = ?1 AND decision = 'PENDING'")).toContain('INDEX approvals_agent_idx (agent_id=? AND decision=?)')
})

test('A2A push configs: every status change of every task looks for its configs through an index; the operator\'s live ones and the retention\'s finished ones through partial indexes', () => {
  expect(plan('SELECT id FROM a2a_push_configs WHERE task_id = ?1')).toContain('USING INDEX a2a_push_configs_task_uq (task_id=?)')
  expect(plan('SELECT count(*) FROM a2a_push_configs WHERE operator_id = ?1 AND done_at IS NULL')).toContain('USING INDEX a2a_push_configs_live_idx (operator_id=?)')
  expect(plan('DELETE FROM a2a_push_configs WHERE done_at IS NOT NULL AND done_at < ?1')).toContain('USING INDEX a2a_push_configs_done_idx')
})
