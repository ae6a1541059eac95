// Seeds a fresh data dir with many tasks by straight SQL, for the `lists` benchmark: operators
// (one admin "bench" plus `operators - 1` more), agents, and `tasks` tasks spread over the last
// `days` days, with a skewed share per operator (the largest holds about a fifth), realistic
// statuses and task types. The triggers that keep the counters are dropped during the bulk insert
// and recreated afterwards; the counters and rollups are then recomputed from the tasks (the same
// statements as the migration's backfill), so the server starts on a consistent database.
import { openDb, migrate } from '../../src/db/index'
import { recomputeRollups } from '../../src/tasks/counters'
import { TASK_TYPES } from '../../src/agents/schema'

export interface SeedOptions {
  tasks: number; operators: number; agentsPerOperator: number; days: number; now: number
  /** an operator that exists already (made by the CLI, so it can sign in): it becomes the largest */
  firstOperatorId?: string
}
export interface Seeded { operatorIds: string[]; agentIds: string[]; largestOperator: string; largestAgent: string; seconds: number; phases: { insertS: number; indexesS: number; rollupsS: number }; dbBytes: number }

const DAY = 86_400_000
/** Deterministic pseudo-random numbers (mulberry32), so two runs seed the same spread. */
function rng(seed: number) {
  let a = seed >>> 0
  return () => { a = (a + 0x6d2b79f5) >>> 0; let t = a; t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 4294967296 }
}
const STATUSES: [string, number][] = [['COMPLETED', 0.9], ['FAILED', 0.08], ['PROCESSING', 0.01], ['QUEUED', 0.005], ['PENDING_APPROVAL', 0.005]]

export function seedTasks(dataDir: string, o: SeedOptions): Seeded {
  const t0 = performance.now()
  let phases = { insertS: 0, indexesS: 0, rollupsS: 0 }
  const db = openDb(dataDir)
  migrate(db)
  const sql = db.$client
  const rand = rng(42)
  const operatorIds = Array.from({ length: o.operators }, (_, i) => (i === 0 && o.firstOperatorId) || `op_bench${String(i).padStart(4, '0')}`)
  const agentIds: string[][] = operatorIds.map((_, i) => Array.from({ length: o.agentsPerOperator }, (_, j) => `agent_bench${String(i).padStart(4, '0')}_${j}`))
  // Operator i gets a share proportional to 1/(i+1) (Zipf), so a few operators hold most tasks.
  const weights = operatorIds.map((_, i) => 1 / (i + 1))
  const cum: number[] = []
  weights.reduce((acc, w) => { cum.push(acc + w); return acc + w }, 0)
  const totalW = cum[cum.length - 1]!
  const pickOp = () => { const x = rand() * totalW; let lo = 0, hi = cum.length - 1; while (lo < hi) { const m = (lo + hi) >> 1; if (cum[m]! < x) lo = m + 1; else hi = m } return lo }
  const pickStatus = () => { let x = rand(); for (const [s, p] of STATUSES) { if ((x -= p) < 0) return s } return 'COMPLETED' }
  // Bulk load: no journal, and the triggers and secondary indexes of `tasks` rebuilt after the insert.
  sql.run('PRAGMA journal_mode = OFF')
  sql.run('PRAGMA synchronous = OFF')
  sql.run('PRAGMA cache_size = -512000')
  const rebuilt = sql.query("SELECT type, name, sql FROM sqlite_master WHERE type IN ('trigger', 'index') AND tbl_name = 'tasks' AND sql IS NOT NULL").all() as { type: string; name: string; sql: string }[]
  sql.transaction(() => {
    for (const x of rebuilt) sql.run(`DROP ${x.type.toUpperCase()} ${x.name}`)
    const insOp = sql.prepare("INSERT INTO operators (id, login, tier, status, role, flags, token_version, created_at, updated_at) VALUES (?1, ?2, 'ENTERPRISE', 'ACTIVE', 'operator', '{}', 0, ?3, ?3)")
    const insAgent = sql.prepare("INSERT INTO agents (id, operator_id, display_name, model, agent_version, capabilities, status, state_root, created_at, updated_at) VALUES (?1, ?2, ?1, 'builtin', '1', '[\"general\"]', 'ACTIVE', '0x00', ?3, ?3)")
    const start = o.now - o.days * DAY
    operatorIds.forEach((op, i) => { if (!(i === 0 && o.firstOperatorId)) insOp.run(op, `bench-op-${i}`, start); for (const a of agentIds[i]!) insAgent.run(a, op, start) })
    const ins = sql.prepare(`INSERT INTO tasks (id, operator_id, agent_id, task_type, prompt, model, provider, status, stage, failure_code, credits_charged, latency_ms,
      verification_status, verification_score, diagnostic, created_at, updated_at, completed_at) VALUES (?1, ?2, ?3, ?4, 'seeded', 'builtin', 'builtin', ?5, ?6, ?7, ?8, ?9, ?10, ?11, 0, ?12, ?12, ?13)`)
    for (let n = 0; n < o.tasks; n++) {
      const oi = pickOp()
      const agents = agentIds[oi]!
      const status = pickStatus()
      const createdAt = start + Math.floor(rand() * o.days * DAY)
      const done = status === 'COMPLETED'
      // Latency: log-normal around 40 ms with a long tail.
      const latency = done || status === 'FAILED' ? Math.max(1, Math.round(Math.exp(Math.log(40) + 0.9 * gauss(rand)))) : null
      const verified = done ? (rand() < 0.85 ? 'VERIFIED' : 'FAILED') : null
      ins.run(`task_b${n.toString(36).padStart(6, '0')}`, operatorIds[oi]!, agents[Math.floor(rand() * rand() * agents.length)]!, TASK_TYPES[Math.floor(rand() * TASK_TYPES.length)]!,
        status, done ? 8 : status === 'FAILED' ? 3 : 2, status === 'FAILED' ? 'COMPUTE_FAILED' : null, status === 'FAILED' || status === 'PENDING_APPROVAL' ? 0 : 1,
        latency, verified, verified ? (verified === 'VERIFIED' ? 0.9 : 0.4) : null, createdAt, done || status === 'FAILED' ? createdAt + (latency ?? 0) : null)
    }
  })()
  const tIns = performance.now()
  sql.transaction(() => { for (const x of rebuilt) sql.run(x.sql) })()
  const tIdx = performance.now()
  recomputeRollups(sql)
  const tRoll = performance.now()
  sql.run('PRAGMA journal_mode = WAL')
  phases = { insertS: (tIns - t0) / 1000, indexesS: (tIdx - tIns) / 1000, rollupsS: (tRoll - tIdx) / 1000 }
  const top = sql.query('SELECT agent_id AS a FROM task_counts WHERE kind = 2 GROUP BY agent_id ORDER BY sum(n) DESC LIMIT 1').get() as { a: string }
  sql.close()
  const dbBytes = Bun.file(`${dataDir}/taskgate.db`).size
  return { operatorIds, agentIds: agentIds.flat(), largestOperator: operatorIds[0]!, largestAgent: top.a, seconds: (performance.now() - t0) / 1000, phases, dbBytes }
}

function gauss(rand: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand())
}
