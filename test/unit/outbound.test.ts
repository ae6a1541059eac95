// Outbound requests (src/lib/outbound.ts; docs/security.md, "Outbound requests"): which addresses
// are refused (ipaddr.js ranges, IPv4-compatible IPv6, outside 2000::/3, metadata names and
// addresses), which URLs, and the pinning: one lookup per target, and the request connects to that
// address (also for https, where SNI and the certificate check still use the host name).
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { createServer as createTlsServer } from 'node:tls'
import { addressProblem, Outbound, type Refusal, type Target } from '../../src/lib/outbound'
import { startFakeDns, type FakeDns } from '../helpers/fake-dns'
import { ROOT } from '../helpers/server'

const strict = new Outbound({ allowPrivate: false, dnsServers: [] })
const lenient = new Outbound({ allowPrivate: true, dnsServers: [] })
const refusal = (t: Target | Refusal) => ('refused' in t ? t.refused : null)

describe('address classification', () => {
  test('refused: each kind of range, named without the address', () => {
    const refused: [string, RegExp][] = [
      ['127.0.0.1', /loopback/], ['10.1.2.3', /private/], ['172.16.0.1', /private/], ['172.31.255.255', /private/], ['192.168.1.1', /private/],
      ['169.254.169.254', /link-local/], ['100.64.0.1', /carrier-grade NAT/], ['100.100.100.200', /carrier-grade NAT/], ['0.0.0.0', /unspecified/],
      ['255.255.255.255', /broadcast/], ['224.0.0.1', /multicast/], ['192.0.2.1', /reserved/], ['198.18.0.1', /reserved/], ['240.0.0.1', /reserved/],
      ['192.0.0.192', /reserved/], ['168.63.129.16', /metadata/],
      ['::1', /loopback/], ['::', /unspecified/], ['fe80::1', /link-local/], ['fd00::1', /unique-local/], ['fc00::2', /unique-local/], ['fd00:ec2::254', /unique-local/],
      ['ff02::1', /multicast/], ['2001:db8::1', /reserved/],
      ['::ffff:127.0.0.1', /IPv4-mapped/], ['::ffff:7f00:1', /IPv4-mapped/], ['::ffff:10.0.0.1', /IPv4-mapped/], ['::ffff:8.8.8.8', /IPv4-mapped/],
      ['::127.0.0.1', /IPv4-compatible/], ['::7f00:1', /IPv4-compatible/], ['::8.8.8.8', /IPv4-compatible/],
      ['64:ff9b::7f00:1', /NAT64/], ['64:ff9b::808:808', /NAT64/], ['64:ff9b:1::1', /NAT64/],
      ['2002:7f00:1::', /6to4/], ['2002:808:808::1', /6to4/], ['2001::1', /Teredo/], ['100::1', /discard|special/], ['4000::1', /outside global unicast/],
    ]
    for (const [ip, kind] of refused) {
      const why = addressProblem(ip)
      expect(why, ip).toMatch(kind)
      expect(why, ip).not.toContain(ip)
    }
    for (const x of ['example.com', '1.2.3', 'fe80::1%eth0']) expect(addressProblem(x), x).toBe('not an IP address')
  })

  test('public unicast addresses pass', () => {
    for (const ip of ['93.184.215.14', '8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700::1111', '2a00:1450:4001:80b::200e']) expect(addressProblem(ip), ip).toBeNull()
  })
})

