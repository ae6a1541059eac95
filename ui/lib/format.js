// Formatting for display (dates, numbers, durations) and small URL helpers.


export function fmtDate(iso) {
  if (!iso) return null
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return String(iso)
  const pad = (n) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`
}

export function fmtScore(score) { return typeof score === 'number' ? score.toFixed(2) : null }

export function fmtInt(n) { return typeof n === 'number' ? n.toLocaleString('en-US') : '—' }

/** An estimated cost in US dollars: cents from $1 up, down to millionths below (the server's precision). */
export function fmtUsd(usd) {
  if (typeof usd !== 'number') return null
  return usd.toLocaleString('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: Math.abs(usd) < 1 ? 6 : 2 })
}

export function fmtMs(ms) { return typeof ms === 'number' ? (ms >= 10000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms).toLocaleString('en-US')} ms`) : null }

export function humanize(code) { return code ? String(code).replace(/_/g, ' ') : '' }

/** Only http(s) links from server data become hrefs. */
export function safeHref(url) {
  if (!url) return null
  try {
    const u = new URL(String(url), location.origin)
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null
  } catch { return null }
}

export function qs(obj) {
  const p = new URLSearchParams()
  for (const [k, v] of Object.entries(obj)) if (v !== undefined && v !== null && v !== '') p.set(k, String(v))
  const s = p.toString()
  return s ? `?${s}` : ''
}

export function intParam(params, name, def) {
  const n = Number(params.get(name))
  return Number.isInteger(n) && n > 0 ? n : def
}

export function fmtTime(iso) {
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return String(iso)
  const pad = (n, w = 2) => String(n).padStart(w, '0')
  return `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`
}
