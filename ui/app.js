// TaskGate admin UI: vanilla JS, no build step, no external resources.
// Server data is only ever written with textContent / attributes (never innerHTML).
//
// Adding a page: call
//   route('name', { title, auth: 'required' | 'guest' | 'any', nav: 'Menu label', order, visible: (me) => bool, render })
// and fetch data with api(method, path, body). `render(ctx)` (may be async) gets
//   ctx.view    the (empty) element to fill
//   ctx.params  URLSearchParams of the part of the hash after '?'
//   ctx.sub     the decoded rest of the path after the route name ('#/tasks/<id>' → '<id>'), or ''
//   ctx.onLeave (fn) => run fn when the user navigates away (close EventSources, stop timers)
//   ctx.error   (err) => show an error banner (ignored once the user navigated away)
//   ctx.flash   (text) => show a success message
//   ctx.alive   () => false once the user navigated away

const TOKEN_KEY = 'taskgate.accessToken'
const HOME = 'agents' // the page signed-in operators land on
const TOKEN_EXP_KEY = 'taskgate.accessTokenExpiresAt'

// ---------------------------------------------------------------------------
// Session

const session = {
  get token() {
    const exp = Number(sessionStorage.getItem(TOKEN_EXP_KEY) || 0)
    if (exp && Date.now() > exp) { this.clear(); return null }
    return sessionStorage.getItem(TOKEN_KEY)
  },
  set(accessToken, expiresIn) {
    sessionStorage.setItem(TOKEN_KEY, accessToken)
    if (Number(expiresIn) > 0) sessionStorage.setItem(TOKEN_EXP_KEY, String(Date.now() + Number(expiresIn) * 1000))
    else sessionStorage.removeItem(TOKEN_EXP_KEY)
    state.me = null
  },
  clear() {
    sessionStorage.removeItem(TOKEN_KEY)
    sessionStorage.removeItem(TOKEN_EXP_KEY)
    state.me = null
  },
}

const state = {
  me: null, // the /auth/me profile, cached while signed in
  options: null, // /auth/options, cached
}

// ---------------------------------------------------------------------------
// API helper

export class ApiError extends Error {
  constructor(status, problem) {
    super((problem && problem.detail) || `HTTP ${status}`)
    this.status = status
    this.problem = problem || {}
  }
}

/**
 * Calls the TaskGate API. Sends the bearer token when signed in (unless opts.auth === false);
 * resolves with the parsed JSON body, or throws ApiError carrying the problem+json body.
 */
export async function api(method, path, body, opts = {}) {
  const headers = { accept: 'application/json, application/problem+json' }
  const token = opts.auth === false ? null : session.token
  if (token) headers.authorization = `Bearer ${token}`
  const init = { method, headers, credentials: 'same-origin', cache: 'no-store' }
  if (body !== undefined) {
    headers['content-type'] = 'application/json'
    init.body = JSON.stringify(body)
  }
  let res
  try {
    res = await fetch(path, init)
  } catch (e) {
    throw new ApiError(0, { title: 'Network error', detail: 'the server could not be reached', code: 'NETWORK_ERROR' })
  }
  const text = await res.text()
  let data = null
  if (text) {
    try { data = JSON.parse(text) } catch { data = null }
  }
  if (!res.ok) {
    const problem = data && typeof data === 'object' ? data : { title: res.statusText, detail: text.slice(0, 300) || `HTTP ${res.status}` }
    if (!problem.requestId) problem.requestId = res.headers.get('x-request-id') || undefined
    const err = new ApiError(res.status, problem)
    // A rejected bearer token: sign out and go to the sign-in page.
    if (res.status === 401 && token) {
      session.clear()
      pendingError = err
      if (currentRouteName() !== 'login') go('login')
      else render()
    }
    throw err
  }
  return data
}

async function loadMe(force = false) {
  if (!session.token) return null
  if (!state.me || force) state.me = await api('GET', '/api/v1/auth/me')
  return state.me
}

async function loadOptions(force = false) {
  if (!state.options || force) state.options = await api('GET', '/api/v1/auth/options', undefined, { auth: false })
  return state.options
}

// ---------------------------------------------------------------------------
// DOM helpers

/**
 * h('div', { class: 'x', onclick: fn }, 'text', child, [children]).
 * Strings become text nodes; attributes are set with setAttribute, so nothing is parsed as HTML.
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag)
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue
      if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v)
      else if (k === 'class') el.className = v
      else if (k === 'value') el.value = v
      else if (k === 'dataset') Object.assign(el.dataset, v)
      else el.setAttribute(k, v === true ? '' : String(v))
    }
  }
  append(el, children)
  return el
}

function append(el, children) {
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue
    if (Array.isArray(c)) append(el, c)
    else if (c instanceof Node) el.appendChild(c)
    else el.appendChild(document.createTextNode(String(c)))
  }
}

const $ = (id) => document.getElementById(id)

function fmtDate(iso) {
  if (!iso) return null
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return String(iso)
  const pad = (n) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`
}

function dateCell(iso, emptyText = 'never') {
  const text = fmtDate(iso)
  return text ? h('time', { datetime: iso, title: iso }, text) : h('span', { class: 'muted' }, emptyText)
}

function dash() { return h('span', { class: 'muted' }, '—') }

const TIER_COLOR = { FREE: '', PRO: 'blue', ENTERPRISE: 'purple' }
const STATUS_COLOR = { ACTIVE: 'green', SUSPENDED: 'amber', BANNED: 'red' }
function tierBadge(t) { return t ? h('span', { class: `badge ${TIER_COLOR[t] ?? ''}` }, t) : dash() }
function statusBadge(s) { return s ? h('span', { class: `badge ${STATUS_COLOR[s] ?? ''}` }, s) : dash() }

function field(label, input, hint) {
  if (!input.id) input.id = `f-${Math.random().toString(36).slice(2, 9)}`
  return h('div', { class: 'field' }, h('label', { for: input.id }, label), input, hint ? h('div', { class: 'hint' }, hint) : null)
}

function formValues(form) {
  const out = {}
  for (const el of form.elements) if (el.name) out[el.name] = el.type === 'checkbox' ? el.checked : el.value
  return out
}

/** Runs `fn` with the form's submit button disabled; errors go to the banner. */
function submitting(form, ctx, fn) {
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

function pageHead(title, subtitle, ...extra) {
  return h('div', { class: 'page-head' },
    h('div', null, h('h1', null, title), subtitle ? h('p', { class: 'muted' }, subtitle) : null),
    extra.length ? h('div', null, extra) : null)
}

// ---------------------------------------------------------------------------
// Banner and flash

let pendingError = null
let flashTimer = null

function clearBanner() {
  const b = $('banner')
  b.hidden = true
  b.replaceChildren()
}

function showError(err) {
  const b = $('banner')
  const p = err instanceof ApiError ? err.problem : { title: 'Error', detail: String((err && err.message) || err) }
  const status = err instanceof ApiError && err.status ? err.status : p.status
  const title = [status, p.title].filter(Boolean).join(' ')
  const meta = []
  if (p.code) meta.push(h('span', null, 'code ', h('code', null, p.code)))
  if (p.requestId) meta.push(h('span', null, 'request id ', h('code', null, p.requestId)))
  const errors = Array.isArray(p.errors) && p.errors.length
    ? h('ul', null, p.errors.map((e) => h('li', null, h('code', null, String(e.path ?? '')), ' ', String(e.message ?? ''))))
    : null
  b.replaceChildren()
  append(b, [
    h('button', { class: 'close', type: 'button', 'aria-label': 'Dismiss', onclick: clearBanner }, '×'),
    title ? h('div', { class: 'banner-title' }, title) : null,
    h('p', { class: 'banner-detail' }, p.detail || 'Something went wrong.'),
    meta.length ? h('div', { class: 'banner-meta' }, meta) : null,
    errors,
  ])
  b.hidden = false
  b.scrollIntoView({ block: 'nearest' })
}

function showFlash(text) {
  const f = $('flash')
  f.textContent = text
  f.hidden = false
  clearTimeout(flashTimer)
  flashTimer = setTimeout(() => { f.hidden = true }, 5000)
}

function clearFlash() {
  clearTimeout(flashTimer)
  $('flash').hidden = true
}

// ---------------------------------------------------------------------------
// Router

const routes = {}

/** Registers a page. auth: 'required' | 'guest' | 'any'; nav: show in the menu (function of me or boolean). */
export function route(name, def) {
  routes[name] = { auth: 'required', nav: false, ...def }
}

function parseHash() {
  const raw = location.hash.replace(/^#\/?/, '')
  const q = raw.indexOf('?')
  const path = q >= 0 ? raw.slice(0, q) : raw
  const slash = path.indexOf('/')
  const name = (slash >= 0 ? path.slice(0, slash) : path) || ''
  let sub = slash >= 0 ? path.slice(slash + 1).replace(/\/+$/, '') : ''
  try { sub = decodeURIComponent(sub) } catch { /* keep it raw */ }
  const params = new URLSearchParams(q >= 0 ? raw.slice(q + 1) : '')
  return { name, sub, params }
}

function currentRouteName() { return parseHash().name }

export function go(name, replace = false) {
  const hash = `#/${name}`
  if (replace) { history.replaceState(null, '', `${location.pathname}${location.search}${hash}`); render() }
  else if (location.hash === hash) render()
  else location.hash = hash
}

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

async function render() {
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
  renderNav(name)
  if (session.token && name !== 'approvals') refreshApprovalCount()
  if (def.visible && !def.visible(state.me)) {
    view.append(pageHead(def.title || name), h('div', { class: 'card' }, h('p', { class: 'muted' }, 'You do not have access to this page.')))
    return
  }
  try {
    await def.render(ctx)
  } catch (err) {
    ctx.error(err)
  }
}

function renderNav(active) {
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
  nav.replaceChildren(...links)

  const sess = $('session')
  if (session.token && state.me) {
    sess.replaceChildren(
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
        reason = prompt('Turn the kill-switch ON?\n\nEvery new task and compute request is refused at once, and queued or held tasks fail (refunded). Reads keep working.\n\nReason (optional):', '')
        if (reason === null) return
      } else if (!confirm('Turn the kill-switch OFF and accept submissions again?')) return
      try {
        await api('PATCH', '/api/v1/operator/kill-switch', reason ? { active: turnOn, reason } : { active: turnOn })
        state.me = null
        showFlash(turnOn ? 'Kill-switch ON: submissions and compute are stopped.' : 'Kill-switch off: submissions are accepted again.')
        render()
      } catch (err) { showError(err) }
    },
  }, active ? 'Kill-switch ON' : 'Kill-switch')
}

async function logout() {
  try {
    await api('POST', '/api/v1/auth/logout')
  } catch {
    // The token is dropped either way.
  }
  session.clear()
  go('login')
}

// ---------------------------------------------------------------------------
// Pages

const loginField = (minlength = 1) => h('input', { type: 'text', name: 'login', required: true, minlength, maxlength: 64, autocomplete: 'username', autocapitalize: 'none', spellcheck: 'false' })
const newPasswordField = () => h('input', { type: 'password', name: 'password', required: true, minlength: 8, maxlength: 256, autocomplete: 'new-password' })

/** login/password/email/displayName fields shared by setup and sign-up. */
function accountFields() {
  return [
    field('Login', loginField(2), 'Letters, digits and _ . @ - (2–64 characters, case-insensitive).'),
    field('Password', newPasswordField(), 'At least 8 characters.'),
    field('Email (optional)', h('input', { type: 'email', name: 'email', maxlength: 254, autocomplete: 'email' })),
    field('Display name (optional)', h('input', { type: 'text', name: 'displayName', maxlength: 100, autocomplete: 'name' })),
  ]
}

function accountBody(v) {
  const body = { login: v.login.trim(), password: v.password }
  if (v.email && v.email.trim()) body.email = v.email.trim()
  if (v.displayName && v.displayName.trim()) body.displayName = v.displayName.trim()
  return body
}

function signedIn(tokenResponse) {
  session.set(tokenResponse.accessToken, tokenResponse.expiresIn)
  go(HOME, true)
}

