// The public agent leaderboard (issue 11; docs/pipeline.md, "Leaderboard").
// score (0–100, 2 decimals) = 100 × (0.5 × trust + 0.3 × verified + 0.2 × volume), where
//   trust    = the trust level's position QUARANTINE 0, PROBATIONARY 1/4 … TRUSTED 1,
//   verified = verifiedTasks ÷ totalTasks (completed tasks that verified),
//   volume   = min(1, log10(1 + totalTasks) ÷ 3): saturates at 999 completed tasks.
// Ties: more completed tasks first, then the agent id. Active agents in QUARANTINE and archived
// agents are ranked apart, so neither pushes a healthy agent off the board. Candidates: agents
// with at least one finished or failed task. Computed at most once per CACHE_MS (public, no
// credential: a flood of requests costs one computation per interval).
import type { AgentService } from '../agents/service'
import { TRUST_LEVELS } from '../agents/fingerprint'
import type { Clock } from '../clock'

export const SCORE_FORMULA = 'score = 100 × (0.5 × trust + 0.3 × verified + 0.2 × volume), 2 decimals; trust = trust level position (QUARANTINE 0, PROBATIONARY 0.25, PROVISIONAL 0.5, STANDARD 0.75, TRUSTED 1); verified = verifiedTasks ÷ totalTasks; volume = min(1, log10(1 + totalTasks) ÷ 3). Ties: more totalTasks, then agentId.'
const CACHE_MS = 5_000

export interface RankedAgent {
  rank: number; agentId: string; trustLevel: string; score: number; ari: number; vci: number; cq: number
  totalTasks: number; verifiedTasks: number; verifiedShare: number
}
export interface Board { generatedAt: string; formula: string; data: RankedAgent[]; quarantined: RankedAgent[]; archived: RankedAgent[] }

export function compositeScore(trustLevel: string, totalTasks: number, verifiedTasks: number): number {
  const trust = Math.max(0, TRUST_LEVELS.indexOf(trustLevel as (typeof TRUST_LEVELS)[number])) / (TRUST_LEVELS.length - 1)
  const verified = totalTasks > 0 ? verifiedTasks / totalTasks : 0
  const volume = Math.min(1, Math.log10(1 + totalTasks) / 3)
  return Math.round(100 * (0.5 * trust + 0.3 * verified + 0.2 * volume) * 100) / 100
}

export class Leaderboard {
  private cache: { at: number; lists: Omit<Board, 'generatedAt' | 'formula'>; generatedAt: string } | null = null

  constructor(private agents: Pick<AgentService, 'withTasks' | 'trust'>, private clock: Clock) {}

  top(limit: number): Board {
    const now = this.clock.now()
    if (!this.cache || now - this.cache.at >= CACHE_MS || now < this.cache.at) this.cache = { at: now, lists: this.rank(), generatedAt: new Date(now).toISOString() }
    const { data, quarantined, archived } = this.cache.lists
    return { generatedAt: this.cache.generatedAt, formula: SCORE_FORMULA, data: data.slice(0, limit), quarantined: quarantined.slice(0, limit), archived: archived.slice(0, limit) }
  }

  private rank() {
    const lists: Record<'data' | 'quarantined' | 'archived', Omit<RankedAgent, 'rank'>[]> = { data: [], quarantined: [], archived: [] }
    for (const a of this.agents.withTasks()) {
      const t = this.agents.trust(a)
      const entry = {
        agentId: a.id, trustLevel: t.trustLevel, score: compositeScore(t.trustLevel, a.totalTasks, a.verifiedTasks), ari: t.ari, vci: t.vci, cq: t.cq,
        totalTasks: a.totalTasks, verifiedTasks: a.verifiedTasks, verifiedShare: a.totalTasks > 0 ? Math.round((a.verifiedTasks / a.totalTasks) * 10000) / 10000 : 0,
      }
      lists[a.status === 'ARCHIVED' ? 'archived' : t.trustLevel === 'QUARANTINE' ? 'quarantined' : 'data'].push(entry)
    }
    const order = (x: Omit<RankedAgent, 'rank'>, y: Omit<RankedAgent, 'rank'>) => y.score - x.score || y.totalTasks - x.totalTasks || (x.agentId < y.agentId ? -1 : 1)
    const ranked = (l: Omit<RankedAgent, 'rank'>[]) => l.sort(order).map((e, i) => ({ rank: i + 1, ...e }))
    return { data: ranked(lists.data), quarantined: ranked(lists.quarantined), archived: ranked(lists.archived) }
  }
}
