// #/keys: API keys: create (the key is shown once), list, revoke.
import { clearBanner } from '../components/banner.js'
import { dash, dateCell, tierBadge } from '../components/cells.js'
import { field, submitting } from '../components/forms.js'
import { pageHead } from '../components/layout.js'
import { secretBox } from '../components/secret-box.js'
import { api } from '../lib/api.js'
import { append, fill, h } from '../lib/dom.js'
import { route } from '../lib/router.js'
import { state } from '../lib/session.js'
import { tableWrap } from '../components/table.js'
import { ask } from '../components/dialog.js'

route('keys', {
  title: 'API keys', nav: 'API keys', group: 'account', order: 40,
  async render(ctx) {
    const me = state.me
    append(ctx.view, pageHead('API keys', 'Keys authenticate agents and scripts with the x-api-key header. The full key is shown only once, when it is created.'))

    const keySlot = h('div')
    let shownKeyId = null
    const nameInput = h('input', { type: 'text', name: 'name', required: true, maxlength: 100, placeholder: 'e.g. production agent', autocomplete: 'off' })
    const rpmInput = h('input', { type: 'number', name: 'rateLimitRpm', min: 1, step: 1, placeholder: 'tier default', inputmode: 'numeric' })
    const form = h('form', { class: 'form' },
      h('div', { class: 'form-row' },
        field('Name', nameInput),
        field('Rate limit (requests/min, optional)', rpmInput),
        h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Create key'))))
    const tableSlot = h('div', null, h('p', { class: 'muted' }, 'Loading…'))

    append(ctx.view,
      keySlot,
      h('div', { class: 'card' }, h('h2', null, 'Create a key'), form),
      h('div', { class: 'card' }, h('div', { class: 'card-head' }, h('h2', null, 'Active keys'), me ? tierBadge(me.effectiveTier) : null), tableSlot))

    async function refresh() {
      const keys = await api('GET', '/api/v1/operator/keys')
      if (!ctx.alive()) return
      fill(tableSlot, keysTable(keys, revoke))
    }

    async function revoke(key) {
      const label = key.label || key.keyPrefix
      if (!(await ask(`Revoke the key "${label}" (${key.keyPrefix})?\n\nRequests using it will fail immediately. This cannot be undone.`, { confirm: 'Revoke', danger: true }))) return
      clearBanner()
      try {
        await api('DELETE', `/api/v1/operator/keys/${encodeURIComponent(key.id)}`)
        if (shownKeyId === key.id) keySlot.replaceChildren()
        ctx.flash(`Key "${label}" revoked.`)
        state.me = null
        await refresh()
      } catch (err) { ctx.error(err) }
    }

    submitting(form, ctx, async (v) => {
      const body = { name: v.name.trim() }
      if (v.rateLimitRpm !== '') body.rateLimitRpm = Number(v.rateLimitRpm)
      const created = await api('POST', '/api/v1/operator/keys', body)
      form.reset()
      shownKeyId = created.id
      fill(keySlot, newKeyBox(created, () => keySlot.replaceChildren()))
      await refresh()
    })

    await refresh()
  },
})

function newKeyBox(created, dismiss) {
  return secretBox({
    title: `Key "${created.label}" created`, secret: created.key, dismiss,
    note: `Send it as the x-api-key header. Prefix ${created.keyPrefix}, rate limit ${created.rateLimitRpm} requests/min.`,
  })
}

function keysTable(keys, onRevoke) {
  if (!keys.length) return h('div', { class: 'empty' }, 'No API keys yet. Create one above.')
  return tableWrap(h('table', null,
    h('thead', null, h('tr', null, ['Label', 'Key', 'Type', 'Rate limit', 'Last used', 'Created', ''].map((t) => h('th', null, t)))),
    h('tbody', null, keys.map((k) => h('tr', { dataset: { keyId: k.id } },
      h('td', null, k.label || dash()),
      h('td', { class: 'nowrap' }, h('code', null, k.keyPrefix)),
      h('td', null, keyType(k)),
      h('td', { class: 'num nowrap' }, `${k.rateLimitRpm} /min`),
      h('td', { class: 'nowrap' }, dateCell(k.lastUsedAt)),
      h('td', { class: 'nowrap' }, dateCell(k.createdAt)),
      h('td', { class: 'actions' }, h('button', { type: 'button', class: 'danger small', onclick: () => onRevoke(k) }, 'Revoke'))))))
  )
}

function keyType(k) {
  const out = []
  if (k.isTestKey) {
    out.push(h('span', { class: 'badge amber', title: 'A limited-use test key' }, 'test key'))
    if (k.testUsesRemaining !== null && k.testUsesRemaining !== undefined) out.push(' ', h('span', { class: 'muted small' }, `${k.testUsesRemaining} uses left`))
  } else if (!k.agentId) out.push(h('span', { class: 'badge' }, 'operator'))
  if (k.agentId) out.push(out.length ? ' ' : null, h('span', { class: 'badge blue', title: `Bound to agent ${k.agentId}` }, 'agent'))
  return out
}
