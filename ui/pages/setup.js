// #/setup: first-run setup with the token printed at start; creates the administrator.
import { accountBody, accountFields, signedIn } from '../components/account-form.js'
import { field, submitting } from '../components/forms.js'
import { api, loadOptions } from '../lib/api.js'
import { append, h } from '../lib/dom.js'
import { route } from '../lib/router.js'
import { state } from '../lib/session.js'

route('setup', {
  title: 'Set up', auth: 'any',
  async render(ctx) {
    const token = ctx.params.get('token') || ''
    let options = null
    try { options = await loadOptions(true) } catch (err) { ctx.error(err) }
    if (!ctx.alive()) return
    const card = h('div', { class: 'card' })
    append(ctx.view, h('div', { class: 'narrow' },
      h('div', { class: 'auth-title' }, h('h1', null, 'Set up TaskGate'), h('p', { class: 'muted' }, 'Create the first operator. It becomes the administrator.')),
      card))
    if (options && !options.setupRequired) {
      append(card, h('p', null, 'Setup is already complete on this server.'), h('a', { class: 'button full', href: '#/login' }, 'Go to sign in'))
      return
    }
    const tokenInput = h('input', { type: 'text', name: 'token', required: true, maxlength: 128, autocomplete: 'off', spellcheck: 'false' })
    tokenInput.value = token
    const form = h('form', { class: 'form', novalidate: false },
      token ? null : h('div', { class: 'note info' }, 'Paste the setup token from the setup URL printed in the server console.'),
      token ? null : field('Setup token', tokenInput),
      ...accountFields(),
      h('button', { type: 'submit', class: 'full' }, 'Create administrator'))
    if (token) { tokenInput.type = 'hidden'; append(form, tokenInput) }
    submitting(form, ctx, async (v) => {
      const res = await api('POST', '/api/v1/setup', { token: v.token.trim(), ...accountBody(v) }, { auth: false })
      state.options = null
      signedIn(res)
    })
    append(card, form)
  },
})
