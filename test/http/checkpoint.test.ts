// Background checkpoints (src/db/checkpointer.ts): committed pages reach the database files from a
// worker thread, long before any commit crosses SQLite's automatic threshold (WAL_AUTOCHECKPOINT_PAGES). Read from the WAL index
// (the -shm file, native byte order): mxFrame is the last valid frame of the log, nBackfill how
// many of them a checkpoint has copied into the database file.
import { TEST_POSTGRES } from '../helpers/postgres'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startServer, type TestServer } from '../helpers/server'
import { Checkpointer, WAL_AUTOCHECKPOINT_PAGES } from '../../src/db/checkpointer'
import { openDatabase } from '../../src/db'

/** SQLite's write-ahead log: on SQLite only. */
const SQLITE_ONLY = TEST_POSTGRES !== null

function walIndex(dataDir: string, db: string): { mxFrame: number; nBackfill: number } {
  const path = join(dataDir, `${db}-shm`)
  if (!existsSync(path)) return { mxFrame: 0, nBackfill: 0 }
  const b = readFileSync(path)
  return { mxFrame: b.readUInt32LE(16), nBackfill: b.readUInt32LE(96) }
}

async function runTasks(s: TestServer, n: number): Promise<void> {
  const { token: op, agent } = await s.operatorWithAgent(`ckpt-${n}`)
  for (let i = 0; i < n; i++) {
    const r = await s.post('/api/v1/tasks/submit?wait=10', { agentId: agent.agentId, taskType: 'sentiment_analysis', prompt: `Review ${i}: good and fast.` }, { token: op })
    expect(r.body.status).toBe('COMPLETED')
  }
}

describe.skipIf(SQLITE_ONLY)('with the checkpoint worker (the default)', () => {
  let s: TestServer
  beforeAll(async () => { s = await startServer(); await s.setupAdmin() })
  afterAll(async () => { await s.cleanup() })

  const gauge = async () => Number(/^taskgate_checkpoint_worker (\d)$/m.exec((await s.get('/metrics')).text)?.[1])

  test('an idle gateway has no checkpoint worker: it starts with the write load', async () => {
    expect(await gauge()).toBe(0)
  })

  test('both write-ahead logs are copied into their databases shortly after a few tasks commit', async () => {
    await runTasks(s, 5)
    for (const db of ['taskgate.db', 'ipfs.db']) {
      let w = walIndex(s.dataDir, db)
      for (let i = 0; i < 100 && !(w.mxFrame > 0 && w.nBackfill === w.mxFrame); i++) { await Bun.sleep(50); w = walIndex(s.dataDir, db) }
      expect({ db, ...w, caughtUp: w.nBackfill === w.mxFrame }).toMatchObject({ db, caughtUp: true })
      expect(w.mxFrame).toBeGreaterThan(0)
      // Five tasks write a few hundred frames: no commit crossed SQLite's automatic threshold,
      // so only the worker can have copied them.
      expect(w.mxFrame).toBeLessThan(WAL_AUTOCHECKPOINT_PAGES.alone)
    }
    expect(await gauge()).toBe(1)
  })
})

test.skipIf(SQLITE_ONLY)('a serving connection checkpoints by itself every 10,000 pages; every 50,000 while the checkpoint worker runs, and 10,000 again once it stops', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tg-open-'))
  try {
    const db = openDatabase(join(dir, 'taskgate.db'))
    expect(db.query('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' })
    const threshold = () => (db.query('PRAGMA wal_autocheckpoint').get() as { wal_autocheckpoint: number }).wal_autocheckpoint
    expect(threshold()).toBe(10_000)
    const c = new Checkpointer([{ path: join(dir, 'taskgate.db'), conn: db }], 100, () => {}, 0) // startBytes 0: the worker starts at once
    c.start()
    expect(c.running).toBe(true)
    expect(threshold()).toBe(WAL_AUTOCHECKPOINT_PAGES.withWorker)
    expect(WAL_AUTOCHECKPOINT_PAGES).toEqual({ withWorker: 50_000, alone: 10_000 })
    await c.stop()
    expect(threshold()).toBe(10_000)
    db.close()
  } finally { rmSync(dir, { recursive: true, force: true }) }
})
