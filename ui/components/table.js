import { h } from '../lib/dom.js'

/** A table with column headers that scrolls sideways inside its own box on narrow screens. */
export function dataTable(headers, rows) {
  return h('div', { class: 'table-wrap' }, h('table', null,
    h('thead', null, h('tr', null, headers.map((t) => h('th', { scope: 'col' }, t)))),
    h('tbody', null, rows)))
}
