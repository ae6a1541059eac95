// The 8 pipeline stages as a strip, drawn from a task's timeline and live stage events.
import { fill, h } from '../lib/dom.js'
import { fmtTime } from '../lib/format.js'

const STAGES = [
  ['policy', 'Policy'], ['debit', 'Debit'], ['compute', 'Compute'], ['verification', 'Verification'],
  ['ipfs', 'IPFS'], ['fingerprint', 'Fingerprint'], ['attestation', 'Attestation'], ['receipt', 'Receipt'],
]

const STAGE_NUMBER = Object.fromEntries(STAGES.map(([name], i) => [name, i + 1]))

/** Stage events are keyed by stage name (a 'queued' event carries the compute name with the previous stage number). */
const stageOf = (e) => STAGE_NUMBER[e.name] || e.stage

/** A short text for a stage's detail object: "credits 1 · provider builtin". */
function stageDetailText(detail) {
  if (!detail || typeof detail !== 'object') return ''
  return Object.entries(detail).map(([k, v]) => {
    let s = typeof v === 'string' ? v : JSON.stringify(v)
    if (typeof s === 'string' && /^(0x[0-9a-f]{16,}|baf[a-z0-9]{20,})$/i.test(s)) s = `${s.slice(0, 10)}…${s.slice(-4)}`
    return `${k} ${s}`
  }).join(' · ')
}

/**
 * The 8 pipeline stages as a strip. setTask() draws from a task's timeline; apply() adds a live event.
 */
export function stageStrip() {
  const el = h('ol', { class: 'stages', 'aria-label': 'Pipeline stages' })
  let events = new Map() // stage number → latest event
  let taskStatus = null
  let live = false
  function draw() {
    let last = 0
    for (const n of events.keys()) last = Math.max(last, n)
    const lastEvent = events.get(last)
    const halted = lastEvent && (lastEvent.status === 'failed' || lastEvent.status === 'held')
    fill(el, ...STAGES.map(([name, label], i) => {
      const n = i + 1
      const e = events.get(n)
      let st = e ? e.status : 'pending'
      if (!e && !halted && n === last + 1 && (taskStatus === 'PROCESSING' || taskStatus === 'QUEUED') && live) st = 'running'
      if (!e && halted) st = 'skipped'
      if (e && st === 'completed') st = 'done'
      const detail = e ? stageDetailText(e.detail) : ''
      return h('li', { class: `stage st-${st}`, title: e && e.detail ? JSON.stringify(e.detail, null, 1) : null, dataset: { stage: String(n), status: st } },
        h('div', { class: 'stage-top' }, h('span', { class: 'stage-dot', 'aria-hidden': 'true' }, st === 'done' ? '✓' : st === 'failed' ? '✕' : String(n)), h('span', { class: 'stage-name' }, label)),
        h('div', { class: 'stage-status' }, st === 'running' ? 'running…' : st),
        detail ? h('div', { class: 'stage-detail' }, detail) : null,
        e && e.at ? h('div', { class: 'stage-at' }, h('time', { datetime: e.at, title: e.at }, fmtTime(e.at))) : null)
    }))
  }
  return {
    el,
    setTask(task, isLive = false) {
      events = new Map()
      taskStatus = task.status
      live = isLive
      for (const e of task.timeline || []) events.set(stageOf(e), e)
      draw()
    },
    setLive(v) { live = v; draw() },
    apply(e) {
      events.set(stageOf(e), e)
      if (e.status === 'failed') taskStatus = 'FAILED'
      else if (e.status === 'completed') taskStatus = 'COMPLETED'
      else if (e.status === 'held') taskStatus = 'PENDING_APPROVAL'
      else if (e.status === 'queued') taskStatus = 'QUEUED'
      else if (taskStatus !== 'QUEUED' || stageOf(e) >= 3) taskStatus = 'PROCESSING'
      draw()
    },
  }
}