describe('URLs', () => {
  test('scheme, credentials, address literals in any spelling, metadata names', async () => {
    expect(await strict.problem('ftp://example.com/x')).toMatch(/http/)
    expect(await strict.problem('not a url')).toBe('not a URL')
    expect(await strict.problem('http://user:pw@93.184.215.14/')).toMatch(/credentials/)
    const literals: [string, RegExp][] = [
      ['http://169.254.169.254/latest/meta-data', /169\.254\.169\.254 is a link-local/], ['http://[::1]:8080/', /::1 is a loopback/],
      ['http://[::127.0.0.1]/hook', /IPv4-compatible/], ['http://[::ffff:127.0.0.1]/hook', /IPv4-mapped/], ['http://[::ffff:7f00:1]/', /IPv4-mapped/],
      ['http://[64:ff9b::7f00:1]/', /NAT64/], ['http://[64:ff9b:1::1]/', /NAT64/], ['http://[2002:7f00:1::]/', /6to4/], ['http://[2001::1]/', /Teredo/],
      ['http://[fe80::1]/', /link-local/], ['http://[fd00:ec2::254]/', /unique-local/], ['http://100.64.0.1/', /carrier-grade/],
      ['http://0.0.0.0:8080/', /unspecified/], ['http://255.255.255.255/', /broadcast/], ['http://224.0.0.1/', /multicast/],
      ['http://192.0.2.1/', /reserved/], ['http://198.18.0.1/', /reserved/], ['http://240.0.0.1/', /reserved/],
      ['http://0x7f.1/', /loopback/], ['http://2130706433/', /loopback/], ['http://017700000001/', /loopback/], // WHATWG spellings of 127.0.0.1
      ['http://metadata.google.internal/computeMetadata/v1/', /metadata name/], ['http://METADATA.Google.Internal./', /metadata name/],
    ]
    for (const [url, why] of literals) expect(await strict.problem(url), url).toMatch(why)
    expect(await strict.problem('https://93.184.215.14/hook')).toBeNull()
    expect(await strict.problem('https://[2606:4700::1111]/hook')).toBeNull()
  })

  test('a name is checked by what the system resolver answers, and the answer is not shown', async () => {
    const why = await strict.problem('http://localhost:9/hook')
    expect(why).toBe('the host localhost resolves to a loopback address')
  })

  test('TASKGATE_WEBHOOK_ALLOW_PRIVATE: no address check, no lookup when saved; the URL checks stay', async () => {
    expect(await lenient.problem('http://127.0.0.1:9/hook')).toBeNull()
    expect(await lenient.problem('http://metadata.google.internal/')).toBeNull()
    expect(await lenient.problem('http://no-such-host.invalid/')).toBeNull()
    expect(await lenient.problem('ftp://127.0.0.1/')).toMatch(/http/)
    expect(await lenient.problem('http://u:p@127.0.0.1/')).toMatch(/credentials/)
    expect(await lenient.target('http://[::1]:9/x')).toMatchObject({ address: '::1' })
  })
})

