// The box that shows a secret once (API keys, agent keys, webhook secrets) with a copy button.
import { h } from '../lib/dom.js'

/** The yellow "copy this now" box for a secret the server returns once (API keys, agent keys). */
export function secretBox({ title, secret, note, dismiss }) {
  const value = h('code', { class: 'keyvalue', 'aria-label': 'New API key' }, secret)
  const copyBtn = h('button', { type: 'button', onclick: async () => {
    const ok = await copyText(secret, value)
    copyBtn.textContent = ok ? 'Copied' : 'Select and copy manually'
    setTimeout(() => { copyBtn.textContent = 'Copy' }, 2000)
  } }, 'Copy')
  return h('div', { class: 'keybox', role: 'region', 'aria-label': 'New API key' },
    h('h2', null, title),
    h('p', { class: 'warning' }, 'Copy this key now: it will not be shown again.'),
    h('div', { class: 'keyrow' }, value, copyBtn, h('button', { type: 'button', class: 'secondary', onclick: dismiss }, 'Done')),
    note ? h('p', { class: 'muted small keybox-note' }, note) : null)
}

/** Copies text to the clipboard, or selects `el` and copies its selection where the clipboard API is unavailable. */
export async function copyText(text, el) {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text)
      return true
    }
  } catch { /* fall back below */ }
  try {
    const range = document.createRange()
    range.selectNodeContents(el)
    const sel = getSelection()
    sel.removeAllRanges()
    sel.addRange(range)
    return document.execCommand('copy')
  } catch {
    return false
  }
}
