// #/login: sign in with a password or GitHub, and sign up when the server allows it.
import { accountBody, accountFields, loginField, signedIn } from '../components/account-form.js'
import { field, submitting } from '../components/forms.js'
import { api, loadOptions } from '../lib/api.js'
import { append, h } from '../lib/dom.js'
import { route } from '../lib/router.js'

route('login', {
  title: 'Sign in', auth: 'guest',
  async render(ctx) {
    let options = null
    try { options = await loadOptions(true) } catch (err) { ctx.error(err) }
    if (!ctx.alive()) return
    const wrap = h('div', { class: 'narrow' }, h('div', { class: 'auth-title' }, h('h1', null, 'Sign in to TaskGate'), h('p', { class: 'muted' }, 'Operator console')))
    append(ctx.view, wrap)
    if (options && options.setupRequired) {
      append(wrap, h('div', { class: 'note' }, 'This server has no operator yet: open the setup URL printed in the server console.'))
    }

    const loginForm = h('form', { class: 'form', 'aria-label': 'Sign in' },
      field('Login', loginField()),
      field('Password', h('input', { type: 'password', name: 'password', required: true, maxlength: 256, autocomplete: 'current-password' })),
      h('button', { type: 'submit', class: 'full' }, 'Sign in'))
    submitting(loginForm, ctx, async (v) => {
      signedIn(await api('POST', '/api/v1/auth/login', { login: v.login.trim(), password: v.password }, { auth: false }))
    })
    const card = h('div', { class: 'card' }, loginForm)
    if (options && options.github) {
      append(card, h('div', { class: 'divider' }, 'or'), h('a', { class: 'button github', href: '/api/v1/auth/github?ui=1' }, 'Sign in with GitHub'))
    }
    append(wrap, card)

    if (options && options.signup) {
      const signupForm = h('form', { class: 'form', 'aria-label': 'Sign up' }, ...accountFields(), h('button', { type: 'submit', class: 'full secondary' }, 'Create account'))
      submitting(signupForm, ctx, async (v) => {
        signedIn(await api('POST', '/api/v1/auth/signup', accountBody(v), { auth: false }))
      })
      const signupCard = h('div', { class: 'card', id: 'signup' }, h('h2', null, 'Sign up'), h('p', { class: 'muted small' }, 'New here? Create an operator account.'), signupForm)
      append(wrap, signupCard)
    }
  },
})
