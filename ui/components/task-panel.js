// A task with its live stage strip: the compact form (after a submit or test run) and the full task page.
import { agentLink, dash, dateCell, doorBadge, doorText, extLink, ipfsLink, jsonBlock, mono, proofLink, taskLink, taskStatusBadge, verificationCell } from './cells.js'
import { dl } from './layout.js'
import { stageStrip } from './stages.js'
import { api } from '../lib/api.js'
import { fill, h } from '../lib/dom.js'
import { isSettled } from '../lib/domain.js'
import { fmtInt, fmtMs, fmtTime, fmtUsd, safeHref } from '../lib/format.js'
import { session } from '../lib/session.js'
import { tableWrap } from './table.js'

/**
 * A task with its stage strip. While the task runs it follows the stage events with an EventSource
 * (closed on completion and when the page is left), then reloads the detail.
 * Returns { el, destroy }.
 */
export function taskPanel(initial, ctx, { compact = false, onSettled = null } = {}) {
  const el = h('div', { class: compact ? 'task-panel compact' : 'task-panel' })
  const strip = stageStrip()
  const liveBadge = h('span', { class: 'badge blue live', hidden: true }, 'live')
  let stopped = false
  let es = null
  let pollTimer = null
  let task = initial

  function draw() {
    strip.setTask(task, !!es || !!pollTimer)
    fill(el, compact ? compactTask(task, strip.el, liveBadge) : fullTask(task, strip.el, liveBadge))
  }

  async function reload() {
    try {
      const t = await api('GET', `/api/v1/tasks/${encodeURIComponent(task.id)}`)
      if (stopped || !ctx.alive()) return
      task = t
      draw()
      if (onSettled && isSettled(task)) onSettled(task)
    } catch (err) { ctx.error(err) }
  }

  function setLive(on) {
    liveBadge.hidden = !on
    strip.setLive(on)
  }

  function closeStream() {
    if (es) { es.close(); es = null }
    clearTimeout(pollTimer)
    pollTimer = null
    setLive(false)
  }

  function destroy() { stopped = true; closeStream() }

  /** Fallback when the stream cannot be used: re-read the task every 2 s until it settles. */
  function poll() {
    if (stopped) return
    setLive(true)
    pollTimer = setTimeout(async () => {
      try {
        const t = await api('GET', `/api/v1/tasks/${encodeURIComponent(task.id)}`)
        if (stopped || !ctx.alive()) return
        task = t
        if (isSettled(task)) { closeStream(); draw(); if (onSettled) onSettled(task); return }
        draw()
        poll()
      } catch (err) { closeStream(); ctx.error(err) }
    }, 2000)
  }

  function follow() {
    const token = session.token
    if (!token || typeof EventSource === 'undefined') { poll(); return }
    // The bearer token goes in the URL only here: EventSource cannot send headers.
    es = new EventSource(`/api/v1/tasks/${encodeURIComponent(task.id)}/events?access_token=${encodeURIComponent(token)}`)
    setLive(true)
    es.addEventListener('stage', (ev) => {
      let e
      try { e = JSON.parse(ev.data) } catch { return }
      strip.apply(e)
      if (e.status === 'completed' || e.status === 'failed' || e.status === 'held') {
        closeStream()
        reload()
      }
    })
    es.addEventListener('error', () => {
      if (!es) return
      // Never let the browser retry with the token in the URL: poll the task instead.
      closeStream()
      if (!stopped) poll()
    })
  }

  ctx.onLeave(destroy)
  draw()
  if (!stopped && !isSettled(task)) follow()
  return { el, destroy }
}

function taskLinks(task) {
  const links = [
    task.ipfsCid ? extLink(`/ipfs/${encodeURIComponent(task.ipfsCid)}`, 'IPFS document') : null,
    task.receiptCid ? extLink(`/api/v1/public/proof/${encodeURIComponent(task.receiptCid)}`, 'Proof receipt') : null,
    safeHref(task.verificationExplorerUrl) ? extLink(task.verificationExplorerUrl, 'Verification explorer') : null,
    safeHref(task.attestationExplorerUrl) ? extLink(task.attestationExplorerUrl, 'Attestation explorer') : null,
  ].filter(Boolean)
  return links.length ? h('div', { class: 'links' }, links) : null
}

function failureNote(task) {
  if (!task.failureCode && !task.failureMessage) return null
  return h('div', { class: 'note error' }, h('strong', null, task.failureCode || 'Failed'), task.failureMessage ? `: ${task.failureMessage}` : null)
}

function heldNote(task) {
  if (task.status !== 'PENDING_APPROVAL') return null
  const held = (task.timeline || []).find((e) => e.status === 'held')
  return h('div', { class: 'note' }, 'This task is waiting for approval', held && held.detail && held.detail.reason ? `: ${held.detail.reason}` : '.')
}

