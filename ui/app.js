// TaskGate admin UI: vanilla JS, no build step, no external resources.
// Server data is only ever written with textContent / attributes (never innerHTML).
//
// Adding a page (agents, tasks, billing, approvals…): call
//   route('name', { title, auth: 'required' | 'guest' | 'any', nav: 'Menu label', visible: (me) => bool, render })
// and fetch data with api(method, path, body). `render(ctx)` (may be async) gets
//   ctx.view    the (empty) element to fill
//   ctx.params  URLSearchParams of the part of the hash after '?'
//   ctx.error   (err) => show an error banner (ignored once the user navigated away)
//   ctx.flash   (text) => show a success message
//   ctx.alive   () => false once the user navigated away

const TOKEN_KEY = 'taskgate.accessToken'
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
  const name = (q >= 0 ? raw.slice(0, q) : raw) || ''
  const params = new URLSearchParams(q >= 0 ? raw.slice(q + 1) : '')
  return { name, params }
}

function currentRouteName() { return parseHash().name }

export function go(name, replace = false) {
  const hash = `#/${name}`
  if (replace) { history.replaceState(null, '', `${location.pathname}${location.search}${hash}`); render() }
  else if (location.hash === hash) render()
  else location.hash = hash
}

let generation = 0

async function render() {
  const gen = ++generation
  let { name, params } = parseHash()
  if (!routes[name]) name = session.token ? 'keys' : 'login'
  const def = routes[name]
  if (def.auth === 'required' && !session.token) { go('login', true); return }
  if (def.auth === 'guest' && session.token) { go('keys', true); return }

  clearBanner()
  clearFlash()
  if (pendingError) { showError(pendingError); pendingError = null }

  const view = h('div', { class: 'view' })
  $('view').replaceWith(view)
  view.id = 'view'
  const alive = () => gen === generation && view.isConnected
  const ctx = {
    view, params, alive,
    error: (err) => { if (alive()) showError(err) },
    flash: (text) => { if (alive()) showFlash(text) },
  }
  document.title = def.title ? `${def.title} · TaskGate` : 'TaskGate'

  if (session.token) {
    try { await loadMe() } catch (err) { if (!session.token) return; ctx.error(err) }
    if (!alive()) return
  }
  renderNav(name)
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
  for (const [name, def] of Object.entries(routes)) {
    if (!def.nav) continue
    if (def.auth === 'required' && !session.token) continue
    if (def.auth === 'guest' && session.token) continue
    if (def.visible && !def.visible(state.me)) continue
    links.push(h('a', { href: `#/${name}`, class: name === active ? 'active' : null, 'aria-current': name === active ? 'page' : null }, def.nav))
  }
  links.push(h('a', { href: '/docs' }, 'API docs'))
  nav.replaceChildren(...links)

  const sess = $('session')
  if (session.token && state.me) {
    sess.replaceChildren(
      h('span', null, 'Signed in as ', h('strong', null, state.me.identityLogin)),
      h('button', { type: 'button', class: 'secondary small', onclick: logout }, 'Sign out'),
    )
  } else sess.replaceChildren()
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
  go('keys', true)
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
  title: 'API keys', nav: 'API keys',
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
  const value = h('code', { class: 'keyvalue', 'aria-label': 'New API key' }, created.key)
  const copyBtn = h('button', { type: 'button', onclick: async () => {
    const ok = await copyText(created.key, value)
    copyBtn.textContent = ok ? 'Copied' : 'Select and copy manually'
    setTimeout(() => { copyBtn.textContent = 'Copy' }, 2000)
  } }, 'Copy')
  return h('div', { class: 'keybox', role: 'region', 'aria-label': 'New API key' },
    h('h2', null, `Key "${created.label}" created`),
    h('p', { class: 'warning' }, 'Copy this key now: it will not be shown again.'),
    h('div', { class: 'keyrow' }, value, copyBtn, h('button', { type: 'button', class: 'secondary', onclick: dismiss }, 'Done')),
    h('p', { class: 'muted small', style: 'margin:10px 0 0' }, `Send it as the x-api-key header. Prefix ${created.keyPrefix}, rate limit ${created.rateLimitRpm} requests/min.`))
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
  title: 'Profile', nav: 'Profile',
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
  title: 'Operators', nav: 'Operators',
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
// Start

/** GitHub sign-in lands on /#access_token=…&expires_in=…: keep the token, then drop it from the URL. */
function takeFragmentToken() {
  const frag = location.hash.replace(/^#\/?/, '')
  if (!/(^|&)access_token=/.test(frag)) return
  const p = new URLSearchParams(frag)
  const token = p.get('access_token')
  history.replaceState(null, '', `${location.pathname}${location.search}#/keys`)
  if (token) session.set(token, p.get('expires_in'))
}

takeFragmentToken()
window.addEventListener('hashchange', render)
render()
