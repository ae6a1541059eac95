// Run as a child process by test/unit/outbound.test.ts, with NODE_EXTRA_CA_CERTS naming the test CA
// (test/fixtures/tls): one Outbound.fetch of argv[2] pinned to the address argv[3], its outcome as JSON.
import { Outbound } from '../../src/lib/outbound'

const [url, address] = process.argv.slice(2) as [string, string]
const outbound = new Outbound({ allowPrivate: true, dnsServers: [] })
try {
  const res = await outbound.fetch({ url: new URL(url), address }, { method: 'GET', signal: AbortSignal.timeout(5000) })
  console.log(JSON.stringify({ status: res.status, body: await res.text() }))
} catch (e) {
  const err = e as Error & { code?: string }
  console.log(JSON.stringify({ error: err.code ?? err.name, message: err.message }))
}
