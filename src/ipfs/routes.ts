// HTTP for IPFS: a read-only trustless gateway for content this node holds, and context uploads.
import { t } from 'elysia'
import { badRequest, notFound, ProblemError } from '../http/errors'
import { defineRoute } from '../http/route'
import { Cid } from '../http/schemas'
import type { Services } from '../services'
import { parseCid } from './node'

export function ipfsRoutes(s: Services) {
  return [
    defineRoute({
      method: 'GET', path: '/ipfs/:cid', auth: 'none', tags: ['IPFS'], params: t.Object({ cid: Cid() }),
      query: t.Object({ format: t.Optional(t.Union([t.Literal('raw'), t.Literal('car')], { description: 'raw: the block itself; car: a CAR v1 of the DAG (else see Accept)' })) }),
      requestHeaders: ['Accept'],
      summary: 'Content this node holds: the file (default), `?format=raw` (one block) or `?format=car`',
      description: 'A read-only trustless gateway for content this node holds. Without `?format=` (or an Accept of application/vnd.ipld.raw or .car) it answers the UnixFS file: `application/json` when the bytes start with `{` or `[`, else `application/octet-stream`.',
      errors: { 404: ['NOT_FOUND'], 406: ['NOT_A_FILE'] },
      responses: { 200: {
        description: 'the content, immutable',
        content: { 'application/octet-stream': null, 'application/json': t.Unknown({ description: 'a JSON document (e.g. a task document or receipt)' }), 'application/vnd.ipld.raw': null, 'application/vnd.ipld.car': null },
        headers: { ETag: 'ETag', 'Cache-Control': 'Cache-Control', 'X-Ipfs-Roots': 'X-Ipfs-Roots' },
      } },
      handler: async ({ params, query, request }) => {
        const cid = parseCid(params.cid)
        if (!cid) throw badRequest('INVALID_CID', 'not a valid CID')
        if (!s.ipfs.has(cid)) throw notFound('content')
        const accept = request.headers.get('accept') ?? ''
        const format = query.format ?? (accept.includes('application/vnd.ipld.car') ? 'car' : accept.includes('application/vnd.ipld.raw') ? 'raw' : 'file')
        const common = { 'cache-control': 'public, max-age=29030400, immutable', 'x-content-type-options': 'nosniff', etag: `"${cid}.${format}"`, 'x-ipfs-roots': cid.toString() }
        if (format === 'raw') return new Response(s.ipfs.block(cid) as BodyInit | null, { headers: { ...common, 'content-type': 'application/vnd.ipld.raw' } })
        if (format === 'car') return new Response(s.ipfs.carStream(cid), { headers: { ...common, 'content-type': 'application/vnd.ipld.car; version=1; order=dfs; dups=n' } })
        const bytes = await s.ipfs.cat(cid).catch(() => { throw new ProblemError(406, 'NOT_A_FILE', 'this CID is not a UnixFS file; ask for ?format=raw or ?format=car') })
        const looksJson = bytes[0] === 0x7b || bytes[0] === 0x5b
        return new Response(bytes as BodyInit, { headers: { ...common, 'content-type': looksJson ? 'application/json' : 'application/octet-stream' } })
      },
    }),
    defineRoute({
      method: 'POST', path: '/v1/prior/claim', auth: 'either', upload: true, tags: ['IPFS'],
      summary: 'Upload a context payload (multipart `file`, or any JSON body) to IPFS',
      description: `multipart/form-data with a \`file\` part (a file, or a plain field whose text is stored; optional \`name\`), or a JSON body stored as JSON. Limits: ${s.config.uploadBodyLimit} bytes per upload body (413 BODY_TOO_LARGE); per operator ${s.config.uploads.perDay} uploads and ${s.config.uploads.bytesPerDay} bytes per rolling 24 h (429 UPLOAD_QUOTA_EXCEEDED). The body is read only after the credential is checked. Content is public to anyone who knows its CID. 201 \`{ cid, size, name? }\`.`,
      errors: { 400: ['INVALID_JSON', 'INVALID_MULTIPART', 'FILE_REQUIRED', 'BODY_REQUIRED'], 429: ['UPLOAD_QUOTA_EXCEEDED'] },
      responses: { 201: {
        description: 'stored', schema: t.Object({ cid: t.String(), size: t.Integer({ minimum: 0 }), name: t.Optional(t.String()) }),
        links: { content: { route: 'GET /ipfs/:cid', parameters: { cid: '$response.body#/cid' }, description: 'read it back' } },
      } },
      handler: async ({ auth, request, readBody, set }) => {
        s.uploads.assertQuota(auth.operator.id, Number(request.headers.get('content-length') ?? 0))
        const raw = await readBody()
        const type = request.headers.get('content-type') ?? ''
        let bytes: Uint8Array
        let name: string | undefined
        if (type.startsWith('multipart/form-data')) {
          const form = await new Response(raw as BodyInit, { headers: { 'content-type': type } }).formData().catch(() => { throw badRequest('INVALID_MULTIPART', 'the multipart body could not be parsed') })
          // `file` is a part with a file name (its bytes) or a plain field (its text): the document
          // gives it as a string of bytes, and RFC 7578 does not require a filename (issue 30).
          const file = form.get('file')
          if (file === null) throw badRequest('FILE_REQUIRED', 'multipart uploads need a `file` field')
          bytes = typeof file === 'string' ? new TextEncoder().encode(file) : new Uint8Array(await file.arrayBuffer())
          const n = form.get('name')
          name = typeof n === 'string' ? n : typeof file === 'string' ? undefined : (file as File).name || undefined
        } else {
          const text = Buffer.from(raw).toString('utf8')
          if (text.trim() === '') throw badRequest('BODY_REQUIRED', 'send a JSON body or a multipart file')
          let value: unknown
          try { value = JSON.parse(text) } catch { throw new ProblemError(400, 'INVALID_JSON', 'the request body is not valid JSON') }
          bytes = new TextEncoder().encode(JSON.stringify(value))
        }
        const cid = await s.uploads.store(auth.operator.id, bytes)
        set.status = 201
        return name ? { cid, size: bytes.byteLength, name } : { cid, size: bytes.byteLength }
      },
    }),
  ]
}
