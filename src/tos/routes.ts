// HTTP for the Terms of Service (docs/governance.md, "Terms of Service"): versions (admin), the
// operator's status and acceptance.
import { defineRoute } from '../http/route'
import type { Services } from '../services'
import { PublishTosBody, TosAcceptBody, TosAcceptResult, TosStatus, TosVersionView } from './schema'
import { t } from 'elysia'

export function tosRoutes(s: Services) {
  return [
    defineRoute({
      method: 'GET', path: '/api/v1/admin/tos', auth: 'bearer', admin: true, tags: ['Admin'],
      summary: 'Terms of Service versions, newest (current) first',
      description: 'A fresh install has version `1` with a default text. The newest published version is the current one.',
      responses: { 200: { description: 'versions', schema: t.Array(TosVersionView) } },
      handler: () => s.tos.versions(),
    }),
    defineRoute({
      method: 'POST', path: '/api/v1/admin/tos', auth: 'bearer', admin: true, tags: ['Admin'], body: PublishTosBody,
      summary: 'Publish a new current Terms of Service version',
      description: 'The new version becomes current at once: operators see `accepted: false` until they accept it, and with `TASKGATE_TOS_REQUIRED=1` their submissions and compute requests get 403 TOS_NOT_ACCEPTED meanwhile. An existing version name → 409 TOS_VERSION_EXISTS.',
      errors: { 409: ['TOS_VERSION_EXISTS'] },
      responses: { 200: { description: 'the new current version', schema: TosVersionView } },
      handler: ({ body }) => s.tos.publish(body.version, body.text),
    }),
    defineRoute({
      method: 'GET', path: '/api/v1/operator/tos/status', auth: 'bearer', tags: ['Governance'],
      summary: 'Whether the operator accepted the current Terms of Service',
      responses: { 200: { description: 'status', schema: TosStatus } },
      handler: ({ auth }) => s.tos.status(auth.operator.id),
    }),
    defineRoute({
      method: 'POST', path: '/api/v1/operator/tos/accept', auth: 'bearer', tags: ['Governance'], body: TosAcceptBody,
      summary: 'Accept the current Terms of Service',
      description: '`version` must be the current one (else 409 TOS_VERSION_NOT_CURRENT with `currentVersion`). Stores on IPFS an acceptance document signed by the service signer (EIP-712 typed data `TosAcceptance { operatorId, version, textHash, acceptedAt }`, domain `{ name: "TaskGate", version: "1", chainId }`, with `signature` and `signer`, and the accepted text) and records a system task (`taskType: "system"`, COMPLETED, no credit) among the operator\'s tasks. Accepting the same version again answers the first acceptance.',
      errors: { 409: ['TOS_VERSION_NOT_CURRENT'] },
      responses: { 200: { description: 'accepted', schema: TosAcceptResult, links: { task: { route: 'GET /api/v1/tasks/:id', parameters: { id: '$response.body#/taskId' }, description: 'the system task' } } } },
      handler: ({ auth, body }) => s.tos.accept(auth.operator.id, body.version),
    }),
  ]
}
