// Outbound requests made on an operator's behalf: webhooks and approval callbacks (docs/security.md,
// "Outbound requests"; docs/webhooks.md, "Which URLs are allowed"). A URL's host is resolved once;
// every address it resolved to must be public unicast, and the request then connects to that very
// address (fetch to the IP literal, with the original Host header and, for https, the host name as
// TLS server name, so the certificate is still verified against the name). There is no second
// lookup at connect time, so a name that answers differently later (DNS rebinding) cannot redirect
// the request. TASKGATE_WEBHOOK_ALLOW_PRIVATE=1 turns the address check off, not the single lookup.
// TASKGATE_DNS_SERVERS sends the lookups to those DNS servers instead of the system resolver.
import { lookup, Resolver } from 'node:dns/promises'
import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'
import { badRequest } from '../http/errors'

export const URL_NOT_ALLOWED = 'WEBHOOK_URL_NOT_ALLOWED'

/** Cloud metadata services by name; their addresses are link-local, unique-local or CGNAT, refused anyway. */
const METADATA_NAMES = new Set(['metadata.google.internal', 'metadata.goog', 'metadata', 'instance-data', 'instance-data.ec2.internal'])
/** Metadata addresses inside public unicast space: Azure's wire server. */
const METADATA_ADDRESSES = new Set(['168.63.129.16'])

const RANGE_NAMES: Record<string, string> = {
  unspecified: 'an unspecified address', loopback: 'a loopback address', private: 'a private address', linkLocal: 'a link-local address',
  uniqueLocal: 'a unique-local address', multicast: 'a multicast address', broadcast: 'the broadcast address', reserved: 'a reserved address',
  carrierGradeNat: 'a carrier-grade NAT address', ipv4Mapped: 'an IPv4-mapped IPv6 address', rfc6145: 'an IPv4-translated IPv6 address',
  rfc6052: 'a NAT64 address', '6to4': 'a 6to4 address', teredo: 'a Teredo address',
}
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3') as [ipaddr.IPv6, number]

/** Why an outbound request may not go to this IP address (e.g. "a loopback address"), or null for a public unicast one. */
export function addressProblem(ip: string): string | null {
  const kind = isIP(ip)
  let addr: ipaddr.IPv4 | ipaddr.IPv6
  // The WHATWG serialisation first: ipaddr.js reads the dotted form ::a.b.c.d as IPv4-mapped.
  try { addr = ipaddr.parse(kind === 6 ? new URL(`http://[${ip}]/`).hostname.slice(1, -1) : kind === 4 ? ip : '') } catch { return 'not an IP address' }
  if (METADATA_ADDRESSES.has(addr.toString())) return 'a cloud metadata address'
  const range = addr.range()
  if (range !== 'unicast') return RANGE_NAMES[range] ?? `a special-purpose address (${range})`
  if (addr instanceof ipaddr.IPv6) {
    if (addr.parts.slice(0, 6).every((p) => p === 0)) return 'an IPv4-compatible IPv6 address' // ::a.b.c.d (::/96)
    if (!addr.match(GLOBAL_UNICAST_V6)) return 'an address outside global unicast (2000::/3)'
  }
  return null
}

export interface OutboundOptions {
  /** TASKGATE_WEBHOOK_ALLOW_PRIVATE: no address check (the scheme check and the single lookup stay). */
  allowPrivate: boolean
  /** TASKGATE_DNS_SERVERS (`ip` or `ip:port`, `[v6]:port`); empty: the system resolver (getaddrinfo, /etc/hosts). */
  dnsServers: string[]
}

/** A URL whose host was resolved and checked: requests go to `address`, never to a new lookup of the name. */
export interface Target { url: URL; address: string }
/** Why not: `transient` when the name did not resolve (a delivery retries), else the URL or its addresses are refused. */
export interface Refusal { refused: string; transient: boolean }

export class Outbound {
  private resolver: Resolver | null = null

  constructor(private opts: OutboundOptions) {
    if (opts.dnsServers.length) {
      this.resolver = new Resolver({ timeout: 2000, tries: 2 })
      this.resolver.setServers(opts.dnsServers)
    }
  }

