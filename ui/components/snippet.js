// A block of code to copy (the agent page's connect snippets): a caption with a Copy button, and
// the code in a box that scrolls in itself and takes focus, so the keyboard can scroll it too.
import { copyText } from './secret-box.js'
import { fill, h } from '../lib/dom.js'

/** Returns { el, set(text) }: `set` replaces the code (the snippets follow the key field). */
export function snippet(title, text = '') {
  let current = text
  const code = h('code', null, text)
  const copy = h('button', { type: 'button', class: 'secondary small' }, 'Copy')
  copy.addEventListener('click', async () => {
    const ok = await copyText(current, code)
    fill(copy, ok ? 'Copied' : 'Select and copy manually')
    setTimeout(() => fill(copy, 'Copy'), 2000)
  })
  const el = h('figure', { class: 'snippet' },
    h('figcaption', null, h('span', null, title), copy),
    h('pre', { class: 'code', tabindex: '0', role: 'region', 'aria-label': title }, code))
  return { el, set(t) { current = t; fill(code, t) } }
}
