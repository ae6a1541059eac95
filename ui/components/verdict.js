// How a verification result (ui/lib/verify.js) reads on a page: one sentence that says whether
// it holds and who signed it, then every check with what it found.
import { h } from '../lib/dom.js'

const short = (a) => (a ? `${a.slice(0, 6)}…${a.slice(-4)}` : '')

/** The headline: "Signature valid, signed by 0x… (this appliance's signer … since …)" or what failed. */
export function verdict(result, what = 'Signature') {
  const info = result.signerInfo
  const signer = result.signer
  const text = result.ok
    ? `${what} valid${signer ? `, signed by ${signer}` : ''}${info ? ` (this appliance's signer ${info.keyId} since ${info.since})` : ''}`
    : `${what} not valid: ${result.checks.filter((c) => !c.ok).map((c) => `${c.name} — ${c.detail}`).join('; ')}`
  return h('div', { class: `verdict ${result.ok ? 'verdict-ok' : 'verdict-bad'}`, role: 'status', 'data-verdict': result.ok ? 'valid' : 'invalid', title: signer || undefined },
    h('span', { class: 'verdict-mark', 'aria-hidden': 'true' }, result.ok ? '✓' : '✗'),
    h('span', { class: 'verdict-text' }, text))
}

/** Every check, passed or not, as a list. */
export function checkList(result) {
  return h('ul', { class: 'checks' }, result.checks.map((c) =>
    h('li', { class: c.ok ? 'check-ok' : 'check-bad' }, h('strong', null, c.ok ? '✓ ' : '✗ ', c.name), ': ', c.detail)))
}

/** A failed step that has no checks (e.g. the bytes do not hash to their CID). */
export function failure(text) {
  return h('div', { class: 'verdict verdict-bad', role: 'status', 'data-verdict': 'invalid' }, h('span', { class: 'verdict-mark', 'aria-hidden': 'true' }, '✗'), h('span', { class: 'verdict-text' }, text))
}

export { short }
