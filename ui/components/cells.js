// Table cells and definition-list values: badges, links, dates, and "—" for nothing.
import { h } from '../lib/dom.js'
import { fmtDate, fmtScore, safeHref } from '../lib/format.js'

export function dateCell(iso, emptyText = 'never') {
  const text = fmtDate(iso)
  return text ? h('time', { datetime: iso, title: iso }, text) : h('span', { class: 'muted' }, emptyText)
}

export function dash() { return h('span', { class: 'muted' }, '—') }

const TIER_COLOR = { FREE: '', PRO: 'blue', ENTERPRISE: 'purple' }

const STATUS_COLOR = { ACTIVE: 'green', SUSPENDED: 'amber', BANNED: 'red' }

export function tierBadge(t) { return t ? h('span', { class: `badge ${TIER_COLOR[t] ?? ''}` }, t) : dash() }

export function statusBadge(s) { return s ? h('span', { class: `badge ${STATUS_COLOR[s] ?? ''}` }, s) : dash() }

const TASK_STATUS_COLOR = { COMPLETED: 'green', FAILED: 'red', PROCESSING: 'blue', QUEUED: 'amber', PENDING_APPROVAL: 'purple' }

const VERIFICATION_COLOR = { VERIFIED: 'green', FAILED: 'red' }

export function badge(text, color) { return text ? h('span', { class: `badge ${color || ''}` }, text) : dash() }

export function taskStatusBadge(s) { return badge(s, TASK_STATUS_COLOR[s]) }

export function agentStatusBadge(s) { return badge(s, s === 'ACTIVE' ? 'green' : '') }

/** The door a task came through (docs/doors.md); null (the REST API) shows nothing. */
const DOORS = { openai: ['OpenAI', 'Made through the OpenAI-compatible API (/v1)'], mcp: ['MCP', 'Made through the MCP server (/mcp)'], a2a: ['A2A', 'Made through the A2A endpoint (/a2a)'] }

export function doorBadge(door) {
  const d = DOORS[door]
  return d ? h('span', { class: 'badge blue door', title: d[1] }, d[0]) : null
}

/** The door in words, for a task's details: "OpenAI-compatible API (/v1)", "MCP server (/mcp)", "A2A endpoint (/a2a)" or "REST API". */
export function doorText(door) {
  return door === 'openai' ? 'OpenAI-compatible API (/v1)' : door === 'mcp' ? 'MCP server (/mcp)' : door === 'a2a' ? 'A2A endpoint (/a2a)' : 'REST API (POST /api/v1/tasks/submit)'
}

export function verificationCell(status, score) {
  if (!status && typeof score !== 'number') return dash()
  return h('span', { class: 'nowrap' }, status ? badge(status, VERIFICATION_COLOR[status]) : null,
    typeof score === 'number' ? h('span', { class: 'muted small' }, ` ${fmtScore(score)}`) : null)
}

export function extLink(url, text) {
  const href = safeHref(url)
  if (!href) return url ? h('code', null, String(url)) : dash()
  return h('a', { href, target: '_blank', rel: 'noopener noreferrer' }, text || String(url))
}

export function taskLink(id) { return h('a', { href: `#/tasks/${encodeURIComponent(id)}`, class: 'mono' }, id) }

export function agentLink(id, name) { return id ? h('a', { href: `#/agents/${encodeURIComponent(id)}` }, name || h('code', null, id)) : dash() }

export function ipfsLink(cid) { return cid ? extLink(`/ipfs/${encodeURIComponent(cid)}`, cid) : dash() }

export function proofLink(cid) { return cid ? extLink(`/api/v1/public/proof/${encodeURIComponent(cid)}`, cid) : dash() }

export function mono(v) { return v ? h('code', { class: 'break' }, String(v)) : dash() }

export function jsonBlock(value) { return h('pre', { class: 'code' }, JSON.stringify(value, null, 2)) }
