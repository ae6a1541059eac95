// #/profile: the signed-in operator's account.
import { dash, dateCell, statusBadge, tierBadge } from '../components/cells.js'
import { logout, renderNav } from '../components/header.js'
import { pageHead } from '../components/layout.js'
import { loadMe } from '../lib/api.js'
import { append, h } from '../lib/dom.js'
import { route } from '../lib/router.js'

route('profile', {
  title: 'Profile', nav: 'Profile', group: 'account', order: 50,
  async render(ctx) {
    const me = await loadMe(true)
    if (!ctx.alive()) return
    renderNav('profile')
    const flags = me.flags && typeof me.flags === 'object' ? Object.entries(me.flags) : []
    const rows = [
      ['ID', h('code', null, me.id)],
      ['Login', me.identityLogin],
      ['Display name', me.displayName || dash()],
      ['Email', me.email || dash()],
      ['Tier', tierBadge(me.tier)],
      ['Tier override', me.tierOverride ? tierBadge(me.tierOverride) : dash()],
      ['Effective tier', tierBadge(me.effectiveTier)],
      ['Status', statusBadge(me.status)],
      ['Wallet address', me.walletAddress ? h('code', null, me.walletAddress) : dash()],
      ['Pioneer points', String(me.pioneerPoints ?? 0)],
      ['First task', me.firstTaskAt ? dateCell(me.firstTaskAt) : dash()],
      ['Has an API key', me.hasApiKey ? 'yes' : 'no'],
      ['Flags', flags.length
        ? h('div', { class: 'chips' }, flags.map(([k, v]) => h('span', { class: `badge ${v === true ? 'blue' : ''}` }, typeof v === 'boolean' ? `${k}: ${v ? 'on' : 'off'}` : `${k}: ${JSON.stringify(v)}`)))
        : dash()],
    ]
    const logoutBtn = h('button', { type: 'button', class: 'secondary', onclick: logout }, 'Sign out')
    append(ctx.view,
      pageHead('Profile', 'Your operator account.', logoutBtn),
      h('div', { class: 'card' }, h('dl', { class: 'dl' }, rows.flatMap(([k, v]) => [h('dt', null, k), h('dd', null, v)]))),
      h('p', { class: 'muted small' }, 'Signing out ends every session of this account (all bearer tokens stop working). API keys keep working.'))
  },
})