route('setup', {
  title: 'Set up', auth: 'any',
  async render(ctx) {
    const token = ctx.params.get('token') || ''
    let options = null
    try { options = await loadOptions(true) } catch (err) { ctx.error(err) }
    if (!ctx.alive()) return
    const card = h('div', { class: 'card' })
    ctx.view.append(h('div', { class: 'narrow' },
      h('div', { class: 'auth-title' }, h('h1', null, 'Set up TaskGate'), h('p', { class: 'muted' }, 'Create the first operator. It becomes the administrator.')),
      card))
    if (options && !options.setupRequired) {
      card.append(h('p', null, 'Setup is already complete on this server.'), h('a', { class: 'button full', href: '#/login' }, 'Go to sign in'))
      return
    }
    const tokenInput = h('input', { type: 'text', name: 'token', required: true, maxlength: 128, autocomplete: 'off', spellcheck: 'false' })
    tokenInput.value = token
    const form = h('form', { class: 'form', novalidate: false },
      token ? null : h('div', { class: 'note info' }, 'Paste the setup token from the setup URL printed in the server console.'),
      token ? null : field('Setup token', tokenInput),
      ...accountFields(),
      h('button', { type: 'submit', class: 'full' }, 'Create administrator'))
    if (token) { tokenInput.type = 'hidden'; form.append(tokenInput) }
    submitting(form, ctx, async (v) => {
      const res = await api('POST', '/api/v1/setup', { token: v.token.trim(), ...accountBody(v) }, { auth: false })
      state.options = null
      signedIn(res)
    })
    card.append(form)
  },
})

route('login', {
  title: 'Sign in', auth: 'guest',
  async render(ctx) {
    let options = null
    try { options = await loadOptions(true) } catch (err) { ctx.error(err) }
    if (!ctx.alive()) return
    const wrap = h('div', { class: 'narrow' }, h('div', { class: 'auth-title' }, h('h1', null, 'Sign in to TaskGate'), h('p', { class: 'muted' }, 'Operator console')))
    ctx.view.append(wrap)
    if (options && options.setupRequired) {
      wrap.append(h('div', { class: 'note' }, 'This server has no operator yet: open the setup URL printed in the server console.'))
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
      card.append(h('div', { class: 'divider' }, 'or'), h('a', { class: 'button github', href: '/api/v1/auth/github?ui=1' }, 'Sign in with GitHub'))
    }
    wrap.append(card)

    if (options && options.signup) {
      const signupForm = h('form', { class: 'form', 'aria-label': 'Sign up' }, ...accountFields(), h('button', { type: 'submit', class: 'full secondary' }, 'Create account'))
      submitting(signupForm, ctx, async (v) => {
        signedIn(await api('POST', '/api/v1/auth/signup', accountBody(v), { auth: false }))
      })
      const signupCard = h('div', { class: 'card', id: 'signup' }, h('h2', null, 'Sign up'), h('p', { class: 'muted small' }, 'New here? Create an operator account.'), signupForm)
      wrap.append(signupCard)
    }
  },
})

