// #/webhooks: webhook deliveries and rotating the signing secret.
import { badge, dash, dateCell, mono } from '../components/cells.js'
import { pageHead } from '../components/layout.js'
import { pager } from '../components/pager.js'
import { secretBox } from '../components/secret-box.js'
import { dataTable } from '../components/table.js'
import { api } from '../lib/api.js'
import { append, fill, h } from '../lib/dom.js'
import { intParam, qs } from '../lib/format.js'
import { route } from '../lib/router.js'
import { ask } from '../components/dialog.js'

route('webhooks', {
  title: 'Webhook deliveries', nav: 'Webhooks', group: 'govern', order: 58,
  async render(ctx) {
    const page = intParam(ctx.params, 'page', 1)
    const secretSlot = h('div')
    const rotate = h('button', { type: 'button', class: 'secondary' }, 'New signing secret')
    rotate.addEventListener('click', async () => {
      if (!(await ask('Create a new webhook signing secret?\n\nThe old one stops signing at once (a secret set in the guardrails takes precedence).', { confirm: 'Create' }))) return
      try {
        const r = await api('POST', '/api/v1/operator/webhooks/secret')
        fill(secretSlot, secretBox({ title: 'Webhook signing secret', secret: r.secret, note: 'Receivers check x-taskgate-signature (HMAC-SHA256 of the raw body) with it; see docs/webhooks.md.', dismiss: () => secretSlot.replaceChildren() }))
      } catch (err) { ctx.error(err) }
    })
    append(ctx.view, pageHead('Webhook deliveries', 'Approval events sent to your approval webhook URL and one-shot callbacks, signed with HMAC-SHA256 and EIP-712, retried with backoff (up to 8 attempts).', rotate), secretSlot)
    const slot = h('div', { class: 'card' }, h('p', { class: 'muted' }, 'Loading…'))
    append(ctx.view, slot)
    const r = await api('GET', `/api/v1/operator/webhooks/deliveries${qs({ page })}`)
    if (!ctx.alive()) return
    const color = { delivered: 'green', failed: 'red', pending: 'amber' }
    fill(slot, r.data.length
      ? h('div', null, dataTable(['Created', 'Event', 'URL', 'Status', 'Attempts', 'Last answer', 'Next attempt'],
        r.data.map((d) => h('tr', null,
          h('td', null, dateCell(d.createdAt)), h('td', null, h('code', null, d.event)), h('td', null, mono(d.url)),
          h('td', null, badge(d.status, color[d.status])), h('td', null, String(d.attempts)),
          h('td', null, d.lastStatus ? String(d.lastStatus) : d.lastError ? h('span', { class: 'muted' }, d.lastError) : dash()),
          h('td', null, d.nextAttemptAt ? dateCell(d.nextAttemptAt) : dash())))),
        pager({ page: r.page, totalPages: Math.ceil(r.total / (r.limit || 20)), total: r.total }, (p) => `#/webhooks${qs({ page: p })}`, 'deliveries'))
      : h('p', { class: 'empty muted' }, 'No deliveries yet. Set an approval webhook URL on the Guardrails page.'))
  },
})
