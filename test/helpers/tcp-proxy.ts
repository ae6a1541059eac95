// A TCP relay on loopback between a server and its PostgreSQL, for fault tests: freeze() stops
// relaying in both directions (bytes are held, connections stay open: a network that went silent),
// thaw() lets them through again.
import type { Socket, TCPSocketListener } from 'bun'

export interface TcpProxy { port: number; freeze(): void; thaw(): void; close(): void }

interface Pair { client: Socket<Side>; upstream: Socket<Side> | null; toUpstream: Uint8Array[]; toClient: Uint8Array[] }
interface Side { pair: Pair; isClient: boolean }

export function tcpProxy(targetPort: number): TcpProxy {
  let frozen = false
  const pairs = new Set<Pair>()
  const flush = (p: Pair) => {
    if (frozen) return
    if (p.upstream) for (const b of p.toUpstream.splice(0)) p.upstream.write(b)
    for (const b of p.toClient.splice(0)) p.client.write(b)
  }
  const server: TCPSocketListener<Side> = Bun.listen<Side>({
    hostname: '127.0.0.1', port: 0,
    socket: {
      async open(client) {
        const pair: Pair = { client, upstream: null, toUpstream: [], toClient: [] }
        client.data = { pair, isClient: true }
        pairs.add(pair)
        pair.upstream = await Bun.connect<Side>({
          hostname: '127.0.0.1', port: targetPort,
          socket: {
            open(u) { u.data = { pair, isClient: false } },
            data(_u, chunk) { pair.toClient.push(new Uint8Array(chunk)); flush(pair) },
            close() { pair.client.end(); pairs.delete(pair) },
            error() { pair.client.end() },
          },
        }).catch(() => { client.end(); return null })
        flush(pair)
      },
      data(client, chunk) { client.data.pair.toUpstream.push(new Uint8Array(chunk)); flush(client.data.pair) },
      close(client) { client.data?.pair.upstream?.end(); if (client.data) pairs.delete(client.data.pair) },
      error() {},
    },
  })
  return {
    port: server.port,
    freeze: () => { frozen = true },
    thaw: () => { frozen = false; for (const p of pairs) flush(p) },
    close: () => { for (const p of pairs) { p.client.end(); p.upstream?.end() } server.stop(true) },
  }
}
