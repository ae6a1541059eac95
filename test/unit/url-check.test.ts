// Webhook URL ranges (decisions.md §14): loopback, private, link-local, shared, metadata and
// multicast addresses are refused, also when a host name resolves to one (checked again at delivery).
import { describe, expect, test } from 'bun:test'
import { addressBlocked, urlProblem } from '../../src/webhooks/url-check'

describe('webhook URL check', () => {
  test('address ranges', () => {
    for (const ip of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '::1', '::', 'fe80::1', 'fd00::1', 'fc00::2', '::ffff:127.0.0.1', '::ffff:10.0.0.1', 'fd00:ec2::254']) {
      expect(addressBlocked(ip), ip).toBe(true)
    }
    for (const ip of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700::1111']) expect(addressBlocked(ip), ip).toBe(false)
  })

  test('URLs: scheme, literals, names that resolve to private addresses; the override', async () => {
    expect(await urlProblem('ftp://example.com/x', false)).toMatch(/http/)
    expect(await urlProblem('http://user:pw@93.184.216.34/', false)).toMatch(/credentials/)
    expect(await urlProblem('http://169.254.169.254/latest/meta-data', false)).toMatch(/169\.254\.169\.254/)
    expect(await urlProblem('http://[::1]:8080/', false)).toMatch(/::1/)
    expect(await urlProblem('http://localhost:9/hook', false)).toMatch(/resolves to/)
    expect(await urlProblem('http://metadata.google.internal/', false)).toMatch(/metadata/)
    expect(await urlProblem('https://93.184.216.34/hook', false)).toBeNull()
    expect(await urlProblem('http://127.0.0.1:9/hook', true)).toBeNull()
  })
})
