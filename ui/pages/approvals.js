// #/approvals: actions held for a human, by decision, and #/approvals/<id> to approve or deny one.
import { clearBanner } from '../components/banner.js'
import { agentLink, badge, dash, dateCell, mono, taskLink } from '../components/cells.js'
import { field, textarea } from '../components/forms.js'
import { renderNav } from '../components/header.js'
import { dl, pageHead } from '../components/layout.js'
import { dataTable } from '../components/table.js'
import { api } from '../lib/api.js'
import { append, fill, h } from '../lib/dom.js'
import { fmtDate, humanize, qs } from '../lib/format.js'
import { currentRouteName, route } from '../lib/router.js'
import { session } from '../lib/session.js'
import { ask } from '../components/dialog.js'

const DECISION_COLOR = { PENDING: 'purple', APPROVED: 'green', DENIED: 'red', EXPIRED: '' }

const DECISIONS = ['PENDING', 'APPROVED', 'DENIED', 'EXPIRED']

/** The pending approvals count shown in the navigation ("Approvals (3)"); refreshed on every page. */
let pendingApprovals = null

async function refreshApprovalCount() {
  if (!session.token) return
  try {
    const c = await api('GET', '/api/v1/approvals/count')
    if (c.pending !== pendingApprovals) { pendingApprovals = c.pending; renderNav(currentRouteName()) }
  } catch { /* the count is a hint; the page itself shows errors */ }
}

function approvalDetail(a, ctx, onResolved) {
  const rows = dl([
    ['Decision', badge(a.decision, DECISION_COLOR[a.decision])],
    ['Task', taskLink(a.taskId)],
    ['Agent', agentLink(a.agentId)],
    ['Action', [a.actionType, a.operation].filter(Boolean).join(' · ') || dash()],
    ['Target', a.target ? mono(a.target) : dash()],
    ['Requested value', a.requestedValue === null ? dash() : `${a.requestedValue}${a.currency ? ` ${a.currency}` : ''}`],
    ['Why held', a.triggerReason],
    ['Policy checks', h('ul', { class: 'plain' }, a.policyEvaluations.map((e) => h('li', null, badge(e.result, e.result === 'pass' ? 'green' : e.result === 'fail' ? 'red' : 'amber'), ' ', h('strong', null, e.name), ' ', h('span', { class: 'muted' }, e.reason))))],
    ['Requested', dateCell(a.createdAt)],
    ['Expires', a.expiresAt ? dateCell(a.expiresAt) : dash()],
    ['Decided', a.decidedAt ? h('span', null, dateCell(a.decidedAt), a.decidedBy ? ` by ${a.decidedBy}` : '') : dash()],
    ['Note', a.decisionNote || dash()],
  ])
  if (a.decision !== 'PENDING') return h('div', { class: 'card approval', dataset: { id: a.id } }, h('h2', null, `Approval ${a.id}`), rows)
  const note = textarea({ name: 'note', rows: 2, maxlength: 2000, placeholder: 'optional note, stored with the decision' })
  const resolve = async (decision, btn) => {
    if (decision === 'approved' && !(await ask(`Approve this action${a.requestedValue !== null ? ` of ${a.requestedValue}${a.currency ? ` ${a.currency}` : ''}` : ''}?\n\nThe task runs and is charged.`, { confirm: 'Approve' }))) return
    btn.disabled = true
    clearBanner()
    try {
      const r = await api('PATCH', `/api/v1/approvals/${encodeURIComponent(a.id)}`, note.value.trim() ? { decision, note: note.value.trim() } : { decision })
      ctx.flash(decision === 'approved'
        ? (r.resumeError ? `Approved, but the task could not run: ${r.resumeError}` : r.receipt ? `Approved: the task ${r.receipt.status === 'COMPLETED' ? 'completed' : 'ended ' + r.receipt.status}.` : 'Approved: the task is running.')
        : 'Denied: the task failed and nothing was charged.')
      await onResolved()
    } catch (err) { ctx.error(err); btn.disabled = false }
  }
  const approve = h('button', { type: 'button', class: 'approve' }, 'Approve')
  const deny = h('button', { type: 'button', class: 'danger deny' }, 'Deny')
  approve.addEventListener('click', () => resolve('approved', approve))
  deny.addEventListener('click', () => resolve('denied', deny))
  return h('div', { class: 'card approval', dataset: { id: a.id } }, h('h2', null, `Approval ${a.id}`), rows, field('Note', note), h('div', { class: 'actions' }, approve, deny))
}

route('approvals', {
  title: 'Approvals', nav: 'Approvals', group: 'govern', order: 56, count: () => pendingApprovals, onEveryPage: () => refreshApprovalCount(),
  async render(ctx) {
    // #/approvals/<id> is the deep link approval webhooks point to (resolveUrl).
    if (ctx.sub) {
      append(ctx.view, pageHead('Approval request', null, h('a', { class: 'button secondary', href: '#/approvals' }, 'All approvals')))
      const slot = h('div', null, h('p', { class: 'muted' }, 'Loading…'))
      append(ctx.view, slot)
      const load = async () => {
        const a = await api('GET', `/api/v1/approvals/${encodeURIComponent(ctx.sub)}`)
        if (ctx.alive()) fill(slot, approvalDetail(a, ctx, async () => { await load(); await refreshApprovalCount() }))
      }
      await load()
      return
    }
    const decision = DECISIONS.includes(ctx.params.get('decision')) ? ctx.params.get('decision') : 'PENDING'
    append(ctx.view, pageHead('Approvals', 'Actions held for a human because their requested value exceeds your approval threshold. Approve to run (and charge) the task, deny to fail it; unanswered requests expire.',
      h('div', { class: 'tabs' }, DECISIONS.map((d) => h('a', { href: `#/approvals?decision=${d}`, class: d === decision ? 'active' : null }, humanize(d).toLowerCase())))))
    const slot = h('div', null, h('p', { class: 'muted' }, 'Loading…'))
    append(ctx.view, slot)
    const load = async () => {
      const list = await api('GET', `/api/v1/approvals${qs({ decision })}`)
      if (!ctx.alive()) return
      fill(slot, list.length
        ? dataTable(['Requested', 'Agent', 'Action', 'Value', 'Decision', 'Expires'],
          list.map((a) => h('tr', null,
            h('td', null, h('a', { href: `#/approvals/${encodeURIComponent(a.id)}` }, fmtDate(a.createdAt))),
            h('td', null, agentLink(a.agentId)),
            h('td', null, [a.actionType, a.operation].filter(Boolean).join(' · ') || '—'),
            h('td', null, a.requestedValue === null ? '—' : `${a.requestedValue}${a.currency ? ` ${a.currency}` : ''}`),
            h('td', null, badge(a.decision, DECISION_COLOR[a.decision])),
            h('td', null, a.expiresAt ? dateCell(a.expiresAt) : dash()))))
        : h('p', { class: 'empty muted' }, `No ${decision.toLowerCase()} approval requests.`))
      await refreshApprovalCount()
    }
    await load()
  },
})
