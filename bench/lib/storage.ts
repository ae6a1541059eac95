// The `storage` part of bench/run.ts: what a task costs on disk. A fresh data dir and server, N
// short builtin tasks submitted at a moderate concurrency and waited for until COMPLETED, a clean
// stop (SIGTERM: the server checkpoints and truncates its WALs), then the bytes of taskgate.db and
// ipfs.db (with any -wal and -shm left) divided by N, and where they are: each table and index of
// both files from SQLite's `dbstat` virtual table, plus their free pages. Goal: ≤ 4 KB per task.
import { Database } from 'bun:sqlite'
import { existsSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { Subprocess } from 'bun'
import { removeTempDir, stop, tail, tempDir } from './proc'

export const STORAGE_NAME = 'storage per task'
export const STORAGE_MAX_BYTES_PER_TASK = 4096

/** One table or index of one file (or the file's free pages), over all its pages. */
export interface StorageObject { file: string; name: string; pages: number; bytes: number; payload: number; bytesPerTask: number }
export interface StorageResult {
  tasks: number; concurrency: number; seconds: number; failed: number
  files: { name: string; bytes: number }[]
  totalBytes: number; bytesPerTask: number
  objects: StorageObject[]
}

interface Started { proc: Subprocess; url: string; logFile: string; startMs: number }

const PROMPT = 'The new release is fast and the support team was wonderful, although the setup guide could be clearer.'
const FILES = ['taskgate.db', 'ipfs.db']

export async function measureStorage(o: {
  bin: string; tasks: number; concurrency: number; env: Record<string, string>
  start: (dataDir: string, cwd: string, logFile: string) => Promise<Started>
  log: (s: string) => void
}): Promise<StorageResult> {
  const work = tempDir('taskgate-storage-')
  const dataDir = join(work, 'data')
  try {
    const created = Bun.spawnSync([o.bin, 'operator', 'create', '--login', 'bench', '--password', 'benchpassword', '--tier', 'ENTERPRISE', '--data-dir', dataDir], { cwd: work, env: o.env, stdout: 'pipe', stderr: 'pipe' })
    if (created.exitCode !== 0) throw new Error(`operator create failed: ${created.stderr.toString()}`)
    const tg = await o.start(dataDir, work, join(work, 'taskgate.log'))
    let seconds = 0, failed = 0
    try {
      const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
        const r = await fetch(`${tg.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })
        return { status: r.status, text: await r.text() }
      }
      const login = await post('/api/v1/auth/login', { login: 'bench', password: 'benchpassword' })
      const bearer = { authorization: `Bearer ${(JSON.parse(login.text) as { accessToken: string }).accessToken}` }
      const agent = await post('/api/v1/agents/register', { displayName: 'bench', capabilities: ['general', 'sentiment_analysis'] }, bearer)
      if (agent.status >= 300) throw new Error(`agent register: ${agent.status} ${agent.text.slice(0, 300)}`)
      const { agentId } = JSON.parse(agent.text) as { agentId: string }
      o.log(`submitting ${o.tasks.toLocaleString('en')} tasks at c=${o.concurrency} ... `)
      const t0 = performance.now()
      let next = 0
      const pending: string[] = []
      const worker = async () => {
        while (next < o.tasks) {
          const i = ++next
          // Each prompt its own (so are its hash and the documents' hashes): identical documents would compress unrealistically well.
          const r = await post('/api/v1/tasks/submit', { agentId, taskType: 'sentiment_analysis', prompt: `${PROMPT} (${i})` }, bearer)
          const body = JSON.parse(r.text) as { taskId?: string; status?: string }
          if (r.status === 200 && body.status === 'COMPLETED') continue
          if (r.status === 202 && body.taskId) pending.push(body.taskId)
          else { failed++; if (failed <= 5) o.log(`\n  failed: ${r.status} ${r.text.slice(0, 300)}`) }
        }
      }
      await Promise.all(Array.from({ length: o.concurrency }, worker))
      // Answered 202 (still running after the submit's wait): read each until it finished.
      for (const id of pending) {
        for (;;) {
          const r = await fetch(`${tg.url}/api/v1/tasks/${id}`, { headers: bearer })
          const status = (JSON.parse(await r.text()) as { status?: string }).status
          if (status === 'COMPLETED') break
          if (status === 'FAILED' || r.status !== 200) { failed++; break }
          await Bun.sleep(50)
        }
      }
      seconds = (performance.now() - t0) / 1000
      o.log(`${seconds.toFixed(1)} s${failed ? `, ${failed} not COMPLETED` : ''}; stopping (SIGTERM) ... `)
    } catch (e) {
      throw new Error(`${e instanceof Error ? e.message : String(e)}\n--- ${tg.logFile}\n${tail(tg.logFile)}`)
    } finally {
      await stop(tg.proc, 120_000) // the clean stop checkpoints both files
    }
    const files: { name: string; bytes: number }[] = []
    for (const f of FILES) for (const suffix of ['', '-wal', '-shm']) {
      const p = join(dataDir, f + suffix)
      if (existsSync(p)) files.push({ name: f + suffix, bytes: statSync(p).size })
    }
    const totalBytes = files.reduce((a, f) => a + f.bytes, 0)
    const objects: StorageObject[] = []
    for (const f of FILES) objects.push(...breakdown(join(dataDir, f), f, o.tasks))
    objects.sort((a, b) => b.bytes - a.bytes)
    o.log(`${(totalBytes / o.tasks / 1024).toFixed(2)} KB per task\n`)
    return { tasks: o.tasks, concurrency: o.concurrency, seconds, failed, files, totalBytes, bytesPerTask: totalBytes / o.tasks, objects }
  } finally {
    removeTempDir(work)
  }
}

/** Each table and index of a database file by its pages (dbstat), and the file's free pages. */
function breakdown(path: string, file: string, tasks: number): StorageObject[] {
  const db = new Database(path, { readonly: true })
  try {
    const rows = db.query('SELECT name, count(*) AS pages, sum(pgsize) AS bytes, sum(payload) AS payload FROM dbstat GROUP BY name').all() as { name: string; pages: number; bytes: number; payload: number }[]
    const { free, size } = db.query('SELECT freelist_count AS free, page_size AS size FROM pragma_freelist_count(), pragma_page_size()').get() as { free: number; size: number }
    if (free > 0) rows.push({ name: '(free pages)', pages: free, bytes: free * size, payload: 0 })
    return rows.map((r) => ({ file, ...r, bytesPerTask: r.bytes / tasks }))
  } finally {
    db.close()
  }
}
