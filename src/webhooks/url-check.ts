// Webhook and callback URLs (decisions.md §14): http(s) only, and never an address in a loopback,
// private, link-local, shared, multicast or metadata range, checked when the URL is saved and again
// at each delivery after DNS resolution (a name that later resolves to a private address, DNS
// rebinding, is refused then). TASKGATE_WEBHOOK_ALLOW_PRIVATE=1 turns the address check off.
import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import { badRequest } from '../http/errors'

export const URL_NOT_ALLOWED = 'WEBHOOK_URL_NOT_ALLOWED'

function v4Blocked(ip: string): boolean {
  const [a, b] = ip.split('.').map(Number) as [number, number]
  return a === 0 || a === 10 || a === 127 || (a === 100 && b >= 64 && b <= 127) || (a === 169 && b === 254) || (a === 172 && b >= 16 && b <= 31)
    || (a === 192 && b === 168) || (a === 192 && b === 0) || (a === 198 && (b === 18 || b === 19)) || a >= 224
}

/** Whether an IP literal is in a range webhooks may not reach. */
export function addressBlocked(ip: string): boolean {
  const kind = isIP(ip)
  if (kind === 4) return v4Blocked(ip)
  if (kind !== 6) return true
  const x = ip.toLowerCase()
  if (x === '::' || x === '::1') return true
  const mapped = x.match(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/)
  if (mapped) return v4Blocked(mapped[1]!)
  if (x.startsWith('::ffff:')) return true // mapped in hex form: refuse rather than parse
  const first = parseInt(x.split(':')[0] || '0', 16)
  return (first & 0xfe00) === 0xfc00 /* fc00::/7 unique local */ || (first & 0xffc0) === 0xfe80 /* link-local */ || (first & 0xff00) === 0xff00 /* multicast */
    || x.startsWith('fd00:ec2::254') /* AWS metadata over IPv6 (inside fc00::/7 too) */
}

/** Why the URL may not receive webhooks, or null. Resolves the host name unless `allowPrivate`. */
export async function urlProblem(raw: string, allowPrivate: boolean): Promise<string | null> {
  let u: URL
  try { u = new URL(raw) } catch { return 'not a URL' }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'only http and https URLs receive webhooks'
  if (u.username || u.password) return 'URLs with credentials are not accepted'
  if (allowPrivate) return null
  const host = u.hostname.replace(/^\[|\]$/g, '')
  if (host.toLowerCase() === 'metadata.google.internal') return 'metadata addresses are not allowed'
  let addresses: string[]
  if (isIP(host)) addresses = [host]
  else {
    try { addresses = (await lookup(host, { all: true, verbatim: true })).map((a) => a.address) } catch { return `the host ${host} does not resolve` }
  }
  const bad = addresses.find(addressBlocked)
  return bad ? `the host ${host} resolves to ${bad}, a loopback, private, link-local or metadata address` : null
}

/** 400 WEBHOOK_URL_NOT_ALLOWED unless the URL may receive webhooks. */
export async function assertUrlAllowed(raw: string, allowPrivate: boolean, field: string): Promise<void> {
  const why = await urlProblem(raw, allowPrivate)
  if (why) throw badRequest(URL_NOT_ALLOWED, `${field}: ${why} (TASKGATE_WEBHOOK_ALLOW_PRIVATE=1 allows private addresses)`, { field })
}
