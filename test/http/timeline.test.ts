// The stage timeline as stored in the task's row (migration 0013): event ids are positions from 1,
// the same in the submit's answer, the detail and the event stream; and the upgrade of a data dir
// whose events are in task_events (the layout before 0013): a finished task keeps its stored
// events and ids, a held one takes its events into its row and continues their numbering when it
// is approved. The "old" data dir is made by a real server and then put back into the old layout.
import { withTestDb } from '../helpers/data'
import { TEST_POSTGRES } from '../helpers/postgres'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { Database } from 'bun:sqlite'
import { join } from 'node:path'
import { journalEntries, sqlByTag } from '../../src/db/migrations'
import { TaskRepository } from '../../src/tasks/repository'
import { drizzle } from 'drizzle-orm/bun-sqlite'
import { readStream } from '../helpers/operations'
import { startServer, type TestServer } from '../helpers/server'

let s: TestServer
let admin: string
let token: string
let agentId: string
beforeAll(async () => {
  s = await startServer({ TASKGATE_TEST_CLOCK: '1' })
  admin = await s.setupAdmin()
  token = await s.signup('timeline-op')
  agentId = (await s.post('/api/v1/agents/register', { displayName: 'Timeline', capabilities: ['sentiment_analysis', 'spend_control'] }, { token })).body.agentId
}, 30_000)
afterAll(async () => { await s?.cleanup() })

const submit = (body: Record<string, unknown> = {}) =>
  s.post('/api/v1/tasks/submit?wait=10', { agentId, taskType: 'sentiment_analysis', prompt: 'The release is fast and the docs are clear.', ...body }, { token })
const detail = async (id: string) => (await s.get(`/api/v1/tasks/${id}`, { token })).body
const shape = (tl: { id: number; stage: number; status: string }[]) => tl.map((e) => [e.id, e.stage, e.status])

describe('the timeline in the task row', () => {
  test('ids are positions from 1, the same in the answer, the detail and the event stream', async () => {
    const r = await submit()
    expect(r.status).toBe(200)
    const want = [[1, 1, 'done'], [2, 2, 'done'], [3, 3, 'done'], [4, 4, 'done'], [5, 5, 'done'], [6, 6, 'done'], [7, 7, 'done'], [8, 8, 'completed']]
    expect(shape(r.body.timeline)).toEqual(want)
    expect((await detail(r.body.id)).timeline).toEqual(r.body.timeline)
    const stream = await readStream(s, `/api/v1/tasks/${r.body.id}/events`, token)
    expect([...stream.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]))).toEqual([1, 2, 3, 4, 5, 6, 7, 8])
    // no task_events rows are written any more
    await withTestDb(s.dataDir, (db) => {
      expect((db.query('SELECT count(*) AS n FROM task_events').get() as { n: number }).n).toBe(0)
      expect(JSON.parse((db.query('SELECT timeline FROM tasks WHERE id = ?1').get(r.body.id) as { timeline: string }).timeline)).toHaveLength(8)
    }, { readonly: true })
  })
})

