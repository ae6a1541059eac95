// A DNS server on loopback (UDP) whose answers a test decides, for TASKGATE_DNS_SERVERS and the
// outbound module's resolver. Packets are read and written by @dnsquery/dns-packet.
import * as packet from '@dnsquery/dns-packet'
import { createSocket } from 'node:dgram'

export interface Query { name: string; type: string }
/** The addresses to answer (empty: no record of that type; null: NXDOMAIN). `n` counts the queries of that name and type, from 1. */
export type Answer = (q: Query, n: number) => string[] | null

export interface FakeDns { port: number; server: string; queries: Query[]; stop(): void }

export async function startFakeDns(answer: Answer): Promise<FakeDns> {
  const queries: Query[] = []
  const sock = createSocket('udp4')
  sock.on('message', (msg, from) => {
    const req = packet.decode(msg)
    const q = req.questions?.[0]
    if (!q) return
    queries.push({ name: q.name, type: q.type })
    const n = queries.filter((x) => x.name === q.name && x.type === q.type).length
    const found = q.type === 'A' || q.type === 'AAAA' ? answer({ name: q.name, type: q.type }, n) : []
    const res = packet.encode({
      type: 'response', id: req.id, flags: packet.RECURSION_DESIRED | packet.RECURSION_AVAILABLE | (found === null ? 3 : 0), // rcode 3: NXDOMAIN
      questions: [q], answers: (found ?? []).map((data) => ({ type: q.type as 'A' | 'AAAA', name: q.name, ttl: 0, data })),
    })
    sock.send(res, from.port, from.address)
  })
  await new Promise<void>((r) => sock.bind(0, '127.0.0.1', () => r()))
  const port = sock.address().port
  return { port, server: `127.0.0.1:${port}`, queries, stop: () => sock.close() }
}
