// #/guardrails: the active and pending guardrails (a change applies 30 s later) and the form to change them.
import { dash, dateCell, jsonBlock } from '../components/cells.js'
import { field, submitting, textarea } from '../components/forms.js'
import { dl, pageHead } from '../components/layout.js'
import { api } from '../lib/api.js'
import { append, fill, h } from '../lib/dom.js'
import { CAPABILITIES } from '../lib/domain.js'
import { fmtInt } from '../lib/format.js'
import { route } from '../lib/router.js'

const GUARDRAIL_NUMBERS = [
  ['maxCreditsPerDay', 'Max credits per day', 'credits spent since 00:00 UTC'],
  ['maxTasksPerHour', 'Max tasks per hour', 'admitted tasks in the last 60 minutes'],
  ['maxPromptLength', 'Max prompt length', 'characters'],
  ['approvalThreshold', 'Approval threshold', 'hold actions whose requestedValue exceeds this'],
]

function guardrailRows(c) {
  const list = (xs, empty) => (xs && xs.length ? xs.join(', ') : h('span', { class: 'muted' }, empty))
  const num = (v) => (v === null || v === undefined ? h('span', { class: 'muted' }, 'no limit') : fmtInt(v))
  return dl([
    ...GUARDRAIL_NUMBERS.map(([k, label]) => [label, num(c[k])]),
    ['Allowed task types', list(c.allowedTaskTypes, 'all')],
    ['Blocked patterns', list(c.blockedPatterns, 'none')],
    ['Approval TTL', `${c.approvalTtlHours} h`],
    ['Approval webhook', c.approvalWebhookUrl ? h('code', { class: 'break' }, c.approvalWebhookUrl) : dash()],
    ['Webhook secret', c.approvalWebhookSecretSet ? 'set' : h('span', { class: 'muted' }, 'not set')],
    ['Auto-approval rules', c.approvalAutoRules && c.approvalAutoRules.length ? jsonBlock(c.approvalAutoRules) : h('span', { class: 'muted' }, 'none')],
    ['Publish outputs on IPFS', c.publishOutputs ? 'yes' : 'no (hashes only)'],
  ])
}

/** "in 27 s" until `iso`, refreshed every second while the page is shown. */
function countdown(iso, ctx, onDone) {
  const el = h('strong', { class: 'countdown' })
  const tick = () => {
    const left = Math.max(0, Math.ceil((Date.parse(iso) - Date.now()) / 1000))
    el.textContent = left > 0 ? `activates in ${left} s` : 'activating…'
    if (left === 0) { clearInterval(timer); onDone() }
  }
  const timer = setInterval(tick, 1000)
  ctx.onLeave(() => clearInterval(timer))
  tick()
  return el
}

route('guardrails', {
  title: 'Guardrails', nav: 'Guardrails', group: 'govern', order: 55,
  async render(ctx) {
    append(ctx.view, pageHead('Guardrails', 'Limits every task of this operator passes in stage 1. A change waits 30 seconds before it applies, so a leaked session cannot switch protections off silently; the kill-switch in the header applies at once.'))
    const body = h('div', null, h('p', { class: 'muted' }, 'Loading…'))
    append(ctx.view, body)

    async function refresh() {
      const g = await api('GET', '/api/v1/operator/guardrails')
      if (!ctx.alive()) return
      const pendingCard = g.pending
        ? h('div', { class: 'card pending' }, h('div', { class: 'card-head' }, h('h2', null, 'Pending'), countdown(g.pending.activatesAt, ctx, () => setTimeout(() => { if (ctx.alive()) refresh().catch(ctx.error) }, 1500))), guardrailRows(g.pending.config))
        : h('div', { class: 'card pending' }, h('h2', null, 'Pending'), h('p', { class: 'muted' }, 'No change waiting.'))
      const ks = g.killSwitch
      fill(body,
        ks.active ? h('div', { class: 'card kill-switch-card' }, h('h2', null, 'Kill-switch is ON'), h('p', null, ks.reason || 'No reason given.'), h('p', { class: 'muted' }, 'Since ', dateCell(ks.updatedAt))) : null,
        h('div', { class: 'grid-2' }, h('div', { class: 'card current' }, h('h2', null, 'Active now'), guardrailRows(g.current)), pendingCard),
        editForm(g.pending ? g.pending.config : g.current),
      )
    }

    function editForm(c) {
      const numbers = GUARDRAIL_NUMBERS.map(([k, label, hint]) => field(label, h('input', { type: 'number', name: k, min: 0, step: 1, value: c[k] ?? '', placeholder: 'no limit', inputmode: 'numeric' }), hint))
      const types = h('fieldset', { class: 'checks' }, h('legend', null, 'Allowed task types (none checked = all)'),
        CAPABILITIES.map((t) => h('label', null, h('input', { type: 'checkbox', name: `type:${t}`, checked: c.allowedTaskTypes.includes(t) }), ' ', t)))
      const form = h('form', { class: 'form', 'aria-label': 'Edit guardrails' },
        h('h2', null, 'Change guardrails'),
        h('div', { class: 'form-row' }, numbers),
        types,
        field('Blocked patterns', textarea({ name: 'blockedPatterns', value: c.blockedPatterns.join('\n') }), 'one per line; plain text matched case-insensitively anywhere in the prompt (not regular expressions); at most 100 of 200 characters'),
        h('div', { class: 'form-row' },
          field('Approval TTL (hours)', h('input', { type: 'number', name: 'approvalTtlHours', min: 1, max: 720, step: 1, value: c.approvalTtlHours, required: true })),
          field('Approval webhook URL', h('input', { type: 'url', name: 'approvalWebhookUrl', value: c.approvalWebhookUrl ?? '', placeholder: 'https://…' }))),
        h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'publishOutputs', checked: !!c.publishOutputs }), ' Publish outputs in the public IPFS task documents (otherwise only their hash)'),
        h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Save (applies in 30 s)')))
      submitting(form, ctx, async (v) => {
        const patch = {}
        for (const [k] of GUARDRAIL_NUMBERS) patch[k] = v[k] === '' ? null : Number(v[k])
        patch.allowedTaskTypes = CAPABILITIES.filter((t) => v[`type:${t}`])
        patch.blockedPatterns = v.blockedPatterns.split('\n').map((x) => x.trim()).filter(Boolean)
        patch.approvalTtlHours = Number(v.approvalTtlHours)
        patch.approvalWebhookUrl = v.approvalWebhookUrl.trim() || null
        patch.publishOutputs = !!v.publishOutputs
        await api('PATCH', '/api/v1/operator/guardrails', patch)
        ctx.flash('Saved: the new guardrails apply in 30 seconds.')
        await refresh()
      })
      return h('div', { class: 'card' }, form)
    }

    await refresh()
  },
})