  /** Every address of the host, by one lookup (one A and one AAAA query with TASKGATE_DNS_SERVERS). */
  private async addresses(host: string): Promise<string[]> {
    if (!this.resolver) return (await lookup(host, { all: true, verbatim: true })).map((a) => a.address)
    const empty = (e: NodeJS.ErrnoException) => { if (e.code === 'ENODATA' || e.code === 'ENOTFOUND') return [] as string[]; throw e }
    const [v4, v6] = await Promise.all([this.resolver.resolve4(host).catch(empty), this.resolver.resolve6(host).catch(empty)])
    return [...v4, ...v6]
  }

  /** The URL, or why it is refused whatever its address: not http(s), or with credentials. */
  private parse(raw: string): URL | Refusal {
    let url: URL
    try { url = new URL(raw) } catch { return { refused: 'not a URL', transient: false } }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return { refused: 'only http and https URLs are allowed', transient: false }
    if (url.username || url.password) return { refused: 'URLs with credentials are not accepted', transient: false }
    return url
  }

  /** Parses the URL, resolves its host once and checks every address (unless allowPrivate). */
  async target(raw: string): Promise<Target | Refusal> {
    const url = this.parse(raw)
    if (!(url instanceof URL)) return url
    const refuse = (refused: string, transient = false): Refusal => ({ refused, transient })
    const host = url.hostname.replace(/^\[|\]$/g, '')
    const check = !this.opts.allowPrivate
    if (check && METADATA_NAMES.has(host.toLowerCase().replace(/\.$/, ''))) return refuse(`the host ${host} is a cloud metadata name`)
    if (isIP(host)) {
      const bad = check && addressProblem(host)
      return bad ? refuse(`the host ${host} is ${bad}`) : { url, address: host }
    }
    let found: string[]
    try { found = await this.addresses(host) } catch { found = [] }
    if (!found.length) return refuse(`the host ${host} does not resolve`, true)
    // Any bad address refuses the URL. The reason names the kind of range, never the address: what a
    // name resolves to inside this network is not for the operator to learn.
    const bad = check ? found.map(addressProblem).find((p) => p !== null) : null
    return bad ? refuse(`the host ${host} resolves to ${bad}`) : { url, address: found[0]! }
  }

  /** Why the URL may not receive requests, or null. With allowPrivate only the URL itself is checked (no lookup). */
  async problem(raw: string): Promise<string | null> {
    const t = this.opts.allowPrivate ? this.parse(raw) : await this.target(raw)
    return 'refused' in t ? t.refused : null
  }

  /** 400 WEBHOOK_URL_NOT_ALLOWED unless the URL may receive requests. */
  async assertAllowed(raw: string, field: string): Promise<void> {
    const why = await this.problem(raw)
    if (why) throw badRequest(URL_NOT_ALLOWED, `${field}: ${why} (TASKGATE_WEBHOOK_ALLOW_PRIVATE=1 allows private addresses)`, { field })
  }

  /**
   * The request, to the checked address: the URL with the IP literal for the host, the original
   * Host header, the host name as TLS server name (SNI and the name the certificate must carry).
   * Redirects are never followed (a 3xx is the answer). Errors name the original URL, not the address.
   */
  async fetch(t: Target, init: Omit<RequestInit, 'redirect'> & { headers?: Record<string, string> }): Promise<Response> {
    const { url, address } = t
    const literal = isIP(address) === 6 ? `[${address}]` : address
    const pinned = `${url.protocol}//${literal}${url.port ? `:${url.port}` : ''}${url.pathname}${url.search}`
    const name = url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '')
    try {
      return await fetch(pinned, {
        ...init, redirect: 'manual', headers: { ...init.headers, host: url.host },
        ...(url.protocol === 'https:' && !isIP(name) ? { tls: { serverName: name } } : {}),
      })
    } catch (e) {
      if (e instanceof Error) e.message = e.message.split(pinned).join(url.href)
      throw e
    }
  }
}
