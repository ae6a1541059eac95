// Tables that scroll sideways in their own box on narrow screens.
import { h } from '../lib/dom.js'

/**
 * The box a table scrolls sideways in on narrow screens. It takes focus, so keyboard users can
 * scroll it too (tables without links or buttons would otherwise be out of reach).
 */
export function tableWrap(table) {
  return h('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': 'Table, scrolls sideways' }, table)
}

/** A table with column headers in its scrolling box. */
export function dataTable(headers, rows) {
  return tableWrap(h('table', null,
    h('thead', null, h('tr', null, headers.map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', null, rows)))
}
