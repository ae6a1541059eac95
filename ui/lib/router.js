// The page registry and the hash router (#/<page>/<sub>?<params>).
//
// Adding a page: in ui/pages/<page>.js call
//   route('name', { title, auth: 'required' | 'guest' | 'any', nav: 'Menu label', group, order, count, visible: (me) => bool, onEveryPage, render })
// `group` is the navigation menu the page is listed in (components/header.js: operate, govern,
// account, public, admin), `order` its place, `count()` an optional number shown after the label.
// and import the module from ui/main.js. `render(ctx)` (may be async) gets
//   ctx.view    the (empty) element to fill
//   ctx.params  URLSearchParams of the part of the hash after '?'
//   ctx.sub     the decoded rest of the path after the route name ('#/tasks/<id>' → '<id>'), or ''
//   ctx.onLeave (fn) => run fn when the user navigates away (close EventSources, stop timers)
//   ctx.error   (err) => show an error banner (ignored once the user navigated away)
//   ctx.flash   (text) => show a success message
//   ctx.alive   () => false once the user navigated away
// `onEveryPage()` (optional) runs whenever another page is shown while signed in (navigation hints).
import { clearBanner, clearFlash, showError, showFlash } from '../components/banner.js'
import { pageHead } from '../components/layout.js'
import { loadMe, setUnauthorizedHandler } from './api.js'
import { $, append, h } from './dom.js'
import { HOME, session, state } from './session.js'

export const routes = {}

/** Registers a page. auth: 'required' | 'guest' | 'any'; nav: its label in the navigation (none: not listed). */
export function route(name, def) {
  routes[name] = { auth: 'required', nav: false, ...def }
}

/** The page to show: from the hash (#/<page>/<sub>?…), or from an explorer path (/explorer/<kind>/<id>) without one. */
function parseHash() {
  const explorerPath = !location.hash && location.pathname.startsWith('/explorer/')
  const raw = explorerPath ? location.pathname.slice(1) : location.hash.replace(/^#\/?/, '')
  const q = raw.indexOf('?')
  const path = q >= 0 ? raw.slice(0, q) : raw
  const slash = path.indexOf('/')
  const name = (slash >= 0 ? path.slice(0, slash) : path) || ''
  let sub = slash >= 0 ? path.slice(slash + 1).replace(/\/+$/, '') : ''
  try { sub = decodeURIComponent(sub) } catch { /* keep it raw */ }
  const params = new URLSearchParams(q >= 0 ? raw.slice(q + 1) : '')
  return { name, sub, params }
}

export function currentRouteName() { return parseHash().name }

export function go(name, replace = false) {
  const hash = `#/${name}`
  if (replace) { history.replaceState(null, '', `${location.pathname}${location.search}${hash}`); render() }
  else if (location.hash === hash) render()
  else location.hash = hash
}

let chrome = (_active) => {} // draws the header for the active page (set by start)

let pendingError = null

setUnauthorizedHandler((err) => {
  pendingError = err
  if (currentRouteName() !== 'login') go('login')
  else render()
})

let generation = 0

let leaveHandlers = []

/** Runs (and forgets) the previous page's onLeave handlers. */
function leavePage() {
  const handlers = leaveHandlers
  leaveHandlers = []
  for (const fn of handlers) {
    try { fn() } catch { /* keep going */ }
  }
}

export async function render() {
  const gen = ++generation
  leavePage()
  let { name, sub, params } = parseHash()
  if (!routes[name]) { name = session.token ? HOME : 'login'; sub = '' }
  const def = routes[name]
  if (def.auth === 'required' && !session.token) { go('login', true); return }
  if (def.auth === 'guest' && session.token) { go(HOME, true); return }

  clearBanner()
  clearFlash()
  if (pendingError) { showError(pendingError); pendingError = null }

  const view = h('div', { class: 'view' })
  $('view').replaceWith(view)
  view.id = 'view'
  const alive = () => gen === generation && view.isConnected
  const ctx = {
    view, params, sub, alive,
    error: (err) => { if (alive()) showError(err) },
    flash: (text) => { if (alive()) showFlash(text) },
    onLeave: (fn) => { if (gen === generation) leaveHandlers.push(fn); else fn() },
  }
  document.title = def.title ? `${def.title} · TaskGate` : 'TaskGate'

  if (session.token) {
    try { await loadMe() } catch (err) { if (!session.token) return; ctx.error(err) }
    if (!alive()) return
  }
  chrome(name)
  // Hints other pages keep fresh everywhere (the approvals count in the navigation).
  if (session.token) for (const [n, d] of Object.entries(routes)) if (d.onEveryPage && n !== name) d.onEveryPage()
  if (def.visible && !def.visible(state.me)) {
    append(view, pageHead(def.title || name), h('div', { class: 'card' }, h('p', { class: 'muted' }, 'You do not have access to this page.')))
  } else {
    try {
      await def.render(ctx)
    } catch (err) {
      ctx.error(err)
    }
  }
  if (alive() && gen > 1) focusPage(view)
}

/**
 * After a route change, keyboard and screen-reader users start at the new page's heading, unless
 * they already moved focus into the page while it loaded.
 */
function focusPage(view) {
  const active = document.activeElement
  if (active && active !== document.body && !active.closest('header') && active.isConnected) return
  focusMain(view)
}

/** Focuses the page's first heading (or the page itself): the skip link's target too. */
export function focusMain(view = $('view')) {
  const target = view.querySelector('h1') || view
  target.tabIndex = -1
  target.focus()
}

/** Starts routing: `drawChrome(activeName)` redraws the header after each page's access check. */
export function start({ drawChrome }) {
  chrome = drawChrome
  window.addEventListener('hashchange', render)
  render()
}
