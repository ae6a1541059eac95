// DOM building without HTML parsing: h() sets text and attributes only, so server data is never markup.


/**
 * h('div', { class: 'x', onclick: fn }, 'text', child, [children]).
 * Strings become text nodes; attributes are set with setAttribute, so nothing is parsed as HTML.
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag)
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue
      if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v)
      else if (k === 'class') el.className = v
      else if (k === 'value') el.value = v
      else if (k === 'dataset') Object.assign(el.dataset, v)
      else el.setAttribute(k, v === true ? '' : String(v))
    }
  }
  append(el, children)
  return el
}

export function append(el, children) {
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue
    if (Array.isArray(c)) append(el, c)
    else if (c instanceof Node) el.appendChild(c)
    else el.appendChild(document.createTextNode(String(c)))
  }
}

export const $ = (id) => document.getElementById(id)
