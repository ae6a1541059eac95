// #/providers (admins): LLM providers and their key pools.
import { clearBanner } from '../components/banner.js'
import { badge } from '../components/cells.js'
import { field, submitting, textarea } from '../components/forms.js'
import { foldCard, pageHead } from '../components/layout.js'
import { api } from '../lib/api.js'
import { append, fill, h } from '../lib/dom.js'
import { route } from '../lib/router.js'
import { tableWrap } from '../components/table.js'
import { ask } from '../components/dialog.js'

route('providers', {
  title: 'Providers', nav: 'Providers', group: 'admin', order: 70,
  visible: (me) => !!(me && me.flags && me.flags.admin),
  async render(ctx) {
    append(ctx.view, pageHead('Providers', 'LLM providers that run task compute, each with a pool of API keys. Keys are stored sealed and never shown again.'))
    const tableSlot = h('div', null, h('p', { class: 'muted' }, 'Loading…'))
    const form = providerForm()
    const formCard = foldCard('Add a provider', false, form)
    append(ctx.view, formCard, h('div', { class: 'card' }, h('h2', null, 'Providers'), tableSlot))

    async function refresh() {
      const list = await api('GET', '/api/v1/admin/providers')
      if (!ctx.alive()) return
      fill(tableSlot, providersTable(list, remove))
    }
    async function remove(p) {
      if (!(await ask(`Remove the provider "${p.name}"?\n\nIts models stop being served and its ${p.keys.length} key(s) are deleted.`, { confirm: 'Remove', danger: true }))) return
      clearBanner()
      try {
        await api('DELETE', `/api/v1/admin/providers/${encodeURIComponent(p.id)}`)
        ctx.flash(`Provider "${p.name}" removed.`)
        await refresh()
      } catch (err) { ctx.error(err) }
    }
    submitting(form, ctx, async (v) => {
      const body = providerBody(v)
      const created = await api('POST', '/api/v1/admin/providers', body)
      form.reset()
      formCard.open = false
      ctx.flash(`Provider "${created.name}" added with ${created.keys.length} key(s).`)
      await refresh()
    })
    await refresh()
  },
})

function providerForm() {
  const kind = h('select', { name: 'kind', required: true }, h('option', { value: 'openai' }, 'openai (OpenAI-compatible chat completions)'), h('option', { value: 'anthropic' }, 'anthropic (messages API)'))
  const baseUrl = h('input', { type: 'text', name: 'baseUrl', maxlength: 512, placeholder: 'https://api.openai.com/v1', autocomplete: 'off', spellcheck: 'false', inputmode: 'url' })
  kind.addEventListener('change', () => { baseUrl.placeholder = kind.value === 'anthropic' ? 'https://api.anthropic.com/v1' : 'https://api.openai.com/v1' })
  return h('form', { class: 'form', 'aria-label': 'Add a provider' },
    h('div', { class: 'form-row top' },
      field('Name', h('input', { type: 'text', name: 'name', required: true, maxlength: 64, autocomplete: 'off', spellcheck: 'false' })),
      field('Kind', kind)),
    field('Base URL (optional)', baseUrl, 'Empty: the kind\'s public endpoint.'),
    field('Models', h('input', { type: 'text', name: 'models', required: true, autocomplete: 'off', spellcheck: 'false', placeholder: 'gpt-4o-mini, gpt-4o' }), 'Comma separated; tasks pick a provider by model name.'),
    field('Keys', textarea({ name: 'keys', rows: 3, required: true, autocomplete: 'off', spellcheck: 'false', class: 'mono', placeholder: 'sk-…,60,4' }),
      'One per line: key[,rpm[,concurrency]]. Defaults: 60 requests/min, 4 concurrent.'),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Add provider')))
}

function providerBody(v) {
  const models = [...new Set(v.models.split(',').map((s) => s.trim()).filter(Boolean))]
  if (!models.length) throw new Error('List at least one model.')
  const keys = []
  v.keys.split(/\r?\n/).forEach((line, i) => {
    if (!line.trim()) return
    const [key, rpm, conc, ...rest] = line.split(',').map((s) => s.trim())
    const where = `Keys, line ${i + 1}`
    if (!key) throw new Error(`${where}: the key is missing.`)
    if (rest.length) throw new Error(`${where}: expected key[,rpm[,concurrency]].`)
    const k = { key }
    const int = (s, what) => {
      if (!/^[0-9]+$/.test(s) || Number(s) < 1) throw new Error(`${where}: ${what} must be a whole number of at least 1.`)
      return Number(s)
    }
    if (rpm) k.rpm = int(rpm, 'rpm')
    if (conc) k.concurrency = int(conc, 'concurrency')
    keys.push(k)
  })
  if (!keys.length) throw new Error('Add at least one key.')
  const body = { name: v.name.trim(), kind: v.kind, models, keys }
  if (v.baseUrl.trim()) body.baseUrl = v.baseUrl.trim()
  return body
}

const KEY_STATE_COLOR = { ready: 'green', busy: 'amber', cooldown: 'red' }

function providersTable(list, onRemove) {
  if (!list.length) return h('div', { class: 'empty' }, 'No providers.')
  return tableWrap(h('table', null,
    h('thead', null, h('tr', null, ['Name', 'Kind', 'Base URL', 'Models', 'Keys', ''].map((t) => h('th', null, t)))),
    h('tbody', null, list.map((p) => h('tr', { dataset: { providerId: p.id } },
      h('td', null, h('strong', null, p.name), h('div', { class: 'muted small mono' }, p.id)),
      h('td', null, badge(p.kind, p.kind === 'builtin' ? '' : 'blue')),
      h('td', null, p.baseUrl ? h('code', { class: 'break' }, p.baseUrl) : h('span', { class: 'muted' }, p.kind === 'builtin' ? '—' : 'default')),
      h('td', null, h('div', { class: 'chips' }, p.models.map((m) => h('code', { class: 'chip' }, m)))),
      h('td', null, p.keys.length ? h('ul', { class: 'keylist' }, p.keys.map((k) => h('li', null,
        h('code', null, k.keyPrefix), ' ', badge(k.state, KEY_STATE_COLOR[k.state]),
        h('span', { class: 'muted small' }, ` ${k.rpm} rpm · ${k.inflight}/${k.concurrency} in flight`)))) : h('span', { class: 'muted' }, 'none')),
      h('td', { class: 'actions' }, p.kind === 'builtin'
        ? h('span', { class: 'muted small', title: 'The builtin provider cannot be removed' }, 'built in')
        : h('button', { type: 'button', class: 'danger small', onclick: () => onRemove(p) }, 'Delete')))))))
}