route('keys', {
  title: 'API keys', nav: 'Keys', order: 40,
  async render(ctx) {
    const me = state.me
    ctx.view.append(pageHead('API keys', 'Keys authenticate agents and scripts with the x-api-key header. The full key is shown only once, when it is created.'))

    const keySlot = h('div')
    let shownKeyId = null
    const nameInput = h('input', { type: 'text', name: 'name', required: true, maxlength: 100, placeholder: 'e.g. production agent', autocomplete: 'off' })
    const rpmInput = h('input', { type: 'number', name: 'rateLimitRpm', min: 1, step: 1, placeholder: 'tier default', inputmode: 'numeric' })
    const form = h('form', { class: 'form' },
      h('div', { class: 'form-row' },
        field('Name', nameInput),
        field('Rate limit (requests/min, optional)', rpmInput),
        h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Create key'))))
    const tableSlot = h('div', null, h('p', { class: 'muted' }, 'Loading…'))

    ctx.view.append(
      keySlot,
      h('div', { class: 'card' }, h('h2', null, 'Create a key'), form),
      h('div', { class: 'card' }, h('div', { class: 'card-head' }, h('h2', null, 'Active keys'), me ? tierBadge(me.effectiveTier) : null), tableSlot))

    async function refresh() {
      const keys = await api('GET', '/api/v1/operator/keys')
      if (!ctx.alive()) return
      tableSlot.replaceChildren(keysTable(keys, revoke))
    }

    async function revoke(key) {
      const label = key.label || key.keyPrefix
      if (!confirm(`Revoke the key "${label}" (${key.keyPrefix})?\n\nRequests using it will fail immediately. This cannot be undone.`)) return
      clearBanner()
      try {
        await api('DELETE', `/api/v1/operator/keys/${encodeURIComponent(key.id)}`)
        if (shownKeyId === key.id) keySlot.replaceChildren()
        ctx.flash(`Key "${label}" revoked.`)
        state.me = null
        await refresh()
      } catch (err) { ctx.error(err) }
    }

    submitting(form, ctx, async (v) => {
      const body = { name: v.name.trim() }
      if (v.rateLimitRpm !== '') body.rateLimitRpm = Number(v.rateLimitRpm)
      const created = await api('POST', '/api/v1/operator/keys', body)
      form.reset()
      shownKeyId = created.id
      keySlot.replaceChildren(newKeyBox(created, () => keySlot.replaceChildren()))
      await refresh()
    })

    await refresh()
  },
})

function newKeyBox(created, dismiss) {
  return secretBox({
    title: `Key "${created.label}" created`, secret: created.key, dismiss,
    note: `Send it as the x-api-key header. Prefix ${created.keyPrefix}, rate limit ${created.rateLimitRpm} requests/min.`,
  })
}

/** The yellow "copy this now" box for a secret the server returns once (API keys, agent keys). */
function secretBox({ title, secret, note, dismiss }) {
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
    note ? h('p', { class: 'muted small', style: 'margin:10px 0 0' }, note) : null)
}

async function copyText(text, el) {
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

function keysTable(keys, onRevoke) {
  if (!keys.length) return h('div', { class: 'empty' }, 'No API keys yet. Create one above.')
  return h('div', { class: 'table-wrap' }, h('table', null,
    h('thead', null, h('tr', null, ['Label', 'Key', 'Type', 'Rate limit', 'Last used', 'Created', ''].map((t) => h('th', null, t)))),
    h('tbody', null, keys.map((k) => h('tr', { dataset: { keyId: k.id } },
      h('td', null, k.label || dash()),
      h('td', { class: 'nowrap' }, h('code', null, k.keyPrefix)),
      h('td', null, keyType(k)),
      h('td', { class: 'num nowrap' }, `${k.rateLimitRpm} /min`),
      h('td', { class: 'nowrap' }, dateCell(k.lastUsedAt)),
      h('td', { class: 'nowrap' }, dateCell(k.createdAt)),
      h('td', { class: 'actions' }, h('button', { type: 'button', class: 'danger small', onclick: () => onRevoke(k) }, 'Revoke'))))))
  )
}

function keyType(k) {
  const out = []
  if (k.isTestKey) {
    out.push(h('span', { class: 'badge amber', title: 'A limited-use test key' }, 'test key'))
    if (k.testUsesRemaining !== null && k.testUsesRemaining !== undefined) out.push(' ', h('span', { class: 'muted small' }, `${k.testUsesRemaining} uses left`))
  } else if (!k.agentId) out.push(h('span', { class: 'badge' }, 'operator'))
  if (k.agentId) out.push(out.length ? ' ' : null, h('span', { class: 'badge blue', title: `Bound to agent ${k.agentId}` }, 'agent'))
  return out
}

route('profile', {
  title: 'Profile', nav: 'Profile', order: 50,
  async render(ctx) {
    const me = await loadMe(true)
    if (!ctx.alive()) return
    renderNav('profile')
    const flags = me.flags && typeof me.flags === 'object' ? Object.entries(me.flags) : []
    const rows = [
      ['ID', h('code', null, me.id)],
      ['Login', me.identityLogin],
      ['Display name', me.displayName || dash()],
      ['Email', me.email || dash()],
      ['Tier', tierBadge(me.tier)],
      ['Tier override', me.tierOverride ? tierBadge(me.tierOverride) : dash()],
      ['Effective tier', tierBadge(me.effectiveTier)],
      ['Status', statusBadge(me.status)],
      ['Wallet address', me.walletAddress ? h('code', null, me.walletAddress) : dash()],
      ['Pioneer points', String(me.pioneerPoints ?? 0)],
      ['First task', me.firstTaskAt ? dateCell(me.firstTaskAt) : dash()],
      ['Has an API key', me.hasApiKey ? 'yes' : 'no'],
      ['Flags', flags.length
        ? h('div', { class: 'chips' }, flags.map(([k, v]) => h('span', { class: `badge ${v === true ? 'blue' : ''}` }, typeof v === 'boolean' ? `${k}: ${v ? 'on' : 'off'}` : `${k}: ${JSON.stringify(v)}`)))
        : dash()],
    ]
    const logoutBtn = h('button', { type: 'button', class: 'secondary', onclick: logout }, 'Sign out')
    ctx.view.append(
      pageHead('Profile', 'Your operator account.', logoutBtn),
      h('div', { class: 'card' }, h('dl', { class: 'dl' }, rows.flatMap(([k, v]) => [h('dt', null, k), h('dd', null, v)]))),
      h('p', { class: 'muted small' }, 'Signing out ends every session of this account (all bearer tokens stop working). API keys keep working.'))
  },
})

const TIERS = ['FREE', 'PRO', 'ENTERPRISE']
const STATUSES = ['ACTIVE', 'SUSPENDED', 'BANNED']

route('operators', {
  title: 'Operators', nav: 'Operators', order: 60,
  visible: (me) => !!(me && me.flags && me.flags.admin),
  async render(ctx) {
    ctx.view.append(pageHead('Operators', 'Every operator account on this server. Changes apply immediately.'))
    const tableSlot = h('div', null, h('p', { class: 'muted' }, 'Loading…'))
    ctx.view.append(tableSlot)
    const ops = await api('GET', '/api/v1/admin/operators')
    if (!ctx.alive()) return
    if (!ops.length) { tableSlot.replaceChildren(h('div', { class: 'empty' }, 'No operators.')); return }
    const tbody = h('tbody')
    for (const op of ops) tbody.append(operatorRow(op, ctx))
    tableSlot.replaceChildren(h('div', { class: 'table-wrap' }, h('table', null,
      h('thead', null, h('tr', null, ['Login', 'Email', 'Role', 'Tier', 'Override', 'Effective', 'Status', 'Created'].map((t) => h('th', null, t)))),
      tbody)))
  },
})

function operatorRow(op, ctx) {
  const isSelf = state.me && state.me.id === op.id
  const override = h('select', { 'aria-label': `Tier override for ${op.identityLogin}` },
    h('option', { value: '' }, 'none'), TIERS.map((t) => h('option', { value: t }, t)))
  override.value = op.tierOverride || ''
  const status = h('select', { 'aria-label': `Status of ${op.identityLogin}`, disabled: op.status === 'BANNED' || isSelf, title: isSelf ? 'You cannot change your own status' : (op.status === 'BANNED' ? 'A ban is final' : null) },
    STATUSES.map((s) => h('option', { value: s }, s)))
  status.value = op.status

  const row = h('tr', { dataset: { operatorId: op.id } },
    h('td', null, h('div', null, h('strong', null, op.identityLogin), isSelf ? h('span', { class: 'muted small' }, ' (you)') : null),
      op.displayName && op.displayName !== op.identityLogin ? h('div', { class: 'muted small' }, op.displayName) : null),
    h('td', null, op.email || dash()),
    h('td', null, op.role === 'admin' ? h('span', { class: 'badge purple' }, 'admin') : h('span', { class: 'muted' }, op.role || '—')),
    h('td', null, tierBadge(op.tier)),
    h('td', null, override),
    h('td', null, tierBadge(op.effectiveTier)),
    h('td', null, status),
    h('td', { class: 'nowrap' }, dateCell(op.createdAt)))

  async function patch(body, select, previous, what) {
    if (body.status === 'BANNED' && !confirm(`Ban ${op.identityLogin}? A ban is final and cannot be undone.`)) { select.value = previous; return }
    select.disabled = true
    clearBanner()
    try {
      const updated = await api('PATCH', `/api/v1/admin/operators/${encodeURIComponent(op.id)}`, body)
      row.replaceWith(operatorRow(updated, ctx))
      ctx.flash(`${updated.identityLogin}: ${what} updated.`)
    } catch (err) {
      select.value = previous
      select.disabled = false
      ctx.error(err)
    }
  }
  override.addEventListener('change', () => patch({ tierOverride: override.value || null }, override, op.tierOverride || '', 'tier override'))
  status.addEventListener('change', () => patch({ status: status.value }, status, op.status, 'status'))
  return row
}

// ---------------------------------------------------------------------------
// Shared pieces of the agent, task, billing and provider pages

const CAPABILITIES = ['general', 'code', 'analysis', 'creative', 'trade_signal', 'sentiment_analysis', 'evm_action', 'spend_control', 'data_analysis', 'external_comms', 'deploy_actions', 'content_publication']
const TASK_STATUSES = ['PENDING_APPROVAL', 'QUEUED', 'PROCESSING', 'COMPLETED', 'FAILED']
const TASK_STATUS_COLOR = { COMPLETED: 'green', FAILED: 'red', PROCESSING: 'blue', QUEUED: 'amber', PENDING_APPROVAL: 'purple' }
const VERIFICATION_COLOR = { VERIFIED: 'green', FAILED: 'red' }
const STAGES = [
  ['policy', 'Policy'], ['debit', 'Debit'], ['compute', 'Compute'], ['verification', 'Verification'],
  ['ipfs', 'IPFS'], ['fingerprint', 'Fingerprint'], ['attestation', 'Attestation'], ['receipt', 'Receipt'],
]
const STAGE_NUMBER = Object.fromEntries(STAGES.map(([name], i) => [name, i + 1]))
/** Stage events are keyed by stage name (a 'queued' event carries the compute name with the previous stage number). */
const stageOf = (e) => STAGE_NUMBER[e.name] || e.stage

function badge(text, color) { return text ? h('span', { class: `badge ${color || ''}` }, text) : dash() }
function taskStatusBadge(s) { return badge(s, TASK_STATUS_COLOR[s]) }
function agentStatusBadge(s) { return badge(s, s === 'ACTIVE' ? 'green' : '') }

function fmtScore(score) { return typeof score === 'number' ? score.toFixed(2) : null }
function fmtInt(n) { return typeof n === 'number' ? n.toLocaleString('en-US') : '—' }
function fmtMs(ms) { return typeof ms === 'number' ? (ms >= 10000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms).toLocaleString('en-US')} ms`) : null }
function humanize(code) { return code ? String(code).replace(/_/g, ' ') : '' }

function verificationCell(status, score) {
  if (!status && typeof score !== 'number') return dash()
  return h('span', { class: 'nowrap' }, status ? badge(status, VERIFICATION_COLOR[status]) : null,
    typeof score === 'number' ? h('span', { class: 'muted small' }, ` ${fmtScore(score)}`) : null)
}

/** Settled: nothing more will happen without someone acting (finished, failed, or held for approval). */
function isSettled(task) { return task.status === 'COMPLETED' || task.status === 'FAILED' || task.status === 'PENDING_APPROVAL' }

/** Only http(s) links from server data become hrefs. */
function safeHref(url) {
  if (!url) return null
  try {
    const u = new URL(String(url), location.origin)
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null
  } catch { return null }
}

function extLink(url, text) {
  const href = safeHref(url)
  if (!href) return url ? h('code', null, String(url)) : dash()
  return h('a', { href, target: '_blank', rel: 'noopener noreferrer' }, text || String(url))
}

function taskLink(id) { return h('a', { href: `#/tasks/${encodeURIComponent(id)}`, class: 'mono' }, id) }
function agentLink(id, name) { return id ? h('a', { href: `#/agents/${encodeURIComponent(id)}` }, name || h('code', null, id)) : dash() }
function ipfsLink(cid) { return cid ? extLink(`/ipfs/${encodeURIComponent(cid)}`, cid) : dash() }
function proofLink(cid) { return cid ? extLink(`/api/v1/public/proof/${encodeURIComponent(cid)}`, cid) : dash() }
function mono(v) { return v ? h('code', { class: 'break' }, String(v)) : dash() }

function qs(obj) {
  const p = new URLSearchParams()
  for (const [k, v] of Object.entries(obj)) if (v !== undefined && v !== null && v !== '') p.set(k, String(v))
  const s = p.toString()
  return s ? `?${s}` : ''
}

function intParam(params, name, def) {
  const n = Number(params.get(name))
  return Number.isInteger(n) && n > 0 ? n : def
}

/** "Page x of y" with previous/next links; hrefFor(page) gives the hash of a page. */
function pager({ page, totalPages, total }, hrefFor, noun) {
  const pages = Math.max(1, totalPages || 1)
  const prev = page > 1 ? h('a', { class: 'button secondary small', href: hrefFor(page - 1), rel: 'prev' }, '← Previous') : h('span', { class: 'button secondary small disabled', 'aria-disabled': 'true' }, '← Previous')
  const next = page < pages ? h('a', { class: 'button secondary small', href: hrefFor(page + 1), rel: 'next' }, 'Next →') : h('span', { class: 'button secondary small disabled', 'aria-disabled': 'true' }, 'Next →')
  return h('nav', { class: 'pager', 'aria-label': 'Pagination' },
    h('span', { class: 'muted small' }, `Page ${page} of ${pages} · ${fmtInt(total)} ${noun}`), h('span', { class: 'pager-links' }, prev, next))
}

function statCard(label, value, sub) {
  return h('div', { class: 'stat' }, h('div', { class: 'stat-label' }, label), h('div', { class: 'stat-value' }, value), sub ? h('div', { class: 'stat-sub' }, sub) : null)
}

function trend(n, unit = '', lowerIsBetter = false) {
  if (typeof n !== 'number' || n === 0) return h('span', { class: 'muted' }, 'same as last month')
  const good = lowerIsBetter ? n < 0 : n > 0
  return h('span', { class: good ? 'trend up' : 'trend down' }, `${n > 0 ? '+' : '−'}${Math.abs(Math.round(n * 100) / 100).toLocaleString('en-US')}${unit} vs last month`)
}

function jsonBlock(value) { return h('pre', { class: 'code' }, JSON.stringify(value, null, 2)) }

function dl(rows) {
  return h('dl', { class: 'dl' }, rows.filter(Boolean).flatMap(([k, v]) => [h('dt', null, k), h('dd', null, v)]))
}

function textarea(attrs) { return h('textarea', { rows: 4, ...attrs }) }

/** A collapsible card (details/summary). */
function foldCard(title, open, ...body) {
  return h('details', { class: 'card fold', open: open || null }, h('summary', null, h('h2', null, title)), h('div', { class: 'fold-body' }, body))
}

/** A short text for a stage's detail object: "credits 1 · provider builtin". */
function stageDetailText(detail) {
  if (!detail || typeof detail !== 'object') return ''
  return Object.entries(detail).map(([k, v]) => {
    let s = typeof v === 'string' ? v : JSON.stringify(v)
    if (typeof s === 'string' && /^(0x[0-9a-f]{16,}|baf[a-z0-9]{20,})$/i.test(s)) s = `${s.slice(0, 10)}…${s.slice(-4)}`
    return `${k} ${s}`
  }).join(' · ')
}

/**
 * The 8 pipeline stages as a strip. setTask() draws from a task's timeline; apply() adds a live event.
 */
function stageStrip() {
  const el = h('ol', { class: 'stages', 'aria-label': 'Pipeline stages' })
  let events = new Map() // stage number → latest event
  let taskStatus = null
  let live = false
  function draw() {
    let last = 0
    for (const n of events.keys()) last = Math.max(last, n)
    const lastEvent = events.get(last)
    const halted = lastEvent && (lastEvent.status === 'failed' || lastEvent.status === 'held')
    el.replaceChildren(...STAGES.map(([name, label], i) => {
      const n = i + 1
      const e = events.get(n)
      let st = e ? e.status : 'pending'
      if (!e && !halted && n === last + 1 && (taskStatus === 'PROCESSING' || taskStatus === 'QUEUED') && live) st = 'running'
      if (!e && halted) st = 'skipped'
      if (e && st === 'completed') st = 'done'
      const detail = e ? stageDetailText(e.detail) : ''
      return h('li', { class: `stage st-${st}`, title: e && e.detail ? JSON.stringify(e.detail, null, 1) : null, dataset: { stage: String(n), status: st } },
        h('div', { class: 'stage-top' }, h('span', { class: 'stage-dot', 'aria-hidden': 'true' }, st === 'done' ? '✓' : st === 'failed' ? '✕' : String(n)), h('span', { class: 'stage-name' }, label)),
        h('div', { class: 'stage-status' }, st === 'running' ? 'running…' : st),
        detail ? h('div', { class: 'stage-detail' }, detail) : null,
        e && e.at ? h('div', { class: 'stage-at' }, h('time', { datetime: e.at, title: e.at }, fmtTime(e.at))) : null)
    }))
  }
  return {
    el,
    setTask(task, isLive = false) {
      events = new Map()
      taskStatus = task.status
      live = isLive
      for (const e of task.timeline || []) events.set(stageOf(e), e)
      draw()
    },
    setLive(v) { live = v; draw() },
    apply(e) {
      events.set(stageOf(e), e)
      if (e.status === 'failed') taskStatus = 'FAILED'
      else if (e.status === 'completed') taskStatus = 'COMPLETED'
      else if (e.status === 'held') taskStatus = 'PENDING_APPROVAL'
      else if (e.status === 'queued') taskStatus = 'QUEUED'
      else if (taskStatus !== 'QUEUED' || stageOf(e) >= 3) taskStatus = 'PROCESSING'
      draw()
    },
  }
}

function fmtTime(iso) {
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return String(iso)
  const pad = (n, w = 2) => String(n).padStart(w, '0')
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`
}

/**
 * A task with its stage strip. While the task runs it follows the stage events with an EventSource
 * (closed on completion and when the page is left), then reloads the detail.
 * Returns { el, destroy }.
 */
function taskPanel(initial, ctx, { compact = false, onSettled = null } = {}) {
  const el = h('div', { class: compact ? 'task-panel compact' : 'task-panel' })
  const strip = stageStrip()
  const liveBadge = h('span', { class: 'badge blue live', hidden: true }, 'live')
  let stopped = false
  let es = null
  let pollTimer = null
  let task = initial

  function draw() {
    strip.setTask(task, !!es || !!pollTimer)
    el.replaceChildren()
    append(el, compact ? compactTask(task, strip.el, liveBadge) : fullTask(task, strip.el, liveBadge))
  }

  async function reload() {
    try {
      const t = await api('GET', `/api/v1/tasks/${encodeURIComponent(task.id)}`)
      if (stopped || !ctx.alive()) return
      task = t
      draw()
      if (onSettled && isSettled(task)) onSettled(task)
    } catch (err) { ctx.error(err) }
  }

  function setLive(on) {
    liveBadge.hidden = !on
    strip.setLive(on)
  }

  function closeStream() {
    if (es) { es.close(); es = null }
    clearTimeout(pollTimer)
    pollTimer = null
    setLive(false)
  }

  function destroy() { stopped = true; closeStream() }

  /** Fallback when the stream cannot be used: re-read the task every 2 s until it settles. */
  function poll() {
    if (stopped) return
    setLive(true)
    pollTimer = setTimeout(async () => {
      try {
        const t = await api('GET', `/api/v1/tasks/${encodeURIComponent(task.id)}`)
        if (stopped || !ctx.alive()) return
        task = t
        if (isSettled(task)) { closeStream(); draw(); if (onSettled) onSettled(task); return }
        draw()
        poll()
      } catch (err) { closeStream(); ctx.error(err) }
    }, 2000)
  }

  function follow() {
    const token = session.token
    if (!token || typeof EventSource === 'undefined') { poll(); return }
    // The bearer token goes in the URL only here: EventSource cannot send headers.
    es = new EventSource(`/api/v1/tasks/${encodeURIComponent(task.id)}/events?access_token=${encodeURIComponent(token)}`)
    setLive(true)
    es.addEventListener('stage', (ev) => {
      let e
      try { e = JSON.parse(ev.data) } catch { return }
      strip.apply(e)
      if (e.status === 'completed' || e.status === 'failed' || e.status === 'held') {
        closeStream()
        reload()
      }
    })
    es.addEventListener('error', () => {
      if (!es) return
      // Never let the browser retry with the token in the URL: poll the task instead.
      closeStream()
      if (!stopped) poll()
    })
  }

  ctx.onLeave(destroy)
  draw()
  if (!stopped && !isSettled(task)) follow()
  return { el, destroy }
}

function taskLinks(task) {
  const links = [
    task.ipfsCid ? extLink(`/ipfs/${encodeURIComponent(task.ipfsCid)}`, 'IPFS document') : null,
    task.receiptCid ? extLink(`/api/v1/public/proof/${encodeURIComponent(task.receiptCid)}`, 'Proof receipt') : null,
    safeHref(task.verificationExplorerUrl) ? extLink(task.verificationExplorerUrl, 'Verification explorer') : null,
    safeHref(task.attestationExplorerUrl) ? extLink(task.attestationExplorerUrl, 'Attestation explorer') : null,
  ].filter(Boolean)
  return links.length ? h('div', { class: 'links' }, links) : null
}

function failureNote(task) {
  if (!task.failureCode && !task.failureMessage) return null
  return h('div', { class: 'note error' }, h('strong', null, task.failureCode || 'Failed'), task.failureMessage ? `: ${task.failureMessage}` : null)
}

function heldNote(task) {
  if (task.status !== 'PENDING_APPROVAL') return null
  const held = (task.timeline || []).find((e) => e.status === 'held')
  return h('div', { class: 'note' }, 'This task is waiting for approval', held && held.detail && held.detail.reason ? `: ${held.detail.reason}` : '.')
}

function compactTask(task, stripEl, liveBadge) {
  return [
    h('div', { class: 'task-head' },
      taskLink(task.id), taskStatusBadge(task.status), liveBadge,
      h('span', { class: 'muted small' }, task.taskType),
      task.verificationStatus ? verificationCell(task.verificationStatus, task.verificationScore) : null,
      task.latencyMs != null ? h('span', { class: 'muted small' }, fmtMs(task.latencyMs)) : null,
      task.provider ? h('span', { class: 'muted small' }, `${task.provider} / ${task.model}`) : null),
    stripEl,
    failureNote(task),
    heldNote(task),
    typeof task.output === 'string' ? h('div', null, h('div', { class: 'label' }, 'Output'), h('pre', { class: 'output' }, task.output)) : null,
    h('div', { class: 'links' }, h('a', { href: `#/tasks/${encodeURIComponent(task.id)}` }, 'Task details →'), taskLinks(task)),
  ]
}

function fullTask(task, stripEl, liveBadge) {
  const rows = [
    ['Status', taskStatusBadge(task.status)],
    ['Task type', task.taskType],
    ['Agent', agentLink(task.agentId)],
    ['Model', task.model || dash()],
    ['Provider', task.provider || dash()],
    ['Latency', fmtMs(task.latencyMs) || dash()],
    ['Credits charged', String(task.creditsCharged ?? 0)],
    ['Stage', `${task.stage ?? 0} of 8`],
    ['Created', dateCell(task.createdAt, '—')],
    ['Completed', dateCell(task.completedAt, '—')],
    task.failureCode || task.failureMessage ? ['Failure', h('span', null, task.failureCode ? h('code', null, task.failureCode) : null, task.failureMessage ? ` ${task.failureMessage}` : null)] : null,
    ['Verification', verificationCell(task.verificationStatus, task.verificationScore)],
    ['Verification proof', mono(task.verificationProof)],
    ['Verification explorer', task.verificationExplorerUrl ? extLink(task.verificationExplorerUrl) : dash()],
    ['Attestation UID', mono(task.attestationUid)],
    ['Attestation explorer', task.attestationExplorerUrl ? extLink(task.attestationExplorerUrl) : dash()],
    ['State root', mono(task.stateRoot)],
    ['IPFS CID', ipfsLink(task.ipfsCid)],
    ['Receipt CID', proofLink(task.receiptCid)],
    task.computeJobId ? ['Compute job', mono(task.computeJobId)] : null,
    ['Operator', mono(task.operatorId)],
  ]
  const timeline = Array.isArray(task.timeline) ? task.timeline : []
  return [
    h('div', { class: 'card' }, h('div', { class: 'card-head' }, h('h2', null, 'Pipeline'), liveBadge), stripEl, heldNote(task),
      timeline.length ? h('details', { class: 'events' }, h('summary', null, `Stage events (${timeline.length})`),
        h('div', { class: 'table-wrap' }, h('table', null,
          h('thead', null, h('tr', null, ['#', 'Stage', 'Status', 'Detail', 'At'].map((t) => h('th', null, t)))),
          h('tbody', null, timeline.map((e) => h('tr', null,
            h('td', { class: 'num' }, String(e.stage)), h('td', null, e.name), h('td', null, e.status),
            h('td', null, e.detail ? h('code', { class: 'break' }, JSON.stringify(e.detail)) : dash()),
            h('td', { class: 'nowrap' }, h('time', { datetime: e.at, title: e.at }, fmtTime(e.at))))))))) : null),
    h('div', { class: 'card' }, h('h2', null, 'Details'), dl(rows), taskLinks(task)),
    typeof task.prompt === 'string' ? h('div', { class: 'card' }, h('h2', null, 'Prompt'), h('pre', { class: 'output' }, task.prompt)) : null,
    h('div', { class: 'card' }, h('h2', null, 'Output'), typeof task.output === 'string' ? h('pre', { class: 'output' }, task.output) : h('p', { class: 'muted' }, isSettled(task) ? 'No output.' : 'Not produced yet.')),
    task.metadata ? h('div', { class: 'card' }, h('h2', null, 'Metadata'), jsonBlock(task.metadata)) : null,
    task.receipt ? h('details', { class: 'card fold' }, h('summary', null, h('h2', null, 'Signed receipt')), h('div', { class: 'fold-body' }, jsonBlock(task.receipt))) : null,
    task.attestation ? h('details', { class: 'card fold' }, h('summary', null, h('h2', null, 'Attestation')), h('div', { class: 'fold-body' }, jsonBlock(task.attestation))) : null,
  ]
}

// ---------------------------------------------------------------------------
// Agents

route('agents', {
  title: 'Agents', nav: 'Agents', order: 10,
  render(ctx) { return ctx.sub ? agentDetailPage(ctx, ctx.sub) : agentsPage(ctx) },
})

async function agentsPage(ctx) {
  ctx.view.append(pageHead('Agents', 'Each agent has its own agent-bound API key and may only run the task types in its capabilities.',
    h('a', { class: 'button secondary', href: '#/tasks?submit=1' }, 'Submit a task')))
  const keySlot = h('div')
  const runSlot = h('div')
  const tableSlot = h('div', null, h('p', { class: 'muted' }, 'Loading…'))
  const archivedToggle = h('input', { type: 'checkbox', id: 'show-archived' })
  const form = agentForm()
  const formCard = foldCard('Register an agent', false, form)
  ctx.view.append(keySlot, formCard, runSlot,
    h('div', { class: 'card' }, h('div', { class: 'card-head' }, h('h2', null, 'Your agents'),
      h('label', { class: 'check small', for: 'show-archived' }, archivedToggle, ' Show archived')), tableSlot))

  let agents = []
  let runPanel = null
  function draw() {
    const list = archivedToggle.checked ? agents : agents.filter((a) => a.status !== 'ARCHIVED')
    const archived = agents.length - agents.filter((a) => a.status !== 'ARCHIVED').length
    archivedToggle.parentElement.hidden = archived === 0
    if (!list.length) {
      tableSlot.replaceChildren(h('div', { class: 'empty' }, agents.length ? 'No active agents.' : 'No agents yet. Register one above.'))
      return
    }
    tableSlot.replaceChildren(h('div', { class: 'table-wrap' }, h('table', null,
      h('thead', null, h('tr', null, ['Agent', 'Capabilities', 'Model', 'Status', 'Created', ''].map((t) => h('th', null, t)))),
      h('tbody', null, list.map((a) => h('tr', { dataset: { agentId: a.agentId } },
        h('td', null, h('div', null, agentLink(a.agentId, h('strong', null, a.displayName))), h('div', { class: 'muted small mono' }, a.agentId)),
        h('td', null, h('div', { class: 'chips' }, a.capabilities.map((c) => badge(c)))),
        h('td', null, h('code', null, a.model)),
        h('td', null, agentStatusBadge(a.status)),
        h('td', { class: 'nowrap' }, dateCell(a.createdAt)),
        h('td', { class: 'actions' }, a.status === 'ACTIVE' ? [
          testRunButton(a, ctx, (panel) => {
            if (runPanel) runPanel.destroy()
            runPanel = panel
            runSlot.replaceChildren(h('div', { class: 'card' }, h('div', { class: 'card-head' }, h('h2', null, `Test run of ${a.displayName}`),
              h('button', { type: 'button', class: 'secondary small', onclick: () => { panel.destroy(); runSlot.replaceChildren() } }, 'Close')), panel.el))
          }), ' ',
          h('button', { type: 'button', class: 'danger small', onclick: () => archiveAgent(a, ctx, refresh) }, 'Archive'),
        ] : null)))))))
  }
  archivedToggle.addEventListener('change', draw)

  async function refresh() {
    agents = await api('GET', '/api/v1/agents')
    if (!ctx.alive()) return
    if (!agents.some((a) => a.status === 'ACTIVE')) formCard.open = true
    draw()
  }

  submitting(form, ctx, async () => {
    const body = agentBody(form)
    const res = await api('POST', '/api/v1/agents/register', body)
    form.reset()
    formCard.open = false
    keySlot.replaceChildren(secretBox({
      title: `Agent "${res.displayName}" registered`, secret: res.apiKey, dismiss: () => keySlot.replaceChildren(),
      note: `Agent id ${res.agentId}. The agent authenticates its tasks with this agent-bound key in the x-api-key header.`,
    }))
    await refresh()
  })
  await refresh()
}

function agentForm() {
  const caps = h('div', { class: 'checks' }, CAPABILITIES.map((c) => h('label', { class: 'check' },
    h('input', { type: 'checkbox', name: 'capability', value: c, checked: c === 'general' }), ' ', c)))
  return h('form', { class: 'form', 'aria-label': 'Register an agent' },
    h('div', { class: 'form-row top' },
      field('Display name', h('input', { type: 'text', name: 'displayName', required: true, maxlength: 100, autocomplete: 'off' })),
      field('Model (optional)', h('input', { type: 'text', name: 'model', maxlength: 128, placeholder: 'builtin', autocomplete: 'off', spellcheck: 'false' }), 'Default model for this agent\'s tasks.')),
    h('fieldset', { class: 'field' }, h('legend', null, 'Capabilities (the task types it may run)'), caps),
    field('Description (optional)', textarea({ name: 'description', maxlength: 2000, rows: 2 })),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Register agent')))
}

function agentBody(form) {
  const v = formValues(form)
  const capabilities = [...form.querySelectorAll('input[name="capability"]:checked')].map((el) => el.value)
  if (!capabilities.length) throw new Error('Pick at least one capability.')
  const body = { displayName: v.displayName.trim(), capabilities }
  if (v.description.trim()) body.description = v.description.trim()
  if (v.model.trim()) body.model = v.model.trim()
  return body
}

function testRunButton(agent, ctx, show) {
  const btn = h('button', { type: 'button', class: 'secondary small', title: 'Run a free diagnostic task with the operator test key (5 uses)' }, 'Test run')
  btn.addEventListener('click', async () => {
    btn.disabled = true
    btn.textContent = 'Running…'
    clearBanner()
    try {
      const task = await api('POST', `/api/v1/agents/${encodeURIComponent(agent.agentId)}/test-run`, {})
      if (ctx.alive()) show(taskPanel(task, ctx, { compact: true }))
    } catch (err) {
      ctx.error(err)
    } finally {
      btn.disabled = false
      btn.textContent = 'Test run'
    }
  })
  return btn
}

async function archiveAgent(agent, ctx, after) {
  if (!confirm(`Archive the agent "${agent.displayName}"?\n\nIts API key is revoked at once and it can no longer run tasks. This cannot be undone.`)) return
  clearBanner()
  try {
    await api('DELETE', `/api/v1/agents/${encodeURIComponent(agent.agentId)}`)
    ctx.flash(`Agent "${agent.displayName}" archived.`)
    await after()
  } catch (err) { ctx.error(err) }
}

async function agentDetailPage(ctx, id) {
  const a = await api('GET', `/api/v1/agents/${encodeURIComponent(id)}`)
  if (!ctx.alive()) return
  document.title = `${a.displayName} · Agents · TaskGate`
  const runSlot = h('div')
  let runPanel = null
  const actions = a.status === 'ACTIVE' ? [
    h('a', { class: 'button secondary', href: `#/tasks${qs({ submit: a.agentId })}` }, 'Submit a task'), ' ',
    testRunButton(a, ctx, (panel) => {
      if (runPanel) runPanel.destroy()
      runPanel = panel
      runSlot.replaceChildren(h('div', { class: 'card' }, h('h2', null, 'Test run'), panel.el))
    }), ' ',
    h('button', { type: 'button', class: 'danger', onclick: () => archiveAgent(a, ctx, async () => { render() }) }, 'Archive'),
  ] : []
  for (const b of actions) if (b instanceof HTMLButtonElement && b.classList.contains('small')) b.classList.remove('small')

  const ps = a.policyStatus || {}
  const m = a.metrics && typeof a.metrics === 'object' ? a.metrics : {}
  const history = Array.isArray(a.verificationHistory) ? a.verificationHistory : []
  ctx.view.append(
    h('p', { class: 'crumbs' }, h('a', { href: '#/agents' }, '← Agents')),
    pageHead(a.displayName, a.description || null, actions),
    runSlot,
    h('div', { class: 'grid2' },
      h('div', { class: 'card' }, h('h2', null, 'Agent'), dl([
        ['Agent ID', mono(a.agentId)],
        ['Status', agentStatusBadge(a.status)],
        ['Capabilities', h('div', { class: 'chips' }, a.capabilities.map((c) => badge(c)))],
        ['Model', h('code', null, a.model)],
        ['Version', a.agentVersion || dash()],
        ['Created', dateCell(a.createdAt)],
        ['Updated', dateCell(a.updatedAt)],
        ['State root', mono(a.stateRoot)],
      ])),
      h('div', { class: 'card' }, h('h2', null, 'Policy status'), dl([
        ['Status', agentStatusBadge(ps.status)],
        ['Trust level', ps.trustLevel ? badge(ps.trustLevel, ps.trustLevel === 'TRUSTED' ? 'green' : 'amber') : dash()],
        ['Key active', ps.keyActive ? badge('yes', 'green') : badge('no', 'red')],
        ['Allowed task types', Array.isArray(ps.allowedTaskTypes) && ps.allowedTaskTypes.length ? h('div', { class: 'chips' }, ps.allowedTaskTypes.map((c) => badge(c))) : dash()],
      ]))),
    h('div', { class: 'card' }, h('div', { class: 'card-head' }, h('h2', null, 'Metrics'), h('a', { href: `#/tasks${qs({ agent: a.agentId })}` }, 'This agent\'s tasks →')),
      Object.keys(m).length ? h('div', { class: 'stats' }, Object.entries(m).map(([k, v]) => statCard(METRIC_LABELS[k] || humanize(k), typeof v === 'number' ? (Number.isInteger(v) ? fmtInt(v) : v.toFixed(3)) : JSON.stringify(v)))) : h('p', { class: 'muted' }, 'No metrics yet.')),
    h('div', { class: 'card' }, h('h2', null, 'Verification history'),
      history.length ? h('div', { class: 'table-wrap' }, h('table', null,
        h('thead', null, h('tr', null, ['Task', 'Type', 'Verification', 'Completed'].map((t) => h('th', null, t)))),
        h('tbody', null, history.map((v) => h('tr', null,
          h('td', null, taskLink(v.taskId)), h('td', null, v.taskType),
          h('td', null, verificationCell(v.verificationStatus, v.verificationScore)),
          h('td', { class: 'nowrap' }, dateCell(v.completedAt, '—'))))))) : h('div', { class: 'empty' }, 'No verified tasks yet.')))
}

const METRIC_LABELS = { totalTasks: 'Total tasks', verifiedTasks: 'Verified tasks', failedTasks: 'Failed tasks', ari: 'ARI', vci: 'VCI', cq: 'CQ', driftScore: 'Drift score' }

// ---------------------------------------------------------------------------
// Tasks

route('tasks', {
  title: 'Tasks', nav: 'Tasks', order: 20,
  render(ctx) { return ctx.sub ? taskDetailPage(ctx, ctx.sub) : tasksPage(ctx) },
})

async function tasksPage(ctx) {
  const page = intParam(ctx.params, 'page', 1)
  const status = TASK_STATUSES.includes(ctx.params.get('status')) ? ctx.params.get('status') : ''
  const agentFilter = ctx.params.get('agent') || ''
  const submitFor = ctx.params.get('submit') || ''
  const hrefFor = (p, st = status, ag = agentFilter) => `#/tasks${qs({ status: st, agent: ag, page: p > 1 ? p : '' })}`

  const submitSlot = h('div')
  const tableSlot = h('div', null, h('p', { class: 'muted' }, 'Loading…'))
  const statusSel = h('select', { 'aria-label': 'Filter by status', name: 'status' }, h('option', { value: '' }, 'All statuses'), TASK_STATUSES.map((s) => h('option', { value: s }, s)))
  statusSel.value = status
  statusSel.addEventListener('change', () => { location.hash = hrefFor(1, statusSel.value) })
  const refreshBtn = h('button', { type: 'button', class: 'secondary small', onclick: () => loadTable().catch(ctx.error) }, 'Refresh')

  ctx.view.append(
    pageHead('Tasks', 'Tasks your agents ran through the 8-stage pipeline, newest first.'),
    submitSlot,
    h('div', { class: 'card' },
      h('div', { class: 'card-head' }, h('h2', null, 'Recent tasks'),
        h('div', { class: 'toolbar' },
          agentFilter ? h('span', { class: 'chip-filter' }, 'agent ', h('code', null, agentFilter), ' ', h('a', { href: hrefFor(1, status, ''), 'aria-label': 'Clear the agent filter' }, '×')) : null,
          statusSel, refreshBtn)),
      tableSlot))

  let names = new Map()
  const agents = await api('GET', '/api/v1/agents')
  if (!ctx.alive()) return
  names = new Map(agents.map((a) => [a.agentId, a.displayName]))
  submitSlot.append(submitTaskCard(ctx, agents, submitFor, () => loadTable().catch(ctx.error)))
  await loadTable()

  async function loadTable() {
    const res = await api('GET', `/api/v1/operator/tasks${qs({ page, limit: 20, status, agentId: agentFilter })}`)
    if (!ctx.alive()) return
    if (!res.data.length) {
      tableSlot.replaceChildren(h('div', { class: 'empty' }, status || agentFilter ? 'No tasks match this filter.' : 'No tasks yet. Submit one above.'))
    } else {
      tableSlot.replaceChildren(
        h('div', { class: 'table-wrap' }, h('table', null,
          h('thead', null, h('tr', null, ['Task', 'Type', 'Status', 'Agent', 'Provider', 'Latency', 'Verification', 'Created'].map((t) => h('th', null, t)))),
          h('tbody', null, res.data.map((t) => h('tr', { dataset: { taskId: t.id } },
            h('td', { class: 'nowrap' }, taskLink(t.id)),
            h('td', null, t.taskType),
            h('td', null, taskStatusBadge(t.status)),
            h('td', null, agentLink(t.agentId, names.get(t.agentId))),
            h('td', null, t.provider || dash()),
            h('td', { class: 'num nowrap' }, fmtMs(t.latencyMs) || dash()),
            h('td', null, verificationCell(t.verificationStatus, t.verificationScore)),
            h('td', { class: 'nowrap' }, dateCell(t.createdAt))))))),
        pager(res, (p) => hrefFor(p), res.total === 1 ? 'task' : 'tasks'))
    }
  }
}

function submitTaskCard(ctx, agents, preselect, onSettled) {
  const active = agents.filter((a) => a.status === 'ACTIVE')
  if (!active.length) {
    return foldCard('Submit a task', !!preselect, h('p', { class: 'muted' }, 'You need an active agent to submit tasks. ', h('a', { href: '#/agents' }, 'Register an agent →')))
  }
  const agentSel = h('select', { name: 'agentId', required: true }, active.map((a) => h('option', { value: a.agentId }, `${a.displayName} (${a.agentId})`)))
  if (active.some((a) => a.agentId === preselect)) agentSel.value = preselect
  const typeSel = h('select', { name: 'taskType', required: true })
  const modelInput = h('input', { type: 'text', name: 'model', maxlength: 128, autocomplete: 'off', spellcheck: 'false' })
  const promptInput = textarea({ name: 'prompt', required: true, maxlength: 100000, rows: 5, placeholder: 'What should the agent do?' })
  function syncAgent() {
    const a = active.find((x) => x.agentId === agentSel.value) || active[0]
    const prev = typeSel.value
    typeSel.replaceChildren(...a.capabilities.map((c) => h('option', { value: c }, c)))
    if (a.capabilities.includes(prev)) typeSel.value = prev
    modelInput.placeholder = `agent default (${a.model})`
  }
  agentSel.addEventListener('change', syncAgent)
  syncAgent()

  const resultSlot = h('div', { class: 'submit-result', 'aria-live': 'polite' })
  let panel = null
  const form = h('form', { class: 'form', 'aria-label': 'Submit a task' },
    h('div', { class: 'form-row top' },
      field('Agent', agentSel),
      field('Task type', typeSel, 'Limited to the agent\'s capabilities.'),
      field('Model (optional)', modelInput)),
    field('Prompt', promptInput),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Submit task'), h('span', { class: 'muted small' }, 'Costs credits; the stages update live.')))
  const showTask = (task) => {
    if (panel) panel.destroy()
    panel = taskPanel(task, ctx, { compact: true, onSettled })
    resultSlot.replaceChildren(h('h3', null, 'Result'), panel.el)
    onSettled()
  }
  submitting(form, ctx, async (v) => {
    if (panel) { panel.destroy(); panel = null }
    resultSlot.replaceChildren()
    const body = { agentId: v.agentId, taskType: v.taskType, prompt: v.prompt }
    if (v.model.trim()) body.model = v.model.trim()
    try {
      const task = await api('POST', '/api/v1/tasks/submit?wait=0', body)
      showTask(task)
    } catch (err) {
      if (err instanceof ApiError && err.problem && err.problem.task && err.problem.task.id) showTask(err.problem.task)
      if (err instanceof ApiError && err.status === 402) {
        resultSlot.replaceChildren(h('div', { class: 'note' }, 'You are out of credits. ', h('a', { href: '#/billing' }, 'Get testnet USDC or check your balance on the Billing page →')))
      }
      throw err
    }
  })
  return foldCard('Submit a task', !!preselect, form, resultSlot)
}

async function taskDetailPage(ctx, id) {
  const task = await api('GET', `/api/v1/tasks/${encodeURIComponent(id)}`)
  if (!ctx.alive()) return
  document.title = `Task ${task.id} · TaskGate`
  const panel = taskPanel(task, ctx)
  ctx.view.append(
    h('p', { class: 'crumbs' }, h('a', { href: '#/tasks' }, '← Tasks')),
    h('div', { class: 'page-head' }, h('h1', null, 'Task ', h('code', { class: 'task-id' }, task.id))),
    panel.el)
}

// ---------------------------------------------------------------------------
// Billing

route('billing', {
  title: 'Billing', nav: 'Billing', order: 30,
  async render(ctx) {
    const page = intParam(ctx.params, 'page', 1)
    const me = state.me
    ctx.view.append(pageHead('Billing', 'Credits, usage this month and the wallet that pays for more.'))
    const statsSlot = h('div', { class: 'stats' }, h('p', { class: 'muted' }, 'Loading…'))
    const txSlot = h('div', null, h('p', { class: 'muted' }, 'Loading…'))
    const walletCard = h('div', { class: 'card' })
    ctx.view.append(statsSlot, walletCard, h('div', { class: 'card' }, h('h2', null, 'Transactions'), txSlot))

    async function loadAll() {
      const [billing, stats, config] = await Promise.all([
        api('GET', `/api/v1/operator/billing${qs({ page, limit: 20 })}`),
        api('GET', '/api/v1/operator/dashboard'),
        loadPublicConfig(),
      ])
      if (!ctx.alive()) return
      statsSlot.replaceChildren(...billingStats(billing.balance, stats))
      txSlot.replaceChildren(transactionsTable(billing))
      return config
    }
    const config = await loadAll()
    if (!ctx.alive()) return
    walletSection(walletCard, ctx, me, config, async () => { await loadMe(true); await loadAll() })
  },
})

let publicConfig = null
async function loadPublicConfig() {
  if (!publicConfig) {
    try { publicConfig = await api('GET', '/api/v1/config/public', undefined, { auth: false }) } catch { return {} }
  }
  return publicConfig
}

function billingStats(b, d) {
  const reset = b.nextResetAt ? fmtDate(b.nextResetAt).slice(0, 10) : null
  return [
    statCard('Balance', fmtInt(b.balance), `${fmtInt(b.allocationBalance)} allocation + ${fmtInt(b.purchasedBalance)} purchased`),
    statCard('Monthly allocation', fmtInt(b.monthlyAllocation), reset ? `resets ${reset}${typeof d.creditsResetDays === 'number' ? ` (in ${d.creditsResetDays} d)` : ''}` : null),
    statCard('Tasks this month', fmtInt(d.tasksThisMonth), trend(d.tasksTrend)),
    statCard('Verification rate', `${typeof d.verificationRate === 'number' ? Math.round(d.verificationRate * 10) / 10 : 0}%`, trend(d.verificationTrend, ' pp')),
    statCard('Average latency', fmtMs(d.avgLatencyMs) || '—', trend(d.latencyTrend, ' ms', true)),
    statCard('Agents', fmtInt(d.agentCount), h('a', { href: '#/agents' }, 'Manage agents →')),
  ]
}

function transactionsTable(billing) {
  if (!billing.transactions.length) return h('div', { class: 'empty' }, 'No transactions yet.')
  return h('div', null,
    h('div', { class: 'table-wrap' }, h('table', null,
      h('thead', null, h('tr', null, ['Date', 'Reason', 'Bucket', 'Change', 'Balance after', 'Task'].map((t) => h('th', null, t)))),
      h('tbody', null, billing.transactions.map((t) => h('tr', null,
        h('td', { class: 'nowrap' }, dateCell(t.createdAt)),
        h('td', null, reasonCell(t.reason)),
        h('td', null, badge(t.bucket, t.bucket === 'purchased' ? 'blue' : '')),
        h('td', { class: `num nowrap ${t.delta < 0 ? 'neg' : 'pos'}` }, `${t.delta > 0 ? '+' : t.delta < 0 ? '−' : ''}${fmtInt(Math.abs(t.delta))}`),
        h('td', { class: 'num' }, fmtInt(t.balanceAfter)),
        h('td', null, t.taskId ? taskLink(t.taskId) : dash())))))),
    pager(billing, (p) => `#/billing${qs({ page: p > 1 ? p : '' })}`, billing.total === 1 ? 'transaction' : 'transactions'))
}

/** Ledger reasons look like "task_debit" or "x402_payment:0x…" (a reference after the colon). */
function reasonCell(reason) {
  const s = String(reason || '')
  const i = s.indexOf(':')
  if (i < 0) return humanize(s)
  const ref = s.slice(i + 1)
  return h('span', null, humanize(s.slice(0, i)), ' ', h('code', { class: 'muted small', title: ref }, ref.length > 18 ? `${ref.slice(0, 10)}…${ref.slice(-6)}` : ref))
}

function walletSection(card, ctx, me, config, refresh) {
  const faucetSlot = h('div', { class: 'faucet-result', 'aria-live': 'polite' })
  const bindSlot = h('div', { 'aria-live': 'polite' })
  const faucetOn = config['faucet.enabled'] !== false
  const faucetBtn = h('button', { type: 'button' }, 'Get testnet USDC')
  faucetBtn.addEventListener('click', async () => {
    faucetBtn.disabled = true
    clearBanner()
    faucetSlot.replaceChildren(h('p', { class: 'muted' }, 'Minting…'))
    try {
      const r = await api('POST', '/api/v1/faucet/usdc', {})
      if (!ctx.alive()) return
      faucetSlot.replaceChildren(h('div', { class: 'note success' },
        h('strong', null, `${r.usdcMinted} test USDC minted`), r.creditsAdded ? ` and ${fmtInt(r.creditsAdded)} credits added.` : '.',
        dl([
          ['Wallet', mono(r.wallet)],
          ['Wallet balance', r.walletBalance != null ? `${r.walletBalance} USDC` : dash()],
          ['Credits added', fmtInt(r.creditsAdded || 0)],
          ['Next faucet use', dateCell(r.cooldownUntil, '—')],
        ]),
        r.instructions ? h('p', { class: 'small', style: 'margin:8px 0 0' }, r.instructions) : null))
      await refresh()
    } catch (err) {
      if (!ctx.alive()) return
      if (err instanceof ApiError && err.status === 429 && err.problem.cooldownUntil) {
        const until = err.problem.cooldownUntil
        const hours = Math.max(1, Math.ceil((new Date(until).getTime() - Date.now()) / 3600000))
        faucetSlot.replaceChildren(h('div', { class: 'note' }, h('strong', null, 'The faucet was used recently. '),
          'Each wallet gets one top-up per 24 hours; try again after ', dateCell(until), ` (about ${hours} h).`,
          me && me.walletAddress ? null : h('div', { class: 'small', style: 'margin-top:6px' }, 'Without a bound wallet the faucet uses the appliance\'s shared developer wallet; bind your own wallet to get a top-up of your own.')))
      } else if (err instanceof ApiError && err.status === 404) {
        faucetSlot.replaceChildren(h('div', { class: 'note' }, 'The faucet is only available on testnet.'))
      } else {
        faucetSlot.replaceChildren()
        ctx.error(err)
      }
    } finally {
      faucetBtn.disabled = false
    }
  })

  const bindPoints = config['leaderboard.pioneer.walletBindPoints']
  const hasWallet = typeof window.ethereum === 'object' && window.ethereum && typeof window.ethereum.request === 'function'
  const bindBtn = h('button', { type: 'button', class: me && me.walletAddress ? 'secondary' : null }, me && me.walletAddress ? 'Bind another wallet' : 'Bind wallet')
  bindBtn.addEventListener('click', async () => {
    bindBtn.disabled = true
    clearBanner()
    bindSlot.replaceChildren(h('p', { class: 'muted' }, 'Waiting for the wallet…'))
    try {
      const res = await bindWallet(window.ethereum)
      if (!ctx.alive()) return
      bindSlot.replaceChildren(h('div', { class: 'note success' }, 'Wallet ', h('code', null, res.walletAddress), ' bound.',
        res.firstBind && res.pointsAwarded ? ` ${fmtInt(res.pointsAwarded)} pioneer points awarded.` : ''))
      await refresh()
      if (ctx.alive()) walletSection(card, ctx, state.me, config, refresh)
      if (ctx.alive()) card.querySelector('.bind-slot')?.replaceWith(bindSlot)
    } catch (err) {
      if (!ctx.alive()) return
      bindSlot.replaceChildren()
      ctx.error(err)
    } finally {
      bindBtn.disabled = false
    }
  })
  bindSlot.classList.add('bind-slot')

  card.replaceChildren(
    h('h2', null, 'Wallet'),
    dl([
      ['Bound wallet', me && me.walletAddress ? h('code', null, me.walletAddress) : h('span', { class: 'muted' }, 'none')],
      ['Network', config['network.phase'] ? `${config['network.phase']}` : dash()],
      typeof config['x402.pricePerCreditUsdc'] === 'number' ? ['Price', `${config['x402.pricePerCreditUsdc']} USDC per credit (x402)`] : null,
    ]),
    h('div', { class: 'wallet-actions' },
      h('div', { class: 'wallet-box' },
        h('h3', null, 'Testnet faucet'),
        faucetOn
          ? [h('p', { class: 'muted small' }, 'Mints mock USDC to your bound wallet (or the appliance\'s developer wallet) and adds the same value as credits to your balance. Once per wallet per 24 hours.'), faucetBtn, faucetSlot]
          : h('p', { class: 'muted small' }, 'The faucet is off on this network.')),
      h('div', { class: 'wallet-box' },
        h('h3', null, me && me.walletAddress ? 'Change wallet' : 'Bind a wallet'),
        hasWallet
          ? [h('p', { class: 'muted small' }, `Sign an EIP-712 message with your browser wallet to prove you own it.${bindPoints && !(me && me.walletAddress) ? ` The first bind earns ${fmtInt(bindPoints)} pioneer points.` : ''}`), bindBtn, bindSlot]
          : bindInstructions(bindPoints))))
}

function bindInstructions(points) {
  return h('div', { class: 'small' },
    h('p', { class: 'muted' }, 'Binding needs a browser wallet (such as MetaMask) that can sign EIP-712 typed data; none was found in this browser. Install one and reload, or bind through the API:'),
    h('ol', { class: 'steps' },
      h('li', null, h('code', null, 'GET /api/v1/operator/wallet/nonce'), ' returns a single-use ', h('code', null, 'nonce'), ' (valid 10 minutes) and ready-to-sign ', h('code', null, 'typedData'), '.'),
      h('li', null, 'Set ', h('code', null, 'typedData.message.wallet'), ' to your address and sign it with ', h('code', null, 'eth_signTypedData_v4'), ' (or viem / ethers ', h('code', null, 'signTypedData'), ').'),
      h('li', null, h('code', null, 'POST /api/v1/operator/wallet'), ' with ', h('code', null, '{ walletAddress, signature, nonce }'), '.')),
    points ? h('p', { class: 'muted' }, `The first bind earns ${fmtInt(points)} pioneer points.`) : null,
    h('p', null, h('a', { href: '/docs' }, 'API reference →')))
}

function walletError(err, fallback) {
  const code = err && err.code
  if (code === 4001) return new Error('The request was rejected in the wallet.')
  const msg = err && (err.message || (err.data && err.data.message))
  return new Error(msg ? `${fallback}: ${msg}` : fallback)
}

/** EIP-712 wallet binding with window.ethereum: nonce → eth_signTypedData_v4 → POST /operator/wallet. */
async function bindWallet(eth) {
  let accounts
  try { accounts = await eth.request({ method: 'eth_requestAccounts' }) } catch (err) { throw walletError(err, 'The wallet did not share an account') }
  const account = Array.isArray(accounts) && accounts[0]
  if (!account) throw new Error('The wallet did not share an account.')
  const n = await api('GET', '/api/v1/operator/wallet/nonce')
  const domain = n.typedData.domain
  // Wallets refuse to sign typed data for another chain than the active one.
  try {
    const current = await eth.request({ method: 'eth_chainId' })
    if (current && domain.chainId && parseInt(current, 16) !== Number(domain.chainId)) {
      await eth.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: `0x${Number(domain.chainId).toString(16)}` }] })
    }
  } catch (err) {
    if (err && err.code === 4001) throw walletError(err)
    throw new Error(`Switch your wallet to chain id ${domain.chainId} and try again.`)
  }
  const domainTypes = [['name', 'string'], ['version', 'string'], ['chainId', 'uint256'], ['verifyingContract', 'address'], ['salt', 'bytes32']]
    .filter(([k]) => domain[k] !== undefined).map(([name, type]) => ({ name, type }))
  const typedData = {
    ...n.typedData,
    types: { EIP712Domain: domainTypes, ...n.typedData.types },
    message: { ...n.typedData.message, wallet: account },
  }
  let signature
  try {
    signature = await eth.request({ method: 'eth_signTypedData_v4', params: [account, JSON.stringify(typedData)] })
  } catch (err) { throw walletError(err, 'The wallet did not sign') }
  return api('POST', '/api/v1/operator/wallet', { walletAddress: account, signature, nonce: n.nonce })
}

