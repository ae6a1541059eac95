// Form building blocks: labelled fields, values, and submitting with errors going to the banner.
import { clearBanner } from './banner.js'
import { h } from '../lib/dom.js'

export function field(label, input, hint) {
  if (!input.id) input.id = `f-${Math.random().toString(36).slice(2, 9)}`
  return h('div', { class: 'field' }, h('label', { for: input.id }, label), input, hint ? h('div', { class: 'hint' }, hint) : null)
}

export function formValues(form) {
  const out = {}
  for (const el of form.elements) if (el.name) out[el.name] = el.type === 'checkbox' ? el.checked : el.value
  return out
}

/** Runs `fn` with the form's submit button disabled; errors go to the banner. */
export function submitting(form, ctx, fn) {
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault()
    const btn = form.querySelector('button[type="submit"]')
    if (btn) btn.disabled = true
    clearBanner()
    try {
      await fn(formValues(form))
    } catch (err) {
      ctx.error(err)
    } finally {
      if (btn) btn.disabled = false
    }
  })
}

export function textarea(attrs) { return h('textarea', { rows: 4, ...attrs }) }
