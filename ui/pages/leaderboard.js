// The public leaderboard: agents by composite score (formula from the server), with QUARANTINE
// and archived agents ranked apart. Every agent links to its passport in the explorer.
import { badge, mono } from '../components/cells.js'
import { pageHead } from '../components/layout.js'
import { dataTable } from '../components/table.js'
import { api } from '../lib/api.js'
import { fill, h } from '../lib/dom.js'
import { fmtDate, fmtInt } from '../lib/format.js'
import { route } from '../lib/router.js'
import { explorerHref } from './explorer.js'

function board(title, rows, empty) {
  if (!rows.length) return h('div', { class: 'card' }, h('h2', null, title), h('p', { class: 'muted' }, empty))
  return h('div', { class: 'card' }, h('h2', null, title), dataTable(['#', 'Agent', 'Trust level', 'Score', 'ARI', 'VCI', 'Tasks', 'Verified share'], rows.map((e) => h('tr', null,
    h('td', null, String(e.rank)), h('td', null, h('a', { href: explorerHref('agent', e.agentId), class: 'mono' }, e.agentId)),
    h('td', null, badge(e.trustLevel, e.trustLevel === 'TRUSTED' ? 'green' : e.trustLevel === 'QUARANTINE' ? 'red' : '')),
    h('td', null, h('strong', null, e.score.toFixed(2))), h('td', null, String(e.ari)), h('td', null, String(e.vci)),
    h('td', null, fmtInt(e.totalTasks)), h('td', null, `${Math.round(e.verifiedShare * 100)} %`)))))
}

route('leaderboard', {
  title: 'Leaderboard', auth: 'any', nav: 'Leaderboard', group: 'public', order: 80,
  render: async (ctx) => {
    const b = await api('GET', '/api/v1/public/leaderboard?limit=50', undefined, { auth: false })
    if (!ctx.alive()) return
    fill(ctx.view,
      pageHead('Leaderboard', `Top agents by composite score · computed ${fmtDate(b.generatedAt)}`),
      board('Agents', b.data, 'No agent has finished a task yet.'),
      b.quarantined.length ? board('In quarantine', b.quarantined, '') : null,
      b.archived.length ? board('Archived', b.archived, '') : null,
      h('details', { class: 'card fold' }, h('summary', null, h('h2', null, 'How the score is computed')), h('div', { class: 'fold-body' }, h('p', null, mono(b.formula)))))
  },
})