// ---------------------------------------------------------------------------
// Providers (admin)

const GUARDRAIL_NUMBERS = [
  ['maxCreditsPerDay', 'Max credits per day', 'credits spent since 00:00 UTC'],
  ['maxTasksPerHour', 'Max tasks per hour', 'admitted tasks in the last 60 minutes'],
  ['maxPromptLength', 'Max prompt length', 'characters'],
  ['approvalThreshold', 'Approval threshold', 'hold actions whose requestedValue exceeds this'],
]

function guardrailRows(c) {
  const list = (xs, empty) => (xs && xs.length ? xs.join(', ') : h('span', { class: 'muted' }, empty))
  const num = (v) => (v === null || v === undefined ? h('span', { class: 'muted' }, 'no limit') : fmtInt(v))
  return dl([
    ...GUARDRAIL_NUMBERS.map(([k, label]) => [label, num(c[k])]),
    ['Allowed task types', list(c.allowedTaskTypes, 'all')],
    ['Blocked patterns', list(c.blockedPatterns, 'none')],
    ['Approval TTL', `${c.approvalTtlHours} h`],
    ['Approval webhook', c.approvalWebhookUrl ? h('code', { class: 'break' }, c.approvalWebhookUrl) : dash()],
    ['Webhook secret', c.approvalWebhookSecretSet ? 'set' : h('span', { class: 'muted' }, 'not set')],
    ['Auto-approval rules', c.approvalAutoRules && c.approvalAutoRules.length ? jsonBlock(c.approvalAutoRules) : h('span', { class: 'muted' }, 'none')],
    ['Publish outputs on IPFS', c.publishOutputs ? 'yes' : 'no (hashes only)'],
  ])
}

