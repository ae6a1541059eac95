// The account fields shared by first-run setup and sign-up, and signing in with the token they return.
import { field } from './forms.js'
import { h } from '../lib/dom.js'
import { go } from '../lib/router.js'
import { HOME, session } from '../lib/session.js'

export const loginField = (minlength = 1) => h('input', { type: 'text', name: 'login', required: true, minlength, maxlength: 64, autocomplete: 'username', autocapitalize: 'none', spellcheck: 'false' })

const newPasswordField = () => h('input', { type: 'password', name: 'password', required: true, minlength: 8, maxlength: 256, autocomplete: 'new-password' })

/** login/password/email/displayName fields shared by setup and sign-up. */
export function accountFields() {
  return [
    field('Login', loginField(2), 'Letters, digits and _ . @ - (2–64 characters, case-insensitive).'),
    field('Password', newPasswordField(), 'At least 8 characters.'),
    field('Email (optional)', h('input', { type: 'email', name: 'email', maxlength: 254, autocomplete: 'email' })),
    field('Display name (optional)', h('input', { type: 'text', name: 'displayName', maxlength: 100, autocomplete: 'name' })),
  ]
}

export function accountBody(v) {
  const body = { login: v.login.trim(), password: v.password }
  if (v.email && v.email.trim()) body.email = v.email.trim()
  if (v.displayName && v.displayName.trim()) body.displayName = v.displayName.trim()
  return body
}

export function signedIn(tokenResponse) {
  session.set(tokenResponse.accessToken, tokenResponse.expiresIn)
  go(HOME, true)
}
