// DOM building without HTML parsing: h() sets text and attributes only, so server data is never markup.
// Content goes into the page only through h(), append() and fill(): the browser's own append() and
// replaceChildren() turn a null into the text "null" (and an array into "[object …]").


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
  append(el, ...children)
  return el
}

/** Appends children to el with h()'s rules: null, undefined and false are skipped, arrays flattened. */
export function append(el, ...children) {
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue
    if (Array.isArray(c)) append(el, ...c)
    else if (c instanceof Node) el.appendChild(c)
    else el.appendChild(document.createTextNode(String(c)))
  }
}

/** Replaces el's children with the given ones, with append()'s rules. */
export function fill(el, ...children) {
  el.replaceChildren()
  append(el, ...children)
  return el
}

export const $ = (id) => document.getElementById(id)
