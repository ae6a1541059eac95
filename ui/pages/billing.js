// #/billing: credits, this month's usage, transactions and the wallet.
import { badge, dash, dateCell, taskLink } from '../components/cells.js'
import { pageHead, statCard, trend } from '../components/layout.js'
import { pager } from '../components/pager.js'
import { walletSection } from '../components/wallet.js'
import { api, loadMe, loadPublicConfig } from '../lib/api.js'
import { append, fill, h } from '../lib/dom.js'
import { fmtDate, fmtInt, fmtMs, humanize, intParam, qs } from '../lib/format.js'
import { route } from '../lib/router.js'
import { state } from '../lib/session.js'
import { tableWrap } from '../components/table.js'

route('billing', {
  title: 'Billing', nav: 'Billing', group: 'account', order: 30,
  async render(ctx) {
    const page = intParam(ctx.params, 'page', 1)
    const me = state.me
    append(ctx.view, pageHead('Billing', 'Credits, usage this month and the wallet that pays for more.'))
    const statsSlot = h('div', { class: 'stats' }, h('p', { class: 'muted' }, 'Loading…'))
    const txSlot = h('div', null, h('p', { class: 'muted' }, 'Loading…'))
    const walletCard = h('div', { class: 'card' })
    append(ctx.view, statsSlot, walletCard, h('div', { class: 'card' }, h('h2', null, 'Transactions'), txSlot))

    async function loadAll() {
      const [billing, stats, config] = await Promise.all([
        api('GET', `/api/v1/operator/billing${qs({ page, limit: 20 })}`),
        api('GET', '/api/v1/operator/dashboard'),
        loadPublicConfig(),
      ])
      if (!ctx.alive()) return
      fill(statsSlot, ...billingStats(billing.balance, stats))
      fill(txSlot, transactionsTable(billing))
      return config
    }
    const config = await loadAll()
    if (!ctx.alive()) return
    walletSection(walletCard, ctx, me, config, async () => { await loadMe(true); await loadAll() })
  },
})

function billingStats(b, d) {
  const reset = b.nextResetAt ? fmtDate(b.nextResetAt).slice(0, 10) : null
  return [
    statCard('Balance', fmtInt(b.balance), `${fmtInt(b.allocationBalance)} allocation + ${fmtInt(b.purchasedBalance)} purchased`),
    statCard('Monthly allocation', fmtInt(b.monthlyAllocation), reset ? `resets ${reset}${typeof d.creditsResetDays === 'number' ? ` (in ${d.creditsResetDays} d)` : ''}` : null),
    statCard('Tasks this month', fmtInt(d.tasksThisMonth), trend(d.tasksTrend)),
    statCard('Verification rate', `${typeof d.verificationRate === 'number' ? Math.round(d.verificationRate * 10) / 10 : 0}%`, trend(d.verificationTrend, ' pp')),
    statCard('Average latency', fmtMs(d.avgLatencyMs) || '—', trend(d.latencyTrend, ' ms', true)),
    statCard('Agents', fmtInt(d.agentCount), h('a', { href: '#/agents' }, 'Manage agents →')),
  ]
}

function transactionsTable(billing) {
  if (!billing.transactions.length) return h('div', { class: 'empty' }, 'No transactions yet.')
  return h('div', null,
    tableWrap(h('table', null,
      h('thead', null, h('tr', null, ['Date', 'Reason', 'Bucket', 'Change', 'Balance after', 'Task'].map((t) => h('th', null, t)))),
      h('tbody', null, billing.transactions.map((t) => h('tr', null,
        h('td', { class: 'nowrap' }, dateCell(t.createdAt)),
        h('td', null, reasonCell(t.reason)),
        h('td', null, badge(t.bucket, t.bucket === 'purchased' ? 'blue' : '')),
        h('td', { class: `num nowrap ${t.delta < 0 ? 'neg' : 'pos'}` }, `${t.delta > 0 ? '+' : t.delta < 0 ? '−' : ''}${fmtInt(Math.abs(t.delta))}`),
        h('td', { class: 'num' }, fmtInt(t.balanceAfter)),
        h('td', null, t.taskId ? taskLink(t.taskId) : dash())))))),
    pager(billing, (p) => `#/billing${qs({ page: p > 1 ? p : '' })}`, billing.total === 1 ? 'transaction' : 'transactions'))
}

/** Ledger reasons look like "task_debit" or "x402_payment:0x…" (a reference after the colon). */
function reasonCell(reason) {
  const s = String(reason || '')
  const i = s.indexOf(':')
  if (i < 0) return humanize(s)
  const ref = s.slice(i + 1)
  return h('span', null, humanize(s.slice(0, i)), ' ', h('code', { class: 'muted small', title: ref }, ref.length > 18 ? `${ref.slice(0, 10)}…${ref.slice(-6)}` : ref))
}
