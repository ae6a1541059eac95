// The `lists` part of bench/run.ts: a fresh data dir seeded with many tasks by straight SQL
// (lists-seed.ts), the binary started on it, and p50/p99 of every task-list variant, a deep page,
// the last page, /public/stats and both daily endpoints. One connection (wrk -c1): the numbers are
// the time to answer one request, not throughput. Writes nothing; run.ts reports and saves.
import { join } from 'node:path'
import { seedTasks, type Seeded } from './lists-seed'
import { removeTempDir, stop, tempDir, tail } from './proc'
import { runWrk } from './wrk'
import type { Subprocess } from 'bun'

export const LISTS_NAME = 'lists'
export const LISTS_MAX_P50_MS = 2

export interface ListsVariant {
  name: string; path: string; total: number | null
  /** whether the p50 target applies (not to the deep page: its cost grows with the offset, docs/performance.md) */
  targeted: boolean
  p50Ms: number; p99Ms: number; rps: number; requests: number; errors: number
}
export interface ListsResult {
  tasks: number; operators: number; agents: number; days: number
  seed: { seconds: number; phases: Seeded['phases']; dbMb: number }
  startMs: number
  variants: ListsVariant[]
}

interface Started { proc: Subprocess; url: string; logFile: string; startMs: number }

export async function measureLists(o: {
  wrk: string; bin: string; tasks: number; durationS: number; warmupS: number
  start: (dataDir: string, cwd: string, logFile: string) => Promise<Started>
  log: (s: string) => void
}): Promise<ListsResult> {
  const work = tempDir('taskgate-lists-')
  const dataDir = join(work, 'data')
  const shape = { operators: 100, agentsPerOperator: 10, days: 90 }
  try {
    const created = Bun.spawnSync([o.bin, 'operator', 'create', '--login', 'bench', '--password', 'benchpassword', '--tier', 'ENTERPRISE', '--data-dir', dataDir], { cwd: work, stdout: 'pipe', stderr: 'pipe' })
    if (created.exitCode !== 0) throw new Error(`operator create failed: ${created.stderr.toString()}`)
    const operatorId = (JSON.parse(created.stdout.toString()) as { id: string }).id
    o.log(`seeding ${o.tasks.toLocaleString('en')} tasks (${shape.operators} operators × ${shape.agentsPerOperator} agents, ${shape.days} days) ... `)
    const seeded = seedTasks(dataDir, { tasks: o.tasks, ...shape, now: Date.now(), firstOperatorId: operatorId })
    o.log(`${seeded.seconds.toFixed(1)} s (insert ${seeded.phases.insertS.toFixed(1)} s, indexes ${seeded.phases.indexesS.toFixed(1)} s, counters ${seeded.phases.rollupsS.toFixed(1)} s), ${(seeded.dbBytes / 1048576).toFixed(0)} MB\n`)
    const tg = await o.start(dataDir, work, join(work, 'taskgate.log'))
    try {
      const login = await fetch(`${tg.url}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ login: 'bench', password: 'benchpassword' }) })
      const { accessToken } = await login.json() as { accessToken: string }
      const bearer = { authorization: `Bearer ${accessToken}` }
      const op = seeded.largestOperator
      const ag = seeded.largestAgent
      const q = (p: Record<string, string>) => `/api/v1/tasks?${new URLSearchParams({ limit: '20', ...p })}`
      const variants: { name: string; path: string; headers?: Record<string, string> }[] = [
        { name: 'all', path: q({}) },
        { name: 'by operator', path: q({ operatorId: op }) },
        { name: 'by agent', path: q({ agentId: ag }) },
        { name: 'by status (FAILED)', path: q({ status: 'FAILED' }) },
        { name: 'by status (PENDING_APPROVAL)', path: q({ status: 'PENDING_APPROVAL' }) },
        { name: 'by taskType', path: q({ taskType: 'code' }) },
        { name: 'operator + status', path: q({ operatorId: op, status: 'FAILED' }) },
        { name: 'operator + taskType', path: q({ operatorId: op, taskType: 'code' }) },
        { name: 'agent + status', path: q({ agentId: ag, status: 'COMPLETED' }) },
        { name: 'status + taskType', path: q({ status: 'QUEUED', taskType: 'code' }) },
        { name: 'operator + agent + status + taskType', path: q({ operatorId: op, agentId: ag, status: 'COMPLETED', taskType: 'code' }) },
        { name: 'operator list (bearer)', path: '/api/v1/operator/tasks?limit=20', headers: bearer },
        { name: 'deep page (offset 50,000, day seek)', path: q({ page: '2501' }) },
        { name: 'deep page (middle, day seek)', path: q({ page: String(Math.ceil(o.tasks / 40)) }) },
        { name: 'deep page by agent (offset 20,000, scan)', path: q({ agentId: ag, page: '1001' }) },
        { name: 'last page', path: q({ page: String(Math.ceil(o.tasks / 20)) }) },
        { name: 'GET /public/stats', path: '/api/v1/public/stats' },
        { name: 'GET /public/stats/daily?days=90', path: '/api/v1/public/stats/daily?days=90' },
        { name: 'GET /operator/stats/daily?days=90', path: '/api/v1/operator/stats/daily?days=90', headers: bearer },
      ]
      const out: ListsVariant[] = []
      for (const v of variants) {
        const pre = await fetch(`${tg.url}${v.path}`, { headers: v.headers })
        const text = await pre.text()
        if (pre.status !== 200) throw new Error(`preflight ${v.path}: ${pre.status} ${text.slice(0, 300)}`)
        const body = JSON.parse(text) as { total?: number; totalTasks?: number; data?: unknown[] }
        if (body.data && body.data.length === 0) throw new Error(`preflight ${v.path}: an empty page`)
        o.log(`load: lists ${v.name} ... `)
        const common = { url: `${tg.url}${v.path}`, threads: 1, connections: 1, headers: v.headers }
        if (o.warmupS > 0) await runWrk(o.wrk, { ...common, durationS: o.warmupS, latency: false })
        const w = await runWrk(o.wrk, { ...common, durationS: o.durationS, latency: true })
        const errors = w.non2xx + Object.values(w.socketErrors).reduce((a, b) => a + b, 0)
        out.push({ name: v.name, path: v.path, targeted: !v.name.startsWith('deep page'), total: body.total ?? body.totalTasks ?? null, p50Ms: w.latencyMs.p50, p99Ms: w.latencyMs.p99, rps: w.rps, requests: w.requests, errors })
        o.log(`p50 ${w.latencyMs.p50.toFixed(3)} ms, p99 ${w.latencyMs.p99.toFixed(3)} ms${errors ? `, ${errors} errors` : ''}\n`)
      }
      return { tasks: o.tasks, ...shape, agents: shape.operators * shape.agentsPerOperator, seed: { seconds: seeded.seconds, phases: seeded.phases, dbMb: seeded.dbBytes / 1048576 }, startMs: tg.startMs, variants: out }
    } catch (e) {
      throw new Error(`${e instanceof Error ? e.message : String(e)}\n--- ${tg.logFile}\n${tail(tg.logFile)}`)
    } finally {
      await stop(tg.proc)
    }
  } finally {
    removeTempDir(work)
  }
}
