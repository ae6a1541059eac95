// Public lookups by content hash read one index entry, whatever the number of tasks: the proof
// pages and /public/* endpoints are anonymous, so a table scan there would be a denial of service.
import { afterAll, expect, test } from 'bun:test'
import { migratedDb } from '../helpers/db'

const { db, close } = migratedDb('tg-plans')
afterAll(close)

const plan = (sql: string) => (db.$client.query(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail).join(' | ')

test('lookups by verification proof, receipt CID and document CID use their (partial) indexes', () => {
  expect(plan('SELECT id FROM tasks WHERE verification_proof = ?1 LIMIT 1')).toContain('INDEX tasks_verification_proof_idx (verification_proof=?)')
  const byCid = plan("SELECT id FROM tasks WHERE receipt_cid = ?1 OR ipfs_cid = ?1 LIMIT 1")
  expect(byCid).toContain('INDEX tasks_receipt_cid_idx (receipt_cid=?)')
  expect(byCid).toContain('INDEX tasks_ipfs_cid_idx (ipfs_cid=?)')
  expect(byCid).not.toContain('SCAN tasks')
})

test('tasks without hashes yet are not in those indexes', () => {
  const sql = (db.$client.query("SELECT sql FROM sqlite_master WHERE name IN ('tasks_ipfs_cid_idx', 'tasks_receipt_cid_idx', 'tasks_verification_proof_idx') ORDER BY name").all() as { sql: string }[]).map((r) => r.sql)
  expect(sql).toHaveLength(3)
  for (const s of sql) expect(s).toMatch(/WHERE \w+ IS NOT NULL$/)
})

test('only the three list indexes led by the status hold it: a status change moves no entry in the others', () => {
  const indexes = (db.$client.query("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'tasks' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[]).map((r) => r.name)
  const withStatus = indexes.filter((name) => (db.$client.query(`PRAGMA index_info(${name})`).all() as { name: string }[]).some((c) => c.name === 'status'))
  expect(indexes).toContain('tasks_operator_idx')
  expect(withStatus).toEqual(['tasks_agent_status_idx', 'tasks_operator_status_idx', 'tasks_status_idx'])
})
