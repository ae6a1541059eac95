// Previous/next pagination for paged lists.
import { h } from '../lib/dom.js'
import { fmtInt } from '../lib/format.js'

/** "Page x of y" with previous/next links; hrefFor(page) gives the hash of a page. */
export function pager({ page, totalPages, total }, hrefFor, noun) {
  const pages = Math.max(1, totalPages || 1)
  const prev = page > 1 ? h('a', { class: 'button secondary small', href: hrefFor(page - 1), rel: 'prev' }, '← Previous') : h('span', { class: 'button secondary small disabled', 'aria-disabled': 'true' }, '← Previous')
  const next = page < pages ? h('a', { class: 'button secondary small', href: hrefFor(page + 1), rel: 'next' }, 'Next →') : h('span', { class: 'button secondary small disabled', 'aria-disabled': 'true' }, 'Next →')
  return h('nav', { class: 'pager', 'aria-label': 'Pagination' },
    h('span', { class: 'muted small' }, `Page ${page} of ${pages} · ${fmtInt(total)} ${noun}`), h('span', { class: 'pager-links' }, prev, next))
}
