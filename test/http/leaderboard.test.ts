// The public leaderboard (docs/pipeline.md "Leaderboard") and the passport's next trust level.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { expectProblem, startServer, type TestServer } from '../helpers/server'

let s: TestServer
let admin: string
const agents: Record<'busy' | 'new' | 'gone' | 'failing', { agentId: string; apiKey: string }> = {} as never

const LEVELS = ['QUARANTINE', 'PROBATIONARY', 'PROVISIONAL', 'STANDARD', 'TRUSTED']
/** The documented formula, written out independently of the server's code. */
const expectedScore = (e: { trustLevel: string; totalTasks: number; verifiedTasks: number }) => {
  const trust = LEVELS.indexOf(e.trustLevel) / 4
  const verified = e.totalTasks ? e.verifiedTasks / e.totalTasks : 0
  const volume = Math.min(1, Math.log10(1 + e.totalTasks) / 3)
  return Math.round((50 * trust + 30 * verified + 20 * volume) * 100) / 100
}

const run = (a: { agentId: string; apiKey: string }, taskType = 'general') =>
  s.post('/api/v1/tasks/submit?wait=30', { agentId: a.agentId, taskType, prompt: 'Rank me fairly: I did the work and it verified.' }, { key: a.apiKey })

beforeAll(async () => {
  s = await startServer({ TASKGATE_TEST_CLOCK: '1' })
  admin = await s.setupAdmin()
  const token = await s.signup('ranked')
  const other = await s.signup('ranked-too') // a FREE operator has at most 3 agents
  for (const name of ['busy', 'new', 'gone', 'failing'] as const) {
    const r = await s.post('/api/v1/agents/register', { displayName: name, capabilities: ['general'] }, { token: name === 'failing' ? other : token })
    expect(r.status).toBe(201)
    agents[name] = r.body
  }
  for (let i = 0; i < 6; i++) expect((await run(agents.busy)).body.status).toBe('COMPLETED')
  expect((await run(agents.new)).body.status).toBe('COMPLETED')
  expect((await run(agents.gone)).body.status).toBe('COMPLETED')
  expect((await s.req('DELETE', `/api/v1/agents/${agents.gone.agentId}`, { token })).status).toBe(204)
  // five tasks the agent may not run: its own faults, so it ends in QUARANTINE
  for (let i = 0; i < 5; i++) expect((await run(agents.failing, 'code')).status).toBe(403)
}, 60_000)
afterAll(async () => { await s?.cleanup() })

describe('GET /api/v1/public/leaderboard', () => {
  test('ranks active agents by the documented score; QUARANTINE and archived agents are listed apart', async () => {
    const r = await s.get('/api/v1/public/leaderboard')
    expect(r.status).toBe(200)
    const { data, quarantined, archived } = r.body
    expect(data.map((e: { agentId: string }) => e.agentId)).toEqual([agents.busy.agentId, agents.new.agentId])
    expect(data.map((e: { rank: number }) => e.rank)).toEqual([1, 2])
    expect(data[0]).toMatchObject({ trustLevel: 'PROVISIONAL', totalTasks: 6 })
    expect(data[1]).toMatchObject({ trustLevel: 'PROBATIONARY', totalTasks: 1 })
    for (const e of [...data, ...quarantined, ...archived]) expect(e.score).toBe(expectedScore(e))
    expect(quarantined).toEqual([expect.objectContaining({ rank: 1, agentId: agents.failing.agentId, trustLevel: 'QUARANTINE', totalTasks: 0, score: 0 })])
    expect(archived).toEqual([expect.objectContaining({ rank: 1, agentId: agents.gone.agentId })])
    expect(r.body.formula).toContain('0.5 × trust + 0.3 × verified + 0.2 × volume')
  })

  test('?limit caps each list (1–100); out of range → 400', async () => {
    const r = await s.get('/api/v1/public/leaderboard?limit=1')
    expect(r.body.data).toHaveLength(1)
    expect(r.body.data[0].agentId).toBe(agents.busy.agentId)
    expectProblem(await s.get('/api/v1/public/leaderboard?limit=0'), 400, 'VALIDATION_FAILED')
    expectProblem(await s.get('/api/v1/public/leaderboard?limit=101'), 400, 'VALIDATION_FAILED')
  })

  test('recomputed at most every 5 s (test clock)', async () => {
    const before = (await s.get('/api/v1/public/leaderboard')).body
    expect((await run(agents.new)).body.status).toBe('COMPLETED')
    expect((await s.get('/api/v1/public/leaderboard')).body).toEqual(before)
    expect((await s.post('/api/v1/admin/clock/advance', { ms: 5_000 }, { token: admin })).status).toBe(200)
    const after = (await s.get('/api/v1/public/leaderboard')).body
    expect(after.data.find((e: { agentId: string }) => e.agentId === agents.new.agentId).totalTasks).toBe(2)
    expect(Date.parse(after.generatedAt)).toBeGreaterThan(Date.parse(before.generatedAt))
  })
})

