// #/operators (admins): every operator, with tier override and status changes.
import { clearBanner } from '../components/banner.js'
import { dash, dateCell, tierBadge } from '../components/cells.js'
import { pageHead } from '../components/layout.js'
import { api } from '../lib/api.js'
import { append, fill, h } from '../lib/dom.js'
import { STATUSES, TIERS } from '../lib/domain.js'
import { route } from '../lib/router.js'
import { state } from '../lib/session.js'
import { tableWrap } from '../components/table.js'
import { ask } from '../components/dialog.js'

route('operators', {
  title: 'Operators', nav: 'Operators', group: 'admin', order: 60,
  visible: (me) => !!(me && me.flags && me.flags.admin),
  async render(ctx) {
    append(ctx.view, pageHead('Operators', 'Every operator account on this server. Changes apply immediately.'))
    const tableSlot = h('div', null, h('p', { class: 'muted' }, 'Loading…'))
    append(ctx.view, tableSlot)
    const ops = await api('GET', '/api/v1/admin/operators')
    if (!ctx.alive()) return
    if (!ops.length) { fill(tableSlot, h('div', { class: 'empty' }, 'No operators.')); return }
    const tbody = h('tbody')
    for (const op of ops) append(tbody, operatorRow(op, ctx))
    fill(tableSlot, tableWrap(h('table', null,
      h('thead', null, h('tr', null, ['Login', 'Email', 'Role', 'Tier', 'Override', 'Effective', 'Status', 'Created'].map((t) => h('th', null, t)))),
      tbody)))
  },
})

function operatorRow(op, ctx) {
  const isSelf = state.me && state.me.id === op.id
  const override = h('select', { 'aria-label': `Tier override for ${op.identityLogin}` },
    h('option', { value: '' }, 'none'), TIERS.map((t) => h('option', { value: t }, t)))
  override.value = op.tierOverride || ''
  const status = h('select', { 'aria-label': `Status of ${op.identityLogin}`, disabled: op.status === 'BANNED' || isSelf, title: isSelf ? 'You cannot change your own status' : (op.status === 'BANNED' ? 'A ban is final' : null) },
    STATUSES.map((s) => h('option', { value: s }, s)))
  status.value = op.status

  const row = h('tr', { dataset: { operatorId: op.id } },
    h('td', null, h('div', null, h('strong', null, op.identityLogin), isSelf ? h('span', { class: 'muted small' }, ' (you)') : null),
      op.displayName && op.displayName !== op.identityLogin ? h('div', { class: 'muted small' }, op.displayName) : null),
    h('td', null, op.email || dash()),
    h('td', null, op.role === 'admin' ? h('span', { class: 'badge purple' }, 'admin') : h('span', { class: 'muted' }, op.role || '—')),
    h('td', null, tierBadge(op.tier)),
    h('td', null, override),
    h('td', null, tierBadge(op.effectiveTier)),
    h('td', null, status),
    h('td', { class: 'nowrap' }, dateCell(op.createdAt)))

  async function patch(body, select, previous, what) {
    if (body.status === 'BANNED' && !(await ask(`Ban ${op.identityLogin}?\n\nA ban is final and cannot be undone.`, { confirm: 'Ban', danger: true }))) { select.value = previous; return }
    select.disabled = true
    clearBanner()
    try {
      const updated = await api('PATCH', `/api/v1/admin/operators/${encodeURIComponent(op.id)}`, body)
      row.replaceWith(operatorRow(updated, ctx))
      ctx.flash(`${updated.identityLogin}: ${what} updated.`)
    } catch (err) {
      select.value = previous
      select.disabled = false
      ctx.error(err)
    }
  }
  override.addEventListener('change', () => patch({ tierOverride: override.value || null }, override, op.tierOverride || '', 'tier override'))
  status.addEventListener('change', () => patch({ status: status.value }, status, op.status, 'status'))
  return row
}
