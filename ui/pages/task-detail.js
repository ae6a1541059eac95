// #/tasks/<id>: one task with its pipeline, receipt and attestation.
import { taskPanel } from '../components/task-panel.js'
import { api } from '../lib/api.js'
import { append, h } from '../lib/dom.js'

export async function taskDetailPage(ctx, id) {
  const task = await api('GET', `/api/v1/tasks/${encodeURIComponent(id)}`)
  if (!ctx.alive()) return
  document.title = `Task ${task.id} · TaskGate`
  const panel = taskPanel(task, ctx)
  append(ctx.view,
    h('p', { class: 'crumbs' }, h('a', { href: '#/tasks' }, '← Tasks')),
    h('div', { class: 'page-head' }, h('h1', null, 'Task ', h('code', { class: 'task-id' }, task.id))),
    panel.el)
}
