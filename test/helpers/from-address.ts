// A request from a chosen loopback source address (127.0.0.2, 127.0.0.10, …): the server sees it as
// the client address, so per-address limits can be tested from one machine. node:http, because
// fetch cannot bind a local address. Linux accepts any 127/8 source; elsewhere the request fails
// and the calling test says it is skipped.
import { request } from 'node:http'

export interface FromAddressResponse { status: number; headers: Record<string, string | string[] | undefined>; body: any }

export function postFrom(localAddress: string, port: number, path: string, body: unknown, headers: Record<string, string> = {}): Promise<FromAddressResponse> {
  const data = JSON.stringify(body)
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', localAddress, headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(data)), ...headers } }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => { text += c })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text ? JSON.parse(text) : null }))
    })
    req.on('error', reject)
    req.end(data)
  })
}