function compactTask(task, stripEl, liveBadge) {
  return [
    h('div', { class: 'task-head' },
      taskLink(task.id), taskStatusBadge(task.status), liveBadge, doorBadge(task.door),
      h('span', { class: 'muted small' }, task.taskType),
      task.verificationStatus ? verificationCell(task.verificationStatus, task.verificationScore) : null,
      task.latencyMs != null ? h('span', { class: 'muted small' }, fmtMs(task.latencyMs)) : null,
      task.provider ? h('span', { class: 'muted small' }, `${task.provider} / ${task.model}`) : null),
    stripEl,
    failureNote(task),
    heldNote(task),
    typeof task.output === 'string' ? h('div', null, h('div', { class: 'label' }, 'Output'), h('pre', { class: 'output' }, task.output)) : null,
    h('div', { class: 'links' }, h('a', { href: `#/tasks/${encodeURIComponent(task.id)}` }, 'Task details →'), taskLinks(task)),
  ]
}

/** Tokens as the provider counted them (docs/doors.md, "Usage and cost"); none before compute. */
function usageText(usage) {
  if (!usage) return dash()
  return `${fmtInt(usage.totalTokens)} (${fmtInt(usage.promptTokens)} prompt + ${fmtInt(usage.completionTokens)} completion)`
}

/** The estimated cost from the model's price at compute time; a model without a price has none. */
function costText(task) {
  if (typeof task.costUsd === 'number') return fmtUsd(task.costUsd)
  return task.usage ? h('span', { class: 'muted' }, `none: no price for ${task.model} when it ran`) : dash()
}

function fullTask(task, stripEl, liveBadge) {
  const rows = [
    ['Status', taskStatusBadge(task.status)],
    ['Task type', task.taskType],
    ['Agent', agentLink(task.agentId)],
    ['Model', task.model || dash()],
    ['Provider', task.provider || dash()],
    ['Door', doorText(task.door)],
    ['Latency', fmtMs(task.latencyMs) || dash()],
    ['Tokens', usageText(task.usage)],
    ['Estimated cost', costText(task)],
    ['Credits charged', String(task.creditsCharged ?? 0)],
    ['Stage', `${task.stage ?? 0} of 8`],
    ['Created', dateCell(task.createdAt, '—')],
    ['Completed', dateCell(task.completedAt, '—')],
    task.failureCode || task.failureMessage ? ['Failure', h('span', null, task.failureCode ? h('code', null, task.failureCode) : null, task.failureMessage ? ` ${task.failureMessage}` : null)] : null,
    ['Verification', verificationCell(task.verificationStatus, task.verificationScore)],
    ['Verification proof', mono(task.verificationProof)],
    ['Verification explorer', task.verificationExplorerUrl ? extLink(task.verificationExplorerUrl) : dash()],
    ['Attestation UID', mono(task.attestationUid)],
    ['Attestation explorer', task.attestationExplorerUrl ? extLink(task.attestationExplorerUrl) : dash()],
    ['State root', mono(task.stateRoot)],
    ['IPFS CID', ipfsLink(task.ipfsCid)],
    ['Receipt CID', proofLink(task.receiptCid)],
    task.computeJobId ? ['Compute job', mono(task.computeJobId)] : null,
    ['Operator', mono(task.operatorId)],
  ]
  const timeline = Array.isArray(task.timeline) ? task.timeline : []
  return [
    h('div', { class: 'card' }, h('div', { class: 'card-head' }, h('h2', null, 'Pipeline'), liveBadge), stripEl, heldNote(task),
      timeline.length ? h('details', { class: 'events' }, h('summary', null, `Stage events (${timeline.length})`),
        tableWrap(h('table', null,
          h('thead', null, h('tr', null, ['#', 'Stage', 'Status', 'Detail', 'At'].map((t) => h('th', null, t)))),
          h('tbody', null, timeline.map((e) => h('tr', null,
            h('td', { class: 'num' }, String(e.stage)), h('td', null, e.name), h('td', null, e.status),
            h('td', null, e.detail ? h('code', { class: 'break' }, JSON.stringify(e.detail)) : dash()),
            h('td', { class: 'nowrap' }, h('time', { datetime: e.at, title: e.at }, fmtTime(e.at))))))))) : null),
    h('div', { class: 'card' }, h('h2', null, 'Details'), dl(rows), taskLinks(task)),
    typeof task.prompt === 'string' ? h('div', { class: 'card' }, h('h2', null, 'Prompt'), h('pre', { class: 'output' }, task.prompt)) : null,
    // A task that failed before its debit keeps only its prompt's hash and length (docs/governance.md).
    typeof task.promptSha256 === 'string' ? h('div', { class: 'card' }, h('h2', null, 'Prompt'),
      h('p', { class: 'muted' }, `Not kept: the task failed before it was charged. ${task.promptLength} characters, SHA-256 `, h('code', { class: 'break' }, task.promptSha256))) : null,
    h('div', { class: 'card' }, h('h2', null, 'Output'), typeof task.output === 'string' ? h('pre', { class: 'output' }, task.output) : h('p', { class: 'muted' }, isSettled(task) ? 'No output.' : 'Not produced yet.')),
    task.metadata ? h('div', { class: 'card' }, h('h2', null, 'Metadata'), jsonBlock(task.metadata)) : null,
    task.receipt ? h('details', { class: 'card fold' }, h('summary', null, h('h2', null, 'Signed receipt')), h('div', { class: 'fold-body' }, jsonBlock(task.receipt))) : null,
    task.attestation ? h('details', { class: 'card fold' }, h('summary', null, h('h2', null, 'Attestation')), h('div', { class: 'fold-body' }, jsonBlock(task.attestation))) : null,
  ]
}
