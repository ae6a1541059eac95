// The API client: JSON in and out with the bearer token; failures throw ApiError carrying the problem+json body.
import { session, state } from './session.js'

let onUnauthorized = (_err) => {}

/** What to do when the server rejects the bearer token (the router goes to the sign-in page). */
export function setUnauthorizedHandler(fn) { onUnauthorized = fn }

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
    // A rejected bearer token: sign out; the router then shows the sign-in page.
    if (res.status === 401 && token) {
      session.clear()
      onUnauthorized(err)
    }
    throw err
  }
  return data
}

export async function loadMe(force = false) {
  if (!session.token) return null
  if (!state.me || force) state.me = await api('GET', '/api/v1/auth/me')
  return state.me
}

export async function loadOptions(force = false) {
  if (!state.options || force) state.options = await api('GET', '/api/v1/auth/options', undefined, { auth: false })
  return state.options
}

let publicConfig = null

export async function loadPublicConfig() {
  if (!publicConfig) {
    try { publicConfig = await api('GET', '/api/v1/config/public', undefined, { auth: false }) } catch { return {} }
  }
  return publicConfig
}
