// Saving JSON as a file: a response that needs the bearer token, or a value already loaded.
import { ApiError } from './api.js'
import { append, h } from './dom.js'
import { session } from './session.js'

/** Downloads a JSON response that needs the bearer token (a plain link cannot send it). */
export async function downloadJson(path, filename) {
  const res = await fetch(path, { headers: { authorization: `Bearer ${session.token}`, accept: 'application/json, application/problem+json' }, cache: 'no-store' })
  if (!res.ok) {
    let problem = null
    try { problem = await res.json() } catch { /* not JSON */ }
    throw new ApiError(res.status, problem)
  }
  const url = URL.createObjectURL(await res.blob())
  const a = h('a', { href: url, download: filename })
  append(document.body, a)
  a.click()
  a.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}

export function saveJson(value, filename) {
  const url = URL.createObjectURL(new Blob([JSON.stringify(value, null, 2)], { type: 'application/json' }))
  const a = h('a', { href: url, download: filename })
  append(document.body, a)
  a.click()
  a.remove()
  setTimeout(() => URL.revokeObjectURL(url), 10_000)
}
