// An agent's test-run and archive buttons (agents list and agent page).
import { clearBanner } from './banner.js'
import { taskPanel } from './task-panel.js'
import { api } from '../lib/api.js'
import { h } from '../lib/dom.js'
import { ask } from './dialog.js'

export function testRunButton(agent, ctx, show) {
  const btn = h('button', { type: 'button', class: 'secondary small', title: 'Run a free diagnostic task with the operator test key (5 uses)' }, 'Test run')
  btn.addEventListener('click', async () => {
    btn.disabled = true
    btn.textContent = 'Running…'
    clearBanner()
    try {
      const task = await api('POST', `/api/v1/agents/${encodeURIComponent(agent.agentId)}/test-run`, {})
      if (ctx.alive()) show(taskPanel(task, ctx, { compact: true }))
    } catch (err) {
      ctx.error(err)
    } finally {
      btn.disabled = false
      btn.textContent = 'Test run'
    }
  })
  return btn
}

export async function archiveAgent(agent, ctx, after) {
  if (!(await ask(`Archive the agent "${agent.displayName}"?\n\nIts API key is revoked at once and it can no longer run tasks. This cannot be undone.`, { confirm: 'Archive', danger: true }))) return
  clearBanner()
  try {
    await api('DELETE', `/api/v1/agents/${encodeURIComponent(agent.agentId)}`)
    ctx.flash(`Agent "${agent.displayName}" archived.`)
    await after()
  } catch (err) { ctx.error(err) }
}