// SQLite's upgrade: a PostgreSQL database starts at the current schema
describe.skipIf(TEST_POSTGRES !== null)('upgrade from events in task_events (migration 0013)', () => {
  test('a finished task keeps its stored events; a held one continues its numbering in its row', async () => {
    // A hold: requestedValue above the threshold (active after the 30 s delay, on the test clock).
    expect((await s.patch('/api/v1/operator/guardrails', { approvalThreshold: 100 }, { token })).status).toBe(200)
    expect((await s.post('/api/v1/admin/clock/advance', { ms: 30_000 }, { token: admin })).status).toBe(200)
    const done = (await submit()).body
    const held = await submit({ taskType: 'spend_control', action: { actionType: 'spend_control', operation: 'pay', target: '0xAcme', requestedValue: 500, currency: 'USDC' } })
    expect(held.status).toBe(202)
    const approvalId = held.body.approvalId as string
    expect({ status: held.body.status, approvalId }).toEqual({ status: 'PENDING_APPROVAL', approvalId: expect.stringMatching(/^apr_/) })
    expect(shape(held.body.timeline)).toEqual([[1, 1, 'held']])
    await s.stop()

    // Back to the layout before 0013: the events in task_events (ids from that table), no column.
    const db = new Database(join(s.dataDir, 'taskgate.db'))
    const oldIds = new Map<string, number[]>()
    try {
      db.transaction(() => {
        db.run('INSERT INTO task_events (task_id, stage, name, status, detail, at) VALUES (?1, 1, ?2, ?3, NULL, 1)', ['task_filler', 'policy', 'done']) // ids of other tasks come first
        const store = new TaskRepository(drizzle({ client: db })) // reads the row's values in the layout of today (src/tasks/row-encoding.ts)
        for (const { id } of db.query('SELECT id FROM tasks WHERE timeline IS NOT NULL ORDER BY rowid').all() as { id: string }[]) {
          for (const e of store.timeline(id)!) {
            const row = db.query('INSERT INTO task_events (task_id, stage, name, status, detail, at) VALUES (?1, ?2, ?3, ?4, ?5, ?6) RETURNING id')
              .get(id, e.stage, e.name, e.status, e.detail === null ? null : JSON.stringify(e.detail), e.at) as { id: number }
            oldIds.set(id, [...(oldIds.get(id) ?? []), row.id])
          }
        }
        // and without what later migrations added, which start applies again after 0013: 0015's attestation
        // records (back to their full JSON) and encoded verification records (back to their text) ...
        for (const { uid } of db.query("SELECT '0x' || lower(hex(uid)) AS uid FROM task_attestations").all() as { uid: string }[]) {
          const a = store.attestation(uid)!
          db.query('INSERT INTO attestations (uid, task_id, operator_id, attestation, created_at) VALUES (?1, ?2, ?3, ?4, 1)').run(uid, a.taskId, store.get(a.taskId)!.operatorId, JSON.stringify(a.attestation))
        }
        for (const { id } of db.query("SELECT id FROM tasks WHERE typeof(verification) = 'blob'").all() as { id: string }[]) {
          db.query('UPDATE tasks SET verification = ?2 WHERE id = ?1').run(id, JSON.stringify(store.get(id)!.verification))
        }
        db.run('DROP TABLE task_attestations')
        db.run('ALTER TABLE tasks DROP COLUMN timeline')
        // ... and 0014's two columns and two indexes
        for (const index of ['tasks_refused_idx', 'approvals_agent_idx']) db.run(`DROP INDEX ${index}`)
        for (const column of ['prompt_sha256', 'prompt_length']) db.run(`ALTER TABLE tasks DROP COLUMN ${column}`)
        // ... and 0017's: task_daily's triggers back to 0006's, without its token and cost columns ...
        const daily = ['tasks_daily_insert', 'tasks_daily_delete', 'tasks_daily_update', 'tasks_daily_rekey']
        for (const trigger of daily) db.run(`DROP TRIGGER ${trigger}`)
        for (const part of sqlByTag['0006_lists']!.split('--> statement-breakpoint')) {
          if (daily.some((trigger) => part.trim().startsWith(`CREATE TRIGGER ${trigger} `))) db.run(part)
        }
        for (const column of ['prompt_tokens', 'completion_tokens', 'cost_micro_usd']) db.run(`ALTER TABLE task_daily DROP COLUMN ${column}`)
        // ... and 0016's price table and task columns
        db.run('DROP TABLE model_prices')
        for (const column of ['door', 'compute_request', 'prompt_tokens', 'completion_tokens', 'cost_usd']) db.run(`ALTER TABLE tasks DROP COLUMN ${column}`)
        // ... and 0018's push configs and the deliveries' column
        db.run('DROP TABLE a2a_push_configs')
        db.run('ALTER TABLE webhook_deliveries DROP COLUMN push_config_id')
        // ... and 0019's key position
        db.run('ALTER TABLE provider_keys DROP COLUMN position')
        // ... and 0020's replicas and job owner
        db.run('DROP TABLE replicas')
        db.run('ALTER TABLE jobs DROP COLUMN owner')
        // ... and 0021's rate windows
        db.run('DROP TABLE rate_windows')
        db.run('DELETE FROM __drizzle_migrations WHERE created_at >= ?1', [journalEntries.find((e) => e.tag === '0013_task_timeline')!.when])
      })()
    } finally { db.close() }
    expect(oldIds.get(done.id)!.length).toBe(8)
    expect(oldIds.get(done.id)![0]).toBeGreaterThan(1)

    await s.start() // applies 0013 and the migrations after it
    const finished = await detail(done.id)
    expect(finished.timeline.map((e: { id: number }) => e.id)).toEqual(oldIds.get(done.id))
    expect(finished.timeline.map(({ id: _, ...e }: { id: number }) => e)).toEqual(done.timeline.map(({ id: _, ...e }: { id: number }) => e))
    expect(shape((await detail(held.body.id)).timeline)).toEqual([[1, 1, 'held']])

    // Approved: stages 2–8 append after the migrated event, numbered on from it.
    const approved = await s.patch(`/api/v1/approvals/${approvalId}`, { decision: 'approved' }, { token })
    expect(approved.status).toBe(200)
    await readStream(s, `/api/v1/tasks/${held.body.id}/events`, token) // ends once the task is COMPLETED or FAILED
    const t = await detail(held.body.id)
    expect(t.status).toBe('COMPLETED')
    expect(shape(t.timeline)).toEqual([[1, 1, 'held'], [2, 2, 'done'], [3, 3, 'done'], [4, 4, 'done'], [5, 5, 'done'], [6, 6, 'done'], [7, 7, 'done'], [8, 8, 'completed']])
  })
})