describe('passport nextLevel', () => {
  test('names the next level and each requirement with its current value', async () => {
    const p = (await s.get(`/api/v1/public/agent/${agents.busy.agentId}/passport`)).body
    expect(p.trustLevel).toBe('PROVISIONAL')
    expect(p.nextLevel).toEqual({ trustLevel: 'STANDARD', requirements: [
      { metric: 'totalTasks', minimum: 25, current: 6, met: false },
      { metric: 'vci', minimum: 0.5, current: p.vci, met: p.vci >= 0.5 },
    ] })
    const q = (await s.get(`/api/v1/public/agent/${agents.failing.agentId}/passport`)).body
    expect(q.trustLevel).toBe('QUARANTINE')
    expect(q.nextLevel.trustLevel).toBe('PROBATIONARY')
    expect(q.nextLevel.requirements[0]).toEqual({ metric: 'ari', minimum: 0.5, current: q.ari, met: false })
  })
})

describe('reaching TRUSTED', () => {
  test('the 100th verified task makes the agent TRUSTED and earns its operator trustedLevelPoints once', async () => {
    const a = (await s.post('/api/v1/agents/register', { displayName: 'steady', capabilities: ['sentiment_analysis'] }, { token: admin })).body
    const points = async () => (await s.get('/api/v1/auth/me', { token: admin })).body.pioneerPoints as number
    const me = (await s.get('/api/v1/auth/me', { token: admin })).body.id as string
    expect((await s.post('/api/v1/admin/credits', { operatorId: me, amount: 1000, reason: 'trust test' }, { token: admin })).status).toBe(200)
    const passport = async () => (await s.get(`/api/v1/public/agent/${a.agentId}/passport`)).body
    const runOne = async () => {
      const r = await s.post('/api/v1/tasks/submit?wait=30', { agentId: a.agentId, taskType: 'sentiment_analysis', prompt: 'Steady, verified work: the result was excellent and clear.' }, { token: admin }) // bearer: 600 requests a minute
      expect(r.body.status).toBe('COMPLETED')
      expect(r.body.verificationStatus).toBe('VERIFIED')
    }
    for (let i = 0; i < 99; i += 9) await Promise.all(Array.from({ length: 9 }, runOne)) // 99 tasks, 9 at a time
    expect((await passport()).trustLevel).not.toBe('TRUSTED')
    const before = await points()
    await runOne()
    const p = await passport()
    expect(p.totalTasks).toBe(100)
    expect(p.trustLevel).toBe('TRUSTED')
    expect(await points()).toBe(before + 25 + 2000) // leaderboard.pioneer.taskPoints + trustedLevelPoints
    await runOne()
    expect(await points()).toBe(before + 25 + 2000 + 25) // the award is once per agent
  }, 60_000)
})
