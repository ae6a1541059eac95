// The public explorer's pages (/explorer/<kind>/<id>) are pages of the console (ui/pages/explorer.js),
// which fetches the public record and the signer list and checks every signature in the browser.
// The server answers each path with the console, 200 when the record exists here and 404 (still the
// console, which then shows "not found") when it does not.
import { t } from 'elysia'
import { defineRoute, type RouteDef } from '../http/route'
import { parseCid } from '../ipfs/node'
import type { Services } from '../services'

/** The console's page, answered with `status` (ui-assets.ts). */
export type ConsolePage = (request: Request, status: number) => Response

const Loose = (description: string) => t.Object({ id: t.String({ minLength: 1, maxLength: 200, description }) })

export function explorerRoutes(s: Services, consolePage: ConsolePage): RouteDef[] {
  const page = (path: string, what: string, found: (id: string) => boolean) => defineRoute({
    method: 'GET', path, auth: 'none', tags: ['Proofs'], hidden: true, params: Loose(what),
    summary: `Explorer page of ${what} (the console; verified in the browser)`, responses: { 200: { description: 'HTML' }, 404: { description: 'HTML: the console showing "not found"' } },
    handler: ({ params, request }) => consolePage(request, found(params.id) ? 200 : 404),
  })
  return [
    page('/explorer/receipt/:id', 'a receipt or other document by CID', (id) => { const cid = parseCid(id); return cid !== null && s.ipfs.has(cid) }),
    page('/explorer/attestation/:id', 'an attestation by UID', (id) => s.taskStore.attestation(id.toLowerCase()) !== null),
    page('/explorer/verification/:id', 'a verification proof', (id) => s.taskStore.idByVerificationProof(id.toLowerCase()) !== null),
    page('/explorer/agent/:id', 'an agent passport', (id) => s.agents.byId(id) !== null),
  ]
}
