// The header on every page: navigation from the route registry, who is signed in, the kill-switch, sign-out.
import { showError, showFlash } from './banner.js'
import { api } from '../lib/api.js'
import { $, fill, h } from '../lib/dom.js'
import { go, render, routes } from '../lib/router.js'
import { session, state } from '../lib/session.js'
import { ask } from './dialog.js'

export function renderNav(active) {
  const nav = $('nav')
  const links = []
  const entries = Object.entries(routes).sort((a, b) => (a[1].order ?? 100) - (b[1].order ?? 100))
  for (const [name, def] of entries) {
    if (!def.nav) continue
    if (def.auth === 'required' && !session.token) continue
    if (def.auth === 'guest' && session.token) continue
    if (def.visible && !def.visible(state.me)) continue
    const label = typeof def.nav === 'function' ? def.nav(state.me) : def.nav
    links.push(h('a', { href: `#/${name}`, class: name === active ? 'active' : null, 'aria-current': name === active ? 'page' : null }, label))
  }
  links.push(h('a', { href: '/docs' }, 'Docs'))
  fill(nav, ...links)

  const sess = $('session')
  if (session.token && state.me) {
    fill(sess,
      killSwitchButton(state.me),
      h('span', null, 'Signed in as ', h('strong', null, state.me.identityLogin)),
      h('button', { type: 'button', class: 'secondary small', onclick: logout }, 'Sign out'),
    )
  } else sess.replaceChildren()
  const stopped = !!(session.token && state.me && state.me.flags && state.me.flags.killSwitch)
  document.body.classList.toggle('kill-switch-on', stopped)
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
