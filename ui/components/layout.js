// Page structure: the page heading, definition lists, collapsible cards, stat tiles.
import { h } from '../lib/dom.js'

export function pageHead(title, subtitle, ...extra) {
  return h('div', { class: 'page-head' },
    h('div', null, h('h1', null, title), subtitle ? h('p', { class: 'muted' }, subtitle) : null),
    extra.length ? h('div', null, extra) : null)
}

export function statCard(label, value, sub) {
  return h('div', { class: 'stat' }, h('div', { class: 'stat-label' }, label), h('div', { class: 'stat-value' }, value), sub ? h('div', { class: 'stat-sub' }, sub) : null)
}

export function trend(n, unit = '', lowerIsBetter = false) {
  if (typeof n !== 'number' || n === 0) return h('span', { class: 'muted' }, 'same as last month')
  const good = lowerIsBetter ? n < 0 : n > 0
  return h('span', { class: good ? 'trend up' : 'trend down' }, `${n > 0 ? '+' : '−'}${Math.abs(Math.round(n * 100) / 100).toLocaleString('en-US')}${unit} vs last month`)
}

export function dl(rows) {
  return h('dl', { class: 'dl' }, rows.filter(Boolean).flatMap(([k, v]) => [h('dt', null, k), h('dd', null, v)]))
}

/** A collapsible card (details/summary). */
export function foldCard(title, open, ...body) {
  return h('details', { class: 'card fold', open: open || null }, h('summary', null, h('h2', null, title)), h('div', { class: 'fold-body' }, body))
}
