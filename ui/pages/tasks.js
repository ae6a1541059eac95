// #/tasks: recent tasks with filters, and the submit form whose result follows the stages live.
import { agentLink, dash, dateCell, doorBadge, taskLink, taskStatusBadge, verificationCell } from '../components/cells.js'
import { field, submitting, textarea } from '../components/forms.js'
import { foldCard, pageHead } from '../components/layout.js'
import { pager } from '../components/pager.js'
import { taskPanel } from '../components/task-panel.js'
import { api, ApiError } from '../lib/api.js'
import { append, fill, h } from '../lib/dom.js'
import { TASK_STATUSES } from '../lib/domain.js'
import { fmtMs, intParam, qs } from '../lib/format.js'
import { route } from '../lib/router.js'
import { taskDetailPage } from './task-detail.js'
import { tableWrap } from '../components/table.js'

route('tasks', {
  title: 'Tasks', nav: 'Tasks', group: 'operate', order: 20,
  render(ctx) { return ctx.sub ? taskDetailPage(ctx, ctx.sub) : tasksPage(ctx) },
})

async function tasksPage(ctx) {
  const page = intParam(ctx.params, 'page', 1)
  const status = TASK_STATUSES.includes(ctx.params.get('status')) ? ctx.params.get('status') : ''
  const agentFilter = ctx.params.get('agent') || ''
  const submitFor = ctx.params.get('submit') || ''
  const hrefFor = (p, st = status, ag = agentFilter) => `#/tasks${qs({ status: st, agent: ag, page: p > 1 ? p : '' })}`

  const submitSlot = h('div')
  const tableSlot = h('div', null, h('p', { class: 'muted' }, 'Loading…'))
  const statusSel = h('select', { 'aria-label': 'Filter by status', name: 'status' }, h('option', { value: '' }, 'All statuses'), TASK_STATUSES.map((s) => h('option', { value: s }, s)))
  statusSel.value = status
  statusSel.addEventListener('change', () => { location.hash = hrefFor(1, statusSel.value) })
  const refreshBtn = h('button', { type: 'button', class: 'secondary small', onclick: () => loadTable().catch(ctx.error) }, 'Refresh')

  append(ctx.view,
    pageHead('Tasks', 'Tasks your agents ran through the 8-stage pipeline, newest first. A badge marks those made through the OpenAI-compatible API or MCP.'),
    submitSlot,
    h('div', { class: 'card' },
      h('div', { class: 'card-head' }, h('h2', null, 'Recent tasks'),
        h('div', { class: 'toolbar' },
          agentFilter ? h('span', { class: 'chip-filter' }, 'agent ', h('code', null, agentFilter), ' ', h('a', { href: hrefFor(1, status, ''), 'aria-label': 'Clear the agent filter' }, '×')) : null,
          statusSel, refreshBtn)),
      tableSlot))

  let names = new Map()
  const agents = await api('GET', '/api/v1/agents')
  if (!ctx.alive()) return
  names = new Map(agents.map((a) => [a.agentId, a.displayName]))
  append(submitSlot, submitTaskCard(ctx, agents, submitFor, () => loadTable().catch(ctx.error)))
  await loadTable()

  async function loadTable() {
    const res = await api('GET', `/api/v1/operator/tasks${qs({ page, limit: 20, status, agentId: agentFilter })}`)
    if (!ctx.alive()) return
    if (!res.data.length) {
      fill(tableSlot, h('div', { class: 'empty' }, status || agentFilter ? 'No tasks match this filter.' : 'No tasks yet. Submit one above.'))
    } else {
      fill(tableSlot,
        tableWrap(h('table', null,
          h('thead', null, h('tr', null, ['Task', 'Type', 'Status', 'Agent', 'Provider', 'Latency', 'Verification', 'Created'].map((t) => h('th', null, t)))),
          h('tbody', null, res.data.map((t) => h('tr', { dataset: { taskId: t.id } },
            h('td', null, h('div', { class: 'nowrap' }, taskLink(t.id)), t.door ? h('div', { class: 'door-line' }, doorBadge(t.door)) : null),
            h('td', null, t.taskType),
            h('td', null, taskStatusBadge(t.status)),
            h('td', null, agentLink(t.agentId, names.get(t.agentId))),
            h('td', null, t.provider || dash()),
            h('td', { class: 'num nowrap' }, fmtMs(t.latencyMs) || dash()),
            h('td', null, verificationCell(t.verificationStatus, t.verificationScore)),
            h('td', { class: 'nowrap' }, dateCell(t.createdAt))))))),
        pager(res, (p) => hrefFor(p), res.total === 1 ? 'task' : 'tasks'))
    }
  }
}

function submitTaskCard(ctx, agents, preselect, onSettled) {
  const active = agents.filter((a) => a.status === 'ACTIVE')
  if (!active.length) {
    return foldCard('Submit a task', !!preselect, h('p', { class: 'muted' }, 'You need an active agent to submit tasks. ', h('a', { href: '#/agents' }, 'Register an agent →')))
  }
  const agentSel = h('select', { name: 'agentId', required: true }, active.map((a) => h('option', { value: a.agentId }, `${a.displayName} (${a.agentId})`)))
  if (active.some((a) => a.agentId === preselect)) agentSel.value = preselect
  const typeSel = h('select', { name: 'taskType', required: true })
  const modelInput = h('input', { type: 'text', name: 'model', maxlength: 128, autocomplete: 'off', spellcheck: 'false' })
  const promptInput = textarea({ name: 'prompt', required: true, maxlength: 100000, rows: 5, placeholder: 'What should the agent do?' })
  function syncAgent() {
    const a = active.find((x) => x.agentId === agentSel.value) || active[0]
    const prev = typeSel.value
    fill(typeSel, ...a.capabilities.map((c) => h('option', { value: c }, c)))
    if (a.capabilities.includes(prev)) typeSel.value = prev
    modelInput.placeholder = `agent default (${a.model})`
  }
  agentSel.addEventListener('change', syncAgent)
  syncAgent()

  const resultSlot = h('div', { class: 'submit-result', 'aria-live': 'polite' })
  let panel = null
  const form = h('form', { class: 'form', 'aria-label': 'Submit a task' },
    h('div', { class: 'form-row top' },
      field('Agent', agentSel),
      field('Task type', typeSel, 'Limited to the agent\'s capabilities.'),
      field('Model (optional)', modelInput)),
    field('Prompt', promptInput),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Submit task'), h('span', { class: 'muted small' }, 'Costs credits; the stages update live.')))
  const showTask = (task) => {
    if (panel) panel.destroy()
    panel = taskPanel(task, ctx, { compact: true, onSettled })
    fill(resultSlot, h('h3', null, 'Result'), panel.el)
    onSettled()
  }
  submitting(form, ctx, async (v) => {
    if (panel) { panel.destroy(); panel = null }
    resultSlot.replaceChildren()
    const body = { agentId: v.agentId, taskType: v.taskType, prompt: v.prompt }
    if (v.model.trim()) body.model = v.model.trim()
    try {
      const task = await api('POST', '/api/v1/tasks/submit?wait=0', body)
      showTask(task)
    } catch (err) {
      if (err instanceof ApiError && err.problem && err.problem.task && err.problem.task.id) showTask(err.problem.task)
      if (err instanceof ApiError && err.status === 402) {
        fill(resultSlot, h('div', { class: 'note' }, 'You are out of credits. ', h('a', { href: '#/billing' }, 'Get testnet USDC or check your balance on the Billing page →')))
      }
      throw err
    }
  })
  return foldCard('Submit a task', !!preselect, form, resultSlot)
}