describe('one lookup, and the request goes to its address', () => {
  let dns: FakeDns
  let first: ReturnType<typeof Bun.serve>
  let second: ReturnType<typeof Bun.serve>
  const hits: { at: string; path: string; host: string | null; body: string }[] = []
  const record = (at: string) => async (req: Request) => {
    const u = new URL(req.url)
    hits.push({ at, path: u.pathname + u.search, host: req.headers.get('host'), body: await req.text() })
    return u.pathname === '/redirect' ? Response.redirect(`http://${at}:${first.port}/elsewhere`, 302) : new Response('ok')
  }
  const answers: Record<string, (type: string, n: number) => string[] | null> = {
    // 127.0.0.1 on the first lookup, 127.0.0.2 on every later one
    'pin.example.test': (type, n) => (type === 'A' ? [n === 1 ? '127.0.0.1' : '127.0.0.2'] : []),
    // public on the first lookup, loopback afterwards (DNS rebinding)
    'rebind.example.test': (type, n) => (type === 'A' ? [n === 1 ? '93.184.215.14' : '127.0.0.1'] : []),
    // a public IPv4 address and a loopback IPv6 one
    'mixed.example.test': (type) => (type === 'A' ? ['93.184.215.14'] : ['::1']),
    'nxdomain.example.test': () => null,
  }

  beforeAll(async () => {
    dns = await startFakeDns((q, n) => answers[q.name]?.(q.type, n) ?? null)
    first = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: record('127.0.0.1') })
    second = Bun.serve({ port: first.port, hostname: '127.0.0.2', fetch: record('127.0.0.2') })
  })
  afterAll(() => { dns?.stop(); first?.stop(true); second?.stop(true) })
  const count = (name: string, type = 'A') => dns.queries.filter((q) => q.name === name && q.type === type).length

  test('the connection goes to the given address, whatever the name resolves to (here: nowhere)', async () => {
    hits.length = 0
    const url = new URL(`http://nowhere.invalid:${first.port}/p?q=1`)
    const res = await lenient.fetch({ url, address: '127.0.0.1' }, { method: 'POST', body: 'payload', headers: { 'x-test': '1' } })
    expect(res.status).toBe(200)
    expect(hits).toEqual([{ at: '127.0.0.1', path: '/p?q=1', host: `nowhere.invalid:${first.port}`, body: 'payload' }])
    hits.length = 0
    await lenient.fetch({ url, address: '127.0.0.2' }, { method: 'GET' })
    expect(hits.map((h) => h.at)).toEqual(['127.0.0.2'])
  })

  test('TASKGATE_DNS_SERVERS: one lookup per target, and the request lands on its answer, not on a later one', async () => {
    hits.length = 0
    const o = new Outbound({ allowPrivate: true, dnsServers: [dns.server] })
    const t = await o.target(`http://pin.example.test:${first.port}/hook`)
    expect(t).toMatchObject({ address: '127.0.0.1' })
    expect(count('pin.example.test')).toBe(1)
    const res = await o.fetch(t as Target, { method: 'POST', body: 'x' })
    expect(res.status).toBe(200)
    expect(hits).toEqual([{ at: '127.0.0.1', path: '/hook', host: `pin.example.test:${first.port}`, body: 'x' }])
    expect(count('pin.example.test')).toBe(1) // no second lookup at connect time
    // the next target looks up again and gets the new answer
    expect(await o.target(`http://pin.example.test:${first.port}/hook`)).toMatchObject({ address: '127.0.0.2' })
  })

  test('DNS rebinding: each lookup is checked; the one that answers loopback is refused', async () => {
    const o = new Outbound({ allowPrivate: false, dnsServers: [dns.server] })
    expect(await o.target('http://rebind.example.test/hook')).toMatchObject({ address: '93.184.215.14' })
    const again = await o.target('http://rebind.example.test/hook')
    expect(again).toEqual({ refused: 'the host rebind.example.test resolves to a loopback address', transient: false })
  })

  test('any refused address refuses the name; a name that does not resolve is a transient refusal', async () => {
    const o = new Outbound({ allowPrivate: false, dnsServers: [dns.server] })
    expect(refusal(await o.target('https://mixed.example.test/'))).toBe('the host mixed.example.test resolves to a loopback address')
    expect(await o.target('https://nxdomain.example.test/')).toEqual({ refused: 'the host nxdomain.example.test does not resolve', transient: true })
  })

  test('redirects are never followed', async () => {
    hits.length = 0
    const res = await lenient.fetch({ url: new URL(`http://hook.example.test:${first.port}/redirect`), address: '127.0.0.1' }, { method: 'POST', body: 'x' })
    expect(res.status).toBe(302)
    expect(hits.map((h) => h.path)).toEqual(['/redirect'])
  })

  test('https: the connection goes to the address; SNI and the certificate check use the host name', async () => {
    const dir = join(ROOT, 'test/fixtures/tls') // a test CA and a certificate for hook.example.test only
    const sni: string[] = []
    const server = createTlsServer({ cert: readFileSync(join(dir, 'hook.pem')), key: readFileSync(join(dir, 'hook.key')) }, (sock) => {
      sni.push(String(sock.servername))
      sock.once('data', (d) => {
        const host = /\r\nhost: ([^\r]*)/i.exec(String(d))?.[1]
        sock.end(`HTTP/1.1 200 OK\r\ncontent-length: ${5 + String(host).length}\r\nconnection: close\r\n\r\nhost=${host}`)
      })
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
    const port = (server.address() as AddressInfo).port
    try {
      // a child process trusts the test CA through NODE_EXTRA_CA_CERTS (added to the default store: `tls.serverName` keeps it)
      const run = async (url: string) => {
        const p = Bun.spawn([process.execPath, 'run', join(ROOT, 'test/helpers/pinned-fetch.ts'), url, '127.0.0.1'], { env: { ...process.env, NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem') }, stdout: 'pipe', stderr: 'pipe' })
        const out = await new Response(p.stdout).text()
        await p.exited
        return JSON.parse(out.trim().split('\n').pop()!)
      }
      expect(await run(`https://hook.example.test:${port}/x`)).toEqual({ status: 200, body: `host=hook.example.test:${port}` })
      // the same address under another name: the certificate does not name it → refused, and the error names the URL, not the address
      const other = await run(`https://other.example.test:${port}/x`)
      expect(other.error).toBe('ERR_TLS_CERT_ALTNAME_INVALID')
      expect(other.message).not.toContain('127.0.0.1')
      expect(sni[0]).toBe('hook.example.test') // the handshake that succeeded (the refused one never completes)
    } finally {
      server.close()
    }
  }, 20_000)
})
