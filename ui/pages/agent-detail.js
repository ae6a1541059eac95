// #/agents/<id>: one agent, its policy status, how to connect a client as it, metrics and
// verification history.
import { archiveAgent, testRunButton } from '../components/agent-actions.js'
import { agentStatusBadge, badge, dash, dateCell, mono, taskLink, verificationCell } from '../components/cells.js'
import { connectCard } from '../components/connect.js'
import { dl, pageHead, statCard } from '../components/layout.js'
import { api } from '../lib/api.js'
import { append, fill, h } from '../lib/dom.js'
import { fmtInt, humanize, qs } from '../lib/format.js'
import { render } from '../lib/router.js'
import { tableWrap } from '../components/table.js'
import { passportCard } from '../components/passport.js'
import { explorerHref } from './explorer.js'

export async function agentDetailPage(ctx, id) {
  const [a, passport] = await Promise.all([
    api('GET', `/api/v1/agents/${encodeURIComponent(id)}`),
    api('GET', `/api/v1/public/agent/${encodeURIComponent(id)}/passport`, undefined, { auth: false }).catch(() => null),
  ])
  if (!ctx.alive()) return
  document.title = `${a.displayName} · Agents · TaskGate`
  const runSlot = h('div')
  let runPanel = null
  const actions = a.status === 'ACTIVE' ? [
    h('a', { class: 'button secondary', href: `#/tasks${qs({ submit: a.agentId })}` }, 'Submit a task'), ' ',
    testRunButton(a, ctx, (panel) => {
      if (runPanel) runPanel.destroy()
      runPanel = panel
      fill(runSlot, h('div', { class: 'card' }, h('h2', null, 'Test run'), panel.el))
    }), ' ',
    h('button', { type: 'button', class: 'danger', onclick: () => archiveAgent(a, ctx, async () => { render() }) }, 'Archive'),
  ] : []
  for (const b of actions) if (b instanceof HTMLButtonElement && b.classList.contains('small')) b.classList.remove('small')

  const ps = a.policyStatus || {}
  const m = a.metrics && typeof a.metrics === 'object' ? a.metrics : {}
  const history = Array.isArray(a.verificationHistory) ? a.verificationHistory : []
  append(ctx.view,
    h('p', { class: 'crumbs' }, h('a', { href: '#/agents' }, '← Agents')),
    pageHead(a.displayName, a.description || null, actions),
    runSlot,
    h('div', { class: 'grid2' },
      h('div', { class: 'card' }, h('h2', null, 'Agent'), dl([
        ['Agent ID', mono(a.agentId)],
        ['Status', agentStatusBadge(a.status)],
        ['Capabilities', h('div', { class: 'chips' }, a.capabilities.map((c) => badge(c)))],
        ['Model', h('code', null, a.model)],
        ['Version', a.agentVersion || dash()],
        ['Created', dateCell(a.createdAt)],
        ['Updated', dateCell(a.updatedAt)],
        ['State root', mono(a.stateRoot)],
      ])),
      h('div', { class: 'card' }, h('h2', null, 'Policy status'), dl([
        ['Status', agentStatusBadge(ps.status)],
        ['Trust level', ps.trustLevel ? badge(ps.trustLevel, ps.trustLevel === 'TRUSTED' ? 'green' : 'amber') : dash()],
        ['Key active', ps.keyActive ? badge('yes', 'green') : badge('no', 'red')],
        ['Allowed task types', Array.isArray(ps.allowedTaskTypes) && ps.allowedTaskTypes.length ? h('div', { class: 'chips' }, ps.allowedTaskTypes.map((c) => badge(c))) : dash()],
      ]))),
    a.status === 'ACTIVE' ? connectCard(a, ctx) : null,
    passport ? h('section', { 'aria-label': 'Passport' }, h('div', { class: 'card-head' }, h('h2', null, 'Passport'), h('a', { href: explorerHref('agent', a.agentId) }, 'Public page →')), passportCard(passport)) : null,
    h('div', { class: 'card' }, h('div', { class: 'card-head' }, h('h2', null, 'Metrics'), h('a', { href: `#/tasks${qs({ agent: a.agentId })}` }, 'This agent\'s tasks →')),
      Object.keys(m).length ? h('div', { class: 'stats' }, Object.entries(m).map(([k, v]) => statCard(METRIC_LABELS[k] || humanize(k), typeof v === 'number' ? (Number.isInteger(v) ? fmtInt(v) : v.toFixed(3)) : JSON.stringify(v)))) : h('p', { class: 'muted' }, 'No metrics yet.')),
    h('div', { class: 'card' }, h('h2', null, 'Verification history'),
      history.length ? tableWrap(h('table', null,
        h('thead', null, h('tr', null, ['Task', 'Type', 'Verification', 'Completed'].map((t) => h('th', null, t)))),
        h('tbody', null, history.map((v) => h('tr', null,
          h('td', null, taskLink(v.taskId)), h('td', null, v.taskType),
          h('td', null, verificationCell(v.verificationStatus, v.verificationScore)),
          h('td', { class: 'nowrap' }, dateCell(v.completedAt, '—'))))))) : h('div', { class: 'empty' }, 'No verified tasks yet.')))
}

const METRIC_LABELS = { totalTasks: 'Total tasks', verifiedTasks: 'Verified tasks', failedTasks: 'Failed tasks', ari: 'ARI', vci: 'VCI', cq: 'CQ', driftScore: 'Drift score' }