/** "in 27 s" until `iso`, refreshed every second while the page is shown. */
function countdown(iso, ctx, onDone) {
  const el = h('strong', { class: 'countdown' })
  const tick = () => {
    const left = Math.max(0, Math.ceil((Date.parse(iso) - Date.now()) / 1000))
    el.textContent = left > 0 ? `activates in ${left} s` : 'activating…'
    if (left === 0) { clearInterval(timer); onDone() }
  }
  const timer = setInterval(tick, 1000)
  ctx.onLeave(() => clearInterval(timer))
  tick()
  return el
}

route('guardrails', {
  title: 'Guardrails', nav: 'Guardrails', order: 55,
  async render(ctx) {
    ctx.view.append(pageHead('Guardrails', 'Limits every task of this operator passes in stage 1. A change waits 30 seconds before it applies, so a leaked session cannot switch protections off silently; the kill-switch in the header applies at once.'))
    const body = h('div', null, h('p', { class: 'muted' }, 'Loading…'))
    ctx.view.append(body)

    async function refresh() {
      const g = await api('GET', '/api/v1/operator/guardrails')
      if (!ctx.alive()) return
      const pendingCard = g.pending
        ? h('div', { class: 'card pending' }, h('div', { class: 'card-head' }, h('h2', null, 'Pending'), countdown(g.pending.activatesAt, ctx, () => setTimeout(() => { if (ctx.alive()) refresh().catch(ctx.error) }, 1500))), guardrailRows(g.pending.config))
        : h('div', { class: 'card pending' }, h('h2', null, 'Pending'), h('p', { class: 'muted' }, 'No change waiting.'))
      const ks = g.killSwitch
      body.replaceChildren(
        ks.active ? h('div', { class: 'card kill-switch-card' }, h('h2', null, 'Kill-switch is ON'), h('p', null, ks.reason || 'No reason given.'), h('p', { class: 'muted' }, 'Since ', dateCell(ks.updatedAt))) : null,
        h('div', { class: 'grid-2' }, h('div', { class: 'card current' }, h('h2', null, 'Active now'), guardrailRows(g.current)), pendingCard),
        editForm(g.pending ? g.pending.config : g.current),
      )
    }

    function editForm(c) {
      const numbers = GUARDRAIL_NUMBERS.map(([k, label, hint]) => field(label, h('input', { type: 'number', name: k, min: 0, step: 1, value: c[k] ?? '', placeholder: 'no limit', inputmode: 'numeric' }), hint))
      const types = h('fieldset', { class: 'checks' }, h('legend', null, 'Allowed task types (none checked = all)'),
        CAPABILITIES.map((t) => h('label', null, h('input', { type: 'checkbox', name: `type:${t}`, checked: c.allowedTaskTypes.includes(t) }), ' ', t)))
      const form = h('form', { class: 'form', 'aria-label': 'Edit guardrails' },
        h('h2', null, 'Change guardrails'),
        h('div', { class: 'form-row' }, numbers),
        types,
        field('Blocked patterns', textarea({ name: 'blockedPatterns', value: c.blockedPatterns.join('\n') }), 'one per line; plain text matched case-insensitively anywhere in the prompt (not regular expressions); at most 100 of 200 characters'),
        h('div', { class: 'form-row' },
          field('Approval TTL (hours)', h('input', { type: 'number', name: 'approvalTtlHours', min: 1, max: 720, step: 1, value: c.approvalTtlHours, required: true })),
          field('Approval webhook URL', h('input', { type: 'url', name: 'approvalWebhookUrl', value: c.approvalWebhookUrl ?? '', placeholder: 'https://…' }))),
        h('label', { class: 'check' }, h('input', { type: 'checkbox', name: 'publishOutputs', checked: !!c.publishOutputs }), ' Publish outputs in the public IPFS task documents (otherwise only their hash)'),
        h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Save (applies in 30 s)')))
      submitting(form, ctx, async (v) => {
        const patch = {}
        for (const [k] of GUARDRAIL_NUMBERS) patch[k] = v[k] === '' ? null : Number(v[k])
        patch.allowedTaskTypes = CAPABILITIES.filter((t) => v[`type:${t}`])
        patch.blockedPatterns = v.blockedPatterns.split('\n').map((x) => x.trim()).filter(Boolean)
        patch.approvalTtlHours = Number(v.approvalTtlHours)
        patch.approvalWebhookUrl = v.approvalWebhookUrl.trim() || null
        patch.publishOutputs = !!v.publishOutputs
        await api('PATCH', '/api/v1/operator/guardrails', patch)
        ctx.flash('Saved: the new guardrails apply in 30 seconds.')
        await refresh()
      })
      return h('div', { class: 'card' }, form)
    }

    await refresh()
  },
})

/** Downloads a JSON response that needs the bearer token (a plain link cannot send it). */
async function downloadJson(path, filename) {
  const res = await fetch(path, { headers: { authorization: `Bearer ${session.token}`, accept: 'application/json, application/problem+json' }, cache: 'no-store' })
  if (!res.ok) {
    let problem = null
    try { problem = await res.json() } catch { /* not JSON */ }
    throw new ApiError(res.status, problem)
  }
  const url = URL.createObjectURL(await res.blob())
  const a = h('a', { href: url, download: filename })
  document.body.append(a)
  a.click()
  a.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

function saveJson(value, filename) {
  const url = URL.createObjectURL(new Blob([JSON.stringify(value, null, 2)], { type: 'application/json' }))
  const a = h('a', { href: url, download: filename })
  document.body.append(a)
  a.click()
  a.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

route('compliance', {
  title: 'Compliance', nav: 'Compliance', order: 57,
  async render(ctx) {
    ctx.view.append(pageHead('Compliance', 'Terms of Service, signed compliance certificates, and an export of everything this account holds.'))
    const tosSlot = h('div', { class: 'card' }, h('h2', null, 'Terms of Service'), h('p', { class: 'muted' }, 'Loading…'))
    const certSlot = h('div', { class: 'card' }, h('h2', null, 'Compliance certificates'), h('p', { class: 'muted' }, 'Loading…'))
    const exportBtn = h('button', { type: 'button', class: 'secondary' }, 'Download export (JSON)')
    exportBtn.addEventListener('click', async () => {
      exportBtn.disabled = true
      clearBanner()
      try { await downloadJson('/api/v1/operator/export', `taskgate-export-${new Date().toISOString().slice(0, 10)}.json`) } catch (err) { ctx.error(err) } finally { exportBtn.disabled = false }
    })
    ctx.view.append(tosSlot, certSlot, h('div', { class: 'card' }, h('h2', null, 'Export'),
      h('p', { class: 'muted' }, 'One JSON document with your profile, keys (redacted), agents, tasks with outputs, ledger, guardrails, approvals, ToS acceptance, certificates, wallet and pioneer events. It holds no secret: no full key, hash, token or webhook secret.'),
      exportBtn))

    async function loadTos() {
      const st = await api('GET', '/api/v1/operator/tos/status')
      if (!ctx.alive()) return
      const accept = h('button', { type: 'button' }, `Accept version ${st.currentVersion}`)
      accept.addEventListener('click', async () => {
        accept.disabled = true
        try {
          await api('POST', '/api/v1/operator/tos/accept', { version: st.currentVersion })
          ctx.flash(`Terms of Service version ${st.currentVersion} accepted.`)
          await loadTos()
        } catch (err) { ctx.error(err); accept.disabled = false }
      })
      const current = st.accepted && st.version === st.currentVersion
      tosSlot.replaceChildren(h('h2', null, 'Terms of Service'), dl([
        ['Current version', h('code', null, st.currentVersion)],
        ['Accepted', current ? h('span', { class: 'badge green' }, `version ${st.version}`) : st.accepted ? h('span', { class: 'badge amber' }, `version ${st.version} (outdated)`) : h('span', { class: 'badge amber' }, 'not yet')],
        ['Accepted at', st.acceptedAt ? dateCell(st.acceptedAt) : dash()],
        ['Signed acceptance', st.ipfsCid ? ipfsLink(st.ipfsCid) : dash()],
      ]), current ? null : h('div', { class: 'actions' }, accept))
    }

    async function loadCerts() {
      const certs = await api('GET', '/api/v1/operator/compliance')
      if (!ctx.alive()) return
      const generate = h('button', { type: 'button' }, 'Generate a certificate now')
      generate.addEventListener('click', async () => {
        generate.disabled = true
        clearBanner()
        try {
          await api('POST', '/api/v1/operator/compliance/generate')
          ctx.flash('Certificate issued.')
          await loadCerts()
        } catch (err) { ctx.error(err); generate.disabled = false }
      })
      const rows = certs.map((c) => h('tr', null,
        h('td', null, dateCell(c.issuedAt)),
        h('td', null, `${fmtDate(c.periodStart)} → ${fmtDate(c.periodEnd)}`),
        h('td', null, tierBadge(c.tier)),
        h('td', null, mono(c.certHash)),
        h('td', null, ipfsLink(c.ipfsCid)),
        h('td', null, h('button', { type: 'button', class: 'secondary small', onclick: () => saveJson(c, `taskgate-certificate-${c.id}.json`) }, 'Download'))))
      certSlot.replaceChildren(
        h('div', { class: 'card-head' }, h('h2', null, 'Compliance certificates'), generate),
        h('p', { class: 'muted' }, 'Signed by the service key (EIP-191 over keccak256 of the canonical JSON); verifiable from the certificate alone (docs/compliance.md). Issued every month for PRO and ENTERPRISE.'),
        certs.length
          ? h('table', null, h('thead', null, h('tr', null, ['Issued', 'Period', 'Tier', 'certHash', 'IPFS', ''].map((x) => h('th', null, x)))), h('tbody', null, rows))
          : h('p', { class: 'empty muted' }, 'No certificate yet.'))
    }

    await Promise.all([loadTos().catch(ctx.error), loadCerts().catch((err) => {
      if (err instanceof ApiError && err.problem.code === 'TIER_REQUIRED') certSlot.replaceChildren(h('h2', null, 'Compliance certificates'), h('p', { class: 'muted' }, 'Certificates are available on the PRO and ENTERPRISE tiers.'))
      else ctx.error(err)
    })])
  },
})

route('terms', {
  title: 'Terms of Service versions', nav: 'Terms', order: 95, visible: (me) => !!(me && me.flags && me.flags.admin),
  async render(ctx) {
    ctx.view.append(pageHead('Terms of Service', 'Publishing a version makes it current; operators accept it on their Compliance page (and must, when TASKGATE_TOS_REQUIRED=1).'))
    const list = h('div', null, h('p', { class: 'muted' }, 'Loading…'))
    const form = h('form', { class: 'form', 'aria-label': 'Publish a ToS version' },
      h('div', { class: 'form-row' }, field('Version', h('input', { type: 'text', name: 'version', required: true, maxlength: 32, placeholder: 'e.g. 2' }))),
      field('Text', textarea({ name: 'text', required: true, rows: 8 })),
      h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Publish')))
    ctx.view.append(h('div', { class: 'card' }, h('h2', null, 'Versions'), list), h('div', { class: 'card' }, h('h2', null, 'Publish a new version'), form))
    async function refresh() {
      const versions = await api('GET', '/api/v1/admin/tos')
      if (!ctx.alive()) return
      const items = Array.isArray(versions) ? versions : versions.data || []
      list.replaceChildren(items.length
        ? h('table', null, h('thead', null, h('tr', null, ['Version', 'Published', 'Current'].map((x) => h('th', null, x)))),
          h('tbody', null, items.map((v) => h('tr', null, h('td', null, h('code', null, v.version)), h('td', null, dateCell(v.createdAt || v.publishedAt)), h('td', null, v.current ? h('span', { class: 'badge green' }, 'current') : '')))))
        : h('p', { class: 'empty muted' }, 'No versions.'))
    }
    submitting(form, ctx, async (v) => {
      await api('POST', '/api/v1/admin/tos', { version: v.version.trim(), text: v.text })
      form.reset()
      ctx.flash(`Version ${v.version.trim()} published.`)
      await refresh()
    })
    await refresh()
  },
})

const DECISION_COLOR = { PENDING: 'purple', APPROVED: 'green', DENIED: 'red', EXPIRED: '' }
const DECISIONS = ['PENDING', 'APPROVED', 'DENIED', 'EXPIRED']

/** The pending approvals count shown in the navigation ("Approvals (3)"); refreshed on every page. */
let pendingApprovals = null
async function refreshApprovalCount() {
  if (!session.token) return
  try {
    const c = await api('GET', '/api/v1/approvals/count')
    if (c.pending !== pendingApprovals) { pendingApprovals = c.pending; renderNav(currentRouteName()) }
  } catch { /* the count is a hint; the page itself shows errors */ }
}

function approvalDetail(a, ctx, onResolved) {
  const rows = dl([
    ['Decision', badge(a.decision, DECISION_COLOR[a.decision])],
    ['Task', taskLink(a.taskId)],
    ['Agent', agentLink(a.agentId)],
    ['Action', [a.actionType, a.operation].filter(Boolean).join(' · ') || dash()],
    ['Target', a.target ? mono(a.target) : dash()],
    ['Requested value', a.requestedValue === null ? dash() : `${a.requestedValue}${a.currency ? ` ${a.currency}` : ''}`],
    ['Why held', a.triggerReason],
    ['Policy checks', h('ul', { class: 'plain' }, a.policyEvaluations.map((e) => h('li', null, badge(e.result, e.result === 'pass' ? 'green' : e.result === 'fail' ? 'red' : 'amber'), ' ', h('strong', null, e.name), ' ', h('span', { class: 'muted' }, e.reason))))],
    ['Requested', dateCell(a.createdAt)],
    ['Expires', a.expiresAt ? dateCell(a.expiresAt) : dash()],
    ['Decided', a.decidedAt ? h('span', null, dateCell(a.decidedAt), a.decidedBy ? ` by ${a.decidedBy}` : '') : dash()],
    ['Note', a.decisionNote || dash()],
  ])
  if (a.decision !== 'PENDING') return h('div', { class: 'card approval', dataset: { id: a.id } }, h('h2', null, `Approval ${a.id}`), rows)
  const note = textarea({ name: 'note', rows: 2, maxlength: 2000, placeholder: 'optional note, stored with the decision' })
  const resolve = async (decision, btn) => {
    if (decision === 'approved' && !confirm(`Approve this action${a.requestedValue !== null ? ` of ${a.requestedValue}${a.currency ? ` ${a.currency}` : ''}` : ''}? The task runs and is charged.`)) return
    btn.disabled = true
    clearBanner()
    try {
      const r = await api('PATCH', `/api/v1/approvals/${encodeURIComponent(a.id)}`, note.value.trim() ? { decision, note: note.value.trim() } : { decision })
      ctx.flash(decision === 'approved'
        ? (r.resumeError ? `Approved, but the task could not run: ${r.resumeError}` : r.receipt ? `Approved: the task ${r.receipt.status === 'COMPLETED' ? 'completed' : 'ended ' + r.receipt.status}.` : 'Approved: the task is running.')
        : 'Denied: the task failed and nothing was charged.')
      await onResolved()
    } catch (err) { ctx.error(err); btn.disabled = false }
  }
  const approve = h('button', { type: 'button', class: 'approve' }, 'Approve')
  const deny = h('button', { type: 'button', class: 'danger deny' }, 'Deny')
  approve.addEventListener('click', () => resolve('approved', approve))
  deny.addEventListener('click', () => resolve('denied', deny))
  return h('div', { class: 'card approval', dataset: { id: a.id } }, h('h2', null, `Approval ${a.id}`), rows, field('Note', note), h('div', { class: 'actions' }, approve, deny))
}

route('approvals', {
  title: 'Approvals', order: 56, nav: () => (pendingApprovals ? `Approvals (${pendingApprovals})` : 'Approvals'),
  async render(ctx) {
    // #/approvals/<id> is the deep link approval webhooks point to (resolveUrl).
    if (ctx.sub) {
      ctx.view.append(pageHead('Approval request', null, h('a', { class: 'button secondary', href: '#/approvals' }, 'All approvals')))
      const slot = h('div', null, h('p', { class: 'muted' }, 'Loading…'))
      ctx.view.append(slot)
      const load = async () => {
        const a = await api('GET', `/api/v1/approvals/${encodeURIComponent(ctx.sub)}`)
        if (ctx.alive()) slot.replaceChildren(approvalDetail(a, ctx, async () => { await load(); await refreshApprovalCount() }))
      }
      await load()
      return
    }
    const decision = DECISIONS.includes(ctx.params.get('decision')) ? ctx.params.get('decision') : 'PENDING'
    ctx.view.append(pageHead('Approvals', 'Actions held for a human because their requested value exceeds your approval threshold. Approve to run (and charge) the task, deny to fail it; unanswered requests expire.',
      h('div', { class: 'tabs' }, DECISIONS.map((d) => h('a', { href: `#/approvals?decision=${d}`, class: d === decision ? 'active' : null }, humanize(d).toLowerCase())))))
    const slot = h('div', null, h('p', { class: 'muted' }, 'Loading…'))
    ctx.view.append(slot)
    const load = async () => {
      const list = await api('GET', `/api/v1/approvals${qs({ decision })}`)
      if (!ctx.alive()) return
      slot.replaceChildren(list.length
        ? h('table', null, h('thead', null, h('tr', null, ['Requested', 'Agent', 'Action', 'Value', 'Decision', 'Expires'].map((x) => h('th', null, x)))),
          h('tbody', null, list.map((a) => h('tr', null,
            h('td', null, h('a', { href: `#/approvals/${encodeURIComponent(a.id)}` }, fmtDate(a.createdAt))),
            h('td', null, agentLink(a.agentId)),
            h('td', null, [a.actionType, a.operation].filter(Boolean).join(' · ') || '—'),
            h('td', null, a.requestedValue === null ? '—' : `${a.requestedValue}${a.currency ? ` ${a.currency}` : ''}`),
            h('td', null, badge(a.decision, DECISION_COLOR[a.decision])),
            h('td', null, a.expiresAt ? dateCell(a.expiresAt) : dash())))))
        : h('p', { class: 'empty muted' }, `No ${decision.toLowerCase()} approval requests.`))
      await refreshApprovalCount()
    }
    await load()
  },
})

route('webhooks', {
  title: 'Webhook deliveries', nav: 'Webhooks', order: 58,
  async render(ctx) {
    const page = intParam(ctx.params, 'page', 1)
    const secretSlot = h('div')
    const rotate = h('button', { type: 'button', class: 'secondary' }, 'New signing secret')
    rotate.addEventListener('click', async () => {
      if (!confirm('Create a new webhook signing secret? The old one stops signing at once (a secret set in the guardrails takes precedence).')) return
      try {
        const r = await api('POST', '/api/v1/operator/webhooks/secret')
        secretSlot.replaceChildren(secretBox({ title: 'Webhook signing secret', secret: r.secret, note: 'Receivers check x-taskgate-signature (HMAC-SHA256 of the raw body) with it; see docs/webhooks.md.', dismiss: () => secretSlot.replaceChildren() }))
      } catch (err) { ctx.error(err) }
    })
    ctx.view.append(pageHead('Webhook deliveries', 'Approval events sent to your approval webhook URL and one-shot callbacks, signed with HMAC-SHA256 and EIP-712, retried with backoff (up to 8 attempts).', rotate), secretSlot)
    const slot = h('div', { class: 'card' }, h('p', { class: 'muted' }, 'Loading…'))
    ctx.view.append(slot)
    const r = await api('GET', `/api/v1/operator/webhooks/deliveries${qs({ page })}`)
    if (!ctx.alive()) return
    const color = { delivered: 'green', failed: 'red', pending: 'amber' }
    slot.replaceChildren(r.data.length
      ? h('div', null, h('table', null, h('thead', null, h('tr', null, ['Created', 'Event', 'URL', 'Status', 'Attempts', 'Last answer', 'Next attempt'].map((x) => h('th', null, x)))),
        h('tbody', null, r.data.map((d) => h('tr', null,
          h('td', null, dateCell(d.createdAt)), h('td', null, h('code', null, d.event)), h('td', null, mono(d.url)),
          h('td', null, badge(d.status, color[d.status])), h('td', null, String(d.attempts)),
          h('td', null, d.lastStatus ? String(d.lastStatus) : d.lastError ? h('span', { class: 'muted' }, d.lastError) : dash()),
          h('td', null, d.nextAttemptAt ? dateCell(d.nextAttemptAt) : dash()))))),
        pager({ page: r.page, totalPages: Math.ceil(r.total / (r.limit || 20)), total: r.total }, (p) => `#/webhooks${qs({ page: p })}`, 'deliveries'))
      : h('p', { class: 'empty muted' }, 'No deliveries yet. Set an approval webhook URL on the Guardrails page.'))
  },
})

route('providers', {
  title: 'Providers', nav: 'Providers', order: 70,
  visible: (me) => !!(me && me.flags && me.flags.admin),
  async render(ctx) {
    ctx.view.append(pageHead('Providers', 'LLM providers that run task compute, each with a pool of API keys. Keys are stored sealed and never shown again.'))
    const tableSlot = h('div', null, h('p', { class: 'muted' }, 'Loading…'))
    const form = providerForm()
    const formCard = foldCard('Add a provider', false, form)
    ctx.view.append(formCard, h('div', { class: 'card' }, h('h2', null, 'Providers'), tableSlot))

    async function refresh() {
      const list = await api('GET', '/api/v1/admin/providers')
      if (!ctx.alive()) return
      tableSlot.replaceChildren(providersTable(list, remove))
    }
    async function remove(p) {
      if (!confirm(`Remove the provider "${p.name}"?\n\nIts models stop being served and its ${p.keys.length} key(s) are deleted.`)) return
      clearBanner()
      try {
        await api('DELETE', `/api/v1/admin/providers/${encodeURIComponent(p.id)}`)
        ctx.flash(`Provider "${p.name}" removed.`)
        await refresh()
      } catch (err) { ctx.error(err) }
    }
    submitting(form, ctx, async (v) => {
      const body = providerBody(v)
      const created = await api('POST', '/api/v1/admin/providers', body)
      form.reset()
      formCard.open = false
      ctx.flash(`Provider "${created.name}" added with ${created.keys.length} key(s).`)
      await refresh()
    })
    await refresh()
  },
})

function providerForm() {
  const kind = h('select', { name: 'kind', required: true }, h('option', { value: 'openai' }, 'openai (OpenAI-compatible chat completions)'), h('option', { value: 'anthropic' }, 'anthropic (messages API)'))
  const baseUrl = h('input', { type: 'text', name: 'baseUrl', maxlength: 512, placeholder: 'https://api.openai.com/v1', autocomplete: 'off', spellcheck: 'false', inputmode: 'url' })
  kind.addEventListener('change', () => { baseUrl.placeholder = kind.value === 'anthropic' ? 'https://api.anthropic.com/v1' : 'https://api.openai.com/v1' })
  return h('form', { class: 'form', 'aria-label': 'Add a provider' },
    h('div', { class: 'form-row top' },
      field('Name', h('input', { type: 'text', name: 'name', required: true, maxlength: 64, autocomplete: 'off', spellcheck: 'false' })),
      field('Kind', kind)),
    field('Base URL (optional)', baseUrl, 'Empty: the kind\'s public endpoint.'),
    field('Models', h('input', { type: 'text', name: 'models', required: true, autocomplete: 'off', spellcheck: 'false', placeholder: 'gpt-4o-mini, gpt-4o' }), 'Comma separated; tasks pick a provider by model name.'),
    field('Keys', textarea({ name: 'keys', rows: 3, required: true, autocomplete: 'off', spellcheck: 'false', class: 'mono', placeholder: 'sk-…,60,4' }),
      'One per line: key[,rpm[,concurrency]]. Defaults: 60 requests/min, 4 concurrent.'),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Add provider')))
}

function providerBody(v) {
  const models = [...new Set(v.models.split(',').map((s) => s.trim()).filter(Boolean))]
  if (!models.length) throw new Error('List at least one model.')
  const keys = []
  v.keys.split(/\r?\n/).forEach((line, i) => {
    if (!line.trim()) return
    const [key, rpm, conc, ...rest] = line.split(',').map((s) => s.trim())
    const where = `Keys, line ${i + 1}`
    if (!key) throw new Error(`${where}: the key is missing.`)
    if (rest.length) throw new Error(`${where}: expected key[,rpm[,concurrency]].`)
    const k = { key }
    const int = (s, what) => {
      if (!/^[0-9]+$/.test(s) || Number(s) < 1) throw new Error(`${where}: ${what} must be a whole number of at least 1.`)
      return Number(s)
    }
    if (rpm) k.rpm = int(rpm, 'rpm')
    if (conc) k.concurrency = int(conc, 'concurrency')
    keys.push(k)
  })
  if (!keys.length) throw new Error('Add at least one key.')
  const body = { name: v.name.trim(), kind: v.kind, models, keys }
  if (v.baseUrl.trim()) body.baseUrl = v.baseUrl.trim()
  return body
}

const KEY_STATE_COLOR = { ready: 'green', busy: 'amber', cooldown: 'red' }

function providersTable(list, onRemove) {
  if (!list.length) return h('div', { class: 'empty' }, 'No providers.')
  return h('div', { class: 'table-wrap' }, h('table', null,
    h('thead', null, h('tr', null, ['Name', 'Kind', 'Base URL', 'Models', 'Keys', ''].map((t) => h('th', null, t)))),
    h('tbody', null, list.map((p) => h('tr', { dataset: { providerId: p.id } },
      h('td', null, h('strong', null, p.name), h('div', { class: 'muted small mono' }, p.id)),
      h('td', null, badge(p.kind, p.kind === 'builtin' ? '' : 'blue')),
      h('td', null, p.baseUrl ? h('code', { class: 'break' }, p.baseUrl) : h('span', { class: 'muted' }, p.kind === 'builtin' ? '—' : 'default')),
      h('td', null, h('div', { class: 'chips' }, p.models.map((m) => h('code', { class: 'chip' }, m)))),
      h('td', null, p.keys.length ? h('ul', { class: 'keylist' }, p.keys.map((k) => h('li', null,
        h('code', null, k.keyPrefix), ' ', badge(k.state, KEY_STATE_COLOR[k.state]),
        h('span', { class: 'muted small' }, ` ${k.rpm} rpm · ${k.inflight}/${k.concurrency} in flight`)))) : h('span', { class: 'muted' }, 'none')),
      h('td', { class: 'actions' }, p.kind === 'builtin'
        ? h('span', { class: 'muted small', title: 'The builtin provider cannot be removed' }, 'built in')
        : h('button', { type: 'button', class: 'danger small', onclick: () => onRemove(p) }, 'Delete')))))))
}

// ---------------------------------------------------------------------------
// Start

/** GitHub sign-in lands on /#access_token=…&expires_in=…: keep the token, then drop it from the URL. */
function takeFragmentToken() {
  const frag = location.hash.replace(/^#\/?/, '')
  if (!/(^|&)access_token=/.test(frag)) return
  const p = new URLSearchParams(frag)
  const token = p.get('access_token')
  history.replaceState(null, '', `${location.pathname}${location.search}#/${HOME}`)
  if (token) session.set(token, p.get('expires_in'))
}

takeFragmentToken()
window.addEventListener('hashchange', render)
render()
