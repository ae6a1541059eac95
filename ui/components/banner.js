// The error banner (problem+json: title, detail, code, request id, field errors) and the success flash.
import { ApiError } from '../lib/api.js'
import { $, fill, h } from '../lib/dom.js'

let flashTimer = null

export function clearBanner() {
  const b = $('banner')
  b.hidden = true
  b.replaceChildren()
}

export function showError(err) {
  const b = $('banner')
  const p = err instanceof ApiError ? err.problem : { title: 'Error', detail: String((err && err.message) || err) }
  const status = err instanceof ApiError && err.status ? err.status : p.status
  const title = [status, p.title].filter(Boolean).join(' ')
  const meta = []
  if (p.code) meta.push(h('span', null, 'code ', h('code', null, p.code)))
  if (p.requestId) meta.push(h('span', null, 'request id ', h('code', null, p.requestId)))
  const errors = Array.isArray(p.errors) && p.errors.length
    ? h('ul', null, p.errors.map((e) => h('li', null, h('code', null, String(e.path ?? '')), ' ', String(e.message ?? ''))))
    : null
  fill(b,
    h('button', { class: 'close', type: 'button', 'aria-label': 'Dismiss', onclick: clearBanner }, '×'),
    title ? h('div', { class: 'banner-title' }, title) : null,
    h('p', { class: 'banner-detail' }, p.detail || 'Something went wrong.'),
    meta.length ? h('div', { class: 'banner-meta' }, meta) : null,
    errors)
  b.hidden = false
  b.scrollIntoView({ block: 'nearest' })
}

export function showFlash(text) {
  const f = $('flash')
  f.textContent = text
  f.hidden = false
  clearTimeout(flashTimer)
  flashTimer = setTimeout(() => { f.hidden = true }, 5000)
}

export function clearFlash() {
  clearTimeout(flashTimer)
  $('flash').hidden = true
}
