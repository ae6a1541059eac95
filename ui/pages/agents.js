// #/agents: the agents list, registering an agent (its key shown once), test runs and archiving.
import { archiveAgent, testRunButton } from '../components/agent-actions.js'
import { agentLink, agentStatusBadge, badge, dateCell } from '../components/cells.js'
import { field, formValues, submitting, textarea } from '../components/forms.js'
import { foldCard, pageHead } from '../components/layout.js'
import { secretBox } from '../components/secret-box.js'
import { api } from '../lib/api.js'
import { append, fill, h } from '../lib/dom.js'
import { CAPABILITIES } from '../lib/domain.js'
import { route } from '../lib/router.js'
import { agentDetailPage } from './agent-detail.js'
import { tableWrap } from '../components/table.js'

route('agents', {
  title: 'Agents', nav: 'Agents', group: 'operate', order: 10,
  render(ctx) { return ctx.sub ? agentDetailPage(ctx, ctx.sub) : agentsPage(ctx) },
})

async function agentsPage(ctx) {
  append(ctx.view, pageHead('Agents', 'Each agent has its own agent-bound API key and may only run the task types in its capabilities.',
    h('a', { class: 'button secondary', href: '#/tasks?submit=1' }, 'Submit a task')))
  const keySlot = h('div')
  const runSlot = h('div')
  const tableSlot = h('div', null, h('p', { class: 'muted' }, 'Loading…'))
  const archivedToggle = h('input', { type: 'checkbox', id: 'show-archived' })
  const form = agentForm()
  const formCard = foldCard('Register an agent', false, form)
  append(ctx.view, keySlot, formCard, runSlot,
    h('div', { class: 'card' }, h('div', { class: 'card-head' }, h('h2', null, 'Your agents'),
      h('label', { class: 'check small', for: 'show-archived' }, archivedToggle, ' Show archived')), tableSlot))

  let agents = []
  let runPanel = null
  function draw() {
    const list = archivedToggle.checked ? agents : agents.filter((a) => a.status !== 'ARCHIVED')
    const archived = agents.length - agents.filter((a) => a.status !== 'ARCHIVED').length
    archivedToggle.parentElement.hidden = archived === 0
    if (!list.length) {
      fill(tableSlot, h('div', { class: 'empty' }, agents.length ? 'No active agents.' : 'No agents yet. Register one above.'))
      return
    }
    fill(tableSlot, tableWrap(h('table', null,
      h('thead', null, h('tr', null, ['Agent', 'Capabilities', 'Model', 'Status', 'Created', ''].map((t) => h('th', null, t)))),
      h('tbody', null, list.map((a) => h('tr', { dataset: { agentId: a.agentId } },
        h('td', null, h('div', null, agentLink(a.agentId, h('strong', null, a.displayName))), h('div', { class: 'muted small mono' }, a.agentId)),
        h('td', null, h('div', { class: 'chips' }, a.capabilities.map((c) => badge(c)))),
        h('td', null, h('code', null, a.model)),
        h('td', null, agentStatusBadge(a.status)),
        h('td', { class: 'nowrap' }, dateCell(a.createdAt)),
        h('td', { class: 'actions' }, a.status === 'ACTIVE' ? [
          testRunButton(a, ctx, (panel) => {
            if (runPanel) runPanel.destroy()
            runPanel = panel
            fill(runSlot, h('div', { class: 'card' }, h('div', { class: 'card-head' }, h('h2', null, `Test run of ${a.displayName}`),
              h('button', { type: 'button', class: 'secondary small', onclick: () => { panel.destroy(); runSlot.replaceChildren() } }, 'Close')), panel.el))
          }), ' ',
          h('button', { type: 'button', class: 'danger small', onclick: () => archiveAgent(a, ctx, refresh) }, 'Archive'),
        ] : null)))))))
  }
  archivedToggle.addEventListener('change', draw)

  async function refresh() {
    agents = await api('GET', '/api/v1/agents')
    if (!ctx.alive()) return
    if (!agents.some((a) => a.status === 'ACTIVE')) formCard.open = true
    draw()
  }

  submitting(form, ctx, async () => {
    const body = agentBody(form)
    const res = await api('POST', '/api/v1/agents/register', body)
    form.reset()
    formCard.open = false
    fill(keySlot, secretBox({
      title: `Agent "${res.displayName}" registered`, secret: res.apiKey, dismiss: () => keySlot.replaceChildren(),
      note: `Agent id ${res.agentId}. The agent authenticates its tasks with this agent-bound key in the x-api-key header.`,
    }))
    await refresh()
  })
  await refresh()
}

function agentForm() {
  const caps = h('div', { class: 'checks' }, CAPABILITIES.map((c) => h('label', { class: 'check' },
    h('input', { type: 'checkbox', name: 'capability', value: c, checked: c === 'general' }), ' ', c)))
  return h('form', { class: 'form', 'aria-label': 'Register an agent' },
    h('div', { class: 'form-row top' },
      field('Display name', h('input', { type: 'text', name: 'displayName', required: true, maxlength: 100, autocomplete: 'off' })),
      field('Model (optional)', h('input', { type: 'text', name: 'model', maxlength: 128, placeholder: 'builtin', autocomplete: 'off', spellcheck: 'false' }), 'Default model for this agent\'s tasks.')),
    h('fieldset', { class: 'field' }, h('legend', null, 'Capabilities (the task types it may run)'), caps),
    field('Description (optional)', textarea({ name: 'description', maxlength: 2000, rows: 2 })),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Register agent')))
}

function agentBody(form) {
  const v = formValues(form)
  const capabilities = [...form.querySelectorAll('input[name="capability"]:checked')].map((el) => el.value)
  if (!capabilities.length) throw new Error('Pick at least one capability.')
  const body = { displayName: v.displayName.trim(), capabilities }
  if (v.description.trim()) body.description = v.description.trim()
  if (v.model.trim()) body.model = v.model.trim()
  return body
}
