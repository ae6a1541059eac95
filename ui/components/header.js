// The header on every page: navigation from the route registry, who is signed in, the kill-switch, sign-out.
import { showError, showFlash } from './banner.js'
import { api } from '../lib/api.js'
import { $, fill, h } from '../lib/dom.js'
import { go, render, routes } from '../lib/router.js'
import { session, state } from '../lib/session.js'
import { ask } from './dialog.js'

/** The navigation's groups, in this order; a page joins one with route(name, { nav, group }). */
const GROUPS = [['operate', 'Operate'], ['govern', 'Govern'], ['account', 'Account'], ['public', 'Public'], ['admin', 'Admin']]

let drawnFor = null // the page the navigation was last drawn for
let wired = false

/**
 * The navigation: one disclosure menu per group (a button with aria-expanded and the list of its
 * pages), in one row. Only the groups with a page this visitor may open are shown; with a single
 * group (signed out: the public pages) its links are shown directly.
 */
export function renderNav(active) {
  const nav = $('nav')
  // Redrawn for the same page (a new approvals count): keep the open menu and the focus.
  const same = active === drawnFor
  const open = same ? nav.querySelector('[aria-expanded="true"]')?.getAttribute('aria-controls') : null
  const focused = same && nav.contains(document.activeElement) ? document.activeElement.id : null
  drawnFor = active
  wire(nav)

  const groups = GROUPS.map(([key, label]) => ({ key, label, items: [] }))
  const entries = Object.entries(routes).sort((a, b) => (a[1].order ?? 100) - (b[1].order ?? 100))
  for (const [name, def] of entries) {
    if (!def.nav) continue
    if (def.auth === 'required' && !session.token) continue
    if (def.auth === 'guest' && session.token) continue
    if (def.visible && !def.visible(state.me)) continue
    groups.find((g) => g.key === def.group).items.push({ name, label: def.nav, count: def.count?.() || 0 })
  }
  groups.find((g) => g.key === 'public').items.push({ href: '/docs', label: 'API docs' })
  const shown = groups.filter((g) => g.items.length)

  const link = (it) => h('li', null, h('a', {
    id: `nav-${it.name ?? 'docs'}`, href: it.href ?? `#/${it.name}`, 'aria-current': it.name === active ? 'page' : null,
  }, it.count ? `${it.label} (${it.count})` : it.label))
  if (shown.length === 1) fill(nav, h('ul', { class: 'nav-links' }, shown[0].items.map(link)))
  else {
    fill(nav, h('ul', { class: 'nav-groups' }, shown.map((g) => {
      const count = g.items.reduce((n, it) => n + (it.count ?? 0), 0)
      const current = g.items.some((it) => it.name === active)
      return h('li', { class: 'nav-group' },
        h('button', { type: 'button', id: `nav-${g.key}`, class: current ? 'nav-toggle active' : 'nav-toggle', 'aria-expanded': 'false', 'aria-controls': `nav-${g.key}-menu` },
          g.label, count ? h('span', { class: 'nav-count' }, h('span', { class: 'sr-only' }, ', '), String(count), h('span', { class: 'sr-only' }, ' waiting')) : null),
        h('ul', { class: 'nav-menu', id: `nav-${g.key}-menu`, hidden: true }, g.items.map(link)))
    })))
  }
  const reopen = open && nav.querySelector(`[aria-controls="${open}"]`)
  if (reopen) toggle(reopen, true)
  if (focused) document.getElementById(focused)?.focus()

  const sess = $('session')
  if (session.token && state.me) {
    fill(sess,
      killSwitchButton(state.me),
      h('span', null, 'Signed in as ', h('strong', null, state.me.identityLogin)),
      h('button', { type: 'button', class: 'secondary small', onclick: logout }, 'Sign out'))
  } else sess.replaceChildren()
  const stopped = !!(session.token && state.me && state.me.flags && state.me.flags.killSwitch)
  document.body.classList.toggle('kill-switch-on', stopped)
}

/** Opens or closes one group's menu; opening one closes the others. */
function toggle(button, show) {
  if (show) closeAll()
  button.setAttribute('aria-expanded', String(show))
  document.getElementById(button.getAttribute('aria-controls')).hidden = !show
}

function closeAll() {
  for (const b of $('nav').querySelectorAll('[aria-expanded="true"]')) toggle(b, false)
}

/**
 * The menus' keyboard and pointer behaviour, attached once to the (lasting) #nav element: a button
 * toggles its menu; ↓/↑ move through the open menu; Escape closes it and returns focus to its
 * button; following a link, clicking elsewhere or tabbing out of a group closes it.
 */
function wire(nav) {
  if (wired) return
  wired = true
  nav.addEventListener('click', (ev) => {
    const button = ev.target.closest('button[aria-controls]')
    if (button) toggle(button, button.getAttribute('aria-expanded') !== 'true')
    else if (ev.target.closest('a')) closeAll()
  })
  nav.addEventListener('keydown', (ev) => {
    const group = ev.target.closest('.nav-group')
    if (!group) return
    const button = group.querySelector('button')
    const links = [...group.querySelectorAll('a')]
    if (ev.key === 'Escape' && button.getAttribute('aria-expanded') === 'true') {
      toggle(button, false)
      button.focus()
    } else if (ev.key === 'ArrowDown' || ev.key === 'ArrowUp') {
      ev.preventDefault()
      toggle(button, true)
      const i = links.indexOf(ev.target)
      const step = ev.key === 'ArrowDown' ? 1 : -1
      links[i < 0 ? (step > 0 ? 0 : links.length - 1) : (i + step + links.length) % links.length].focus()
    }
  })
  nav.addEventListener('focusout', (ev) => {
    const group = ev.target.closest('.nav-group')
    if (group && ev.relatedTarget && !group.contains(ev.relatedTarget)) toggle(group.querySelector('button'), false)
  })
  document.addEventListener('click', (ev) => { if (!nav.contains(ev.target)) closeAll() })
}

/**
 * The kill-switch, in the header of every page: one click (and a confirmation) stops every
 * submission and compute request of this operator at once, and fails what is queued or held.
 */
function killSwitchButton(me) {
  const active = !!(me.flags && me.flags.killSwitch)
  return h('button', {
    type: 'button', class: active ? 'small kill-switch active' : 'small kill-switch', 'aria-pressed': active ? 'true' : 'false',
    title: active ? 'The kill-switch is on: submissions and compute are refused' : 'Stop all submissions and compute now',
    onclick: async () => {
      const turnOn = !active
      let reason = null
      if (turnOn) {
        reason = await ask('Turn the kill-switch ON?\n\nEvery new task and compute request is refused at once, and queued or held tasks fail (refunded). Reads keep working.', { input: 'Reason (optional)', confirm: 'Turn it on', danger: true })
        if (reason === null) return
      } else if (!(await ask('Turn the kill-switch OFF and accept submissions again?', { confirm: 'Turn it off' }))) return
      try {
        await api('PATCH', '/api/v1/operator/kill-switch', reason ? { active: turnOn, reason } : { active: turnOn })
        state.me = null
        showFlash(turnOn ? 'Kill-switch ON: submissions and compute are stopped.' : 'Kill-switch off: submissions are accepted again.')
        await render()
        document.querySelector('button.kill-switch')?.focus() // the header was redrawn: keep the user's place
      } catch (err) { showError(err) }
    },
  }, active ? 'Kill-switch ON' : 'Kill-switch')
}

export async function logout() {
  try {
    await api('POST', '/api/v1/auth/logout')
  } catch {
    // The token is dropped either way.
  }
  session.clear()
  go('login')
}
