// Modal confirmation dialogs (<dialog> with showModal): focus stays inside while open, Escape or
// Cancel closes them, and focus goes back to the control that opened them.
import { append, h } from '../lib/dom.js'

let seq = 0

/**
 * Asks before an action. `message`: the question, then paragraphs separated by a blank line.
 * Resolves with true or false; with `input` (the field's label), with the text entered or null.
 */
export function ask(message, { confirm = 'OK', danger = false, input = null } = {}) {
  const opener = document.activeElement
  const [question, ...paragraphs] = String(message).split('\n\n')
  const titleId = `dialog-title-${++seq}`
  const entry = input ? h('input', { type: 'text', name: 'answer', maxlength: 500, autocomplete: 'off', id: `dialog-input-${seq}` }) : null
  const ok = h('button', { type: 'submit', class: danger ? 'confirm danger-solid' : 'confirm' }, confirm)
  const cancel = h('button', { type: 'button', class: 'secondary cancel' }, 'Cancel')
  const form = h('form', { class: 'form' },
    h('h2', { id: titleId }, question),
    paragraphs.map((p) => h('p', null, p)),
    entry ? h('div', { class: 'field' }, h('label', { for: entry.id }, input), entry) : null,
    h('div', { class: 'actions' }, ok, cancel))
  const dialog = h('dialog', { class: 'dialog', 'aria-labelledby': titleId }, form)
  form.addEventListener('submit', (ev) => { ev.preventDefault(); dialog.close('ok') })
  cancel.addEventListener('click', () => dialog.close('cancel'))
  append(document.body, dialog)
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => {
      const confirmed = dialog.returnValue === 'ok'
      dialog.remove()
      if (opener instanceof HTMLElement && opener.isConnected) opener.focus()
      resolve(entry ? (confirmed ? entry.value : null) : confirmed)
    })
    dialog.showModal()
    ;(entry || ok).focus()
  })
}
