// An agent's passport (the public agent page and the agent's own page): its trust level on the
// scale, what the next level takes, and each metric with its range and meaning. The ranges and
// thresholds are the server's: trustMetrics(), trustLevel() and PROMOTIONS in
// src/agents/fingerprint.ts, documented in docs/pipeline.md ("Trust levels").
import { badge } from './cells.js'
import { h } from '../lib/dom.js'
import { fmtDate, fmtInt } from '../lib/format.js'

/** Lowest to highest. */
const TRUST_LEVELS = ['QUARANTINE', 'PROBATIONARY', 'PROVISIONAL', 'STANDARD', 'TRUSTED']

/** [field, label, what it measures, its scale and the thresholds that use it]. */
const METRICS = [
  ['ari', 'ARI', 'Reliability: the share of the agent\'s attempts that succeeded, smoothed (a new agent starts at 0.5).',
    '0–1, higher is better. Below 0.5 after 5 attempts: QUARANTINE. TRUSTED needs at least 0.95.'],
  ['vci', 'VCI', 'Verified work: the share of completed tasks that passed verification × the mean verification score.',
    '0–1, higher is better. STANDARD needs at least 0.5, TRUSTED 0.8.'],
  ['cq', 'CQ', 'Consistency: how steady latency and output size are, 1 ÷ (1 + their mean coefficient of variation).',
    '0–1, higher is steadier (1: every task alike). Not used for the trust level.'],
  ['driftScore', 'Drift', 'How far the latest task is from the agent\'s usual latency, output size and verification score: the root-mean-square of their z-scores (a Mahalanobis distance with diagonal variance).',
    '0 or more, lower is better; about 1 is ordinary variation, 0 until the agent has completed 3 tasks. Above 4 after 5 attempts: QUARANTINE.'],
]

const levelColor = (level) => (level === 'TRUSTED' ? 'green' : level === 'QUARANTINE' ? 'red' : '')

/** `rank`: [list, leaderboard entry] when the agent is on the leaderboard. */
export function passportCard(p, rank) {
  const next = p.nextLevel
  const metric = (label, value, meaning, scale) => [h('dt', null, label),
    h('dd', null, h('strong', null, value), ' — ', meaning, h('div', { class: 'metric-scale' }, scale))]
  return h('div', { class: 'card passport' },
    h('dl', { class: 'dl' },
      h('dt', null, 'Trust level'),
      h('dd', { class: 'trust' },
        h('div', null, badge(p.trustLevel, levelColor(p.trustLevel)),
          rank ? h('span', { class: 'muted' }, ` · #${rank[1].rank} on the ${rank[0] === 'data' ? '' : `${rank[0]} `}leaderboard (score ${rank[1].score} of 100)`) : null),
        h('ol', { class: 'trust-scale', 'aria-label': 'Trust levels, lowest to highest' },
          TRUST_LEVELS.map((l) => h('li', { 'aria-current': l === p.trustLevel ? 'true' : null }, l))),
        next ? h('p', null, `Next: ${next.trustLevel} — needs `, next.requirements.map((q, i) => h('span', { class: q.met ? 'check-ok' : 'check-bad' },
          `${i ? ', ' : ''}${q.metric} ${q.minimum !== undefined ? `≥ ${q.minimum}` : `≤ ${q.maximum}`} (now ${q.current}${q.met ? ' ✓' : ''})`))) : h('p', null, 'Highest trust level reached.')),
      METRICS.map(([k, label, meaning, scale]) => metric(label, String(p[k]), meaning, scale)),
      metric('Tasks', `${fmtInt(p.totalTasks)} completed, ${fmtInt(p.verifiedTasks)} verified`, 'tasks the agent finished, and those that passed verification.',
        'PROVISIONAL needs 5 completed tasks, STANDARD 25, TRUSTED 100.'),
      h('dt', null, 'Enrolled'), h('dd', null, fmtDate(p.enrolledAt)),
      h('dt', null, 'Last active'), h('dd', null, fmtDate(p.lastActiveAt) ?? 'never')))
}
