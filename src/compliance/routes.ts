// HTTP for compliance certificates (docs/compliance.md): list and generate.
import { t } from 'elysia'
import { defineRoute } from '../http/route'
import type { Services } from '../services'
import { Certificate } from './schema'

const VERIFY = 'It verifies from itself alone: `certHash` = keccak256 of the canonical JSON (keys sorted recursively, no whitespace) of the certificate without `certHash`, `signature`, `signer` and `ipfsCid`; `signature` = EIP-191 personal_sign of the 32 bytes of `certHash` by `signer`; `ipfsCid` holds the certificate without `ipfsCid` (docs/compliance.md).'

export function complianceRoutes(s: Services) {
  const tags = ['Governance']
  return [
    defineRoute({
      method: 'GET', path: '/api/v1/operator/compliance', auth: 'bearer', tags,
      summary: 'The operator\'s compliance certificates, newest first (PRO and ENTERPRISE)',
      description: `On-demand certificates and the monthly ones the scheduler issues at 00:00 UTC on the 1st for the month that ended. FREE → 403 TIER_REQUIRED. ${VERIFY}`,
      errors: { 403: ['TIER_REQUIRED'] },
      responses: { 200: { description: 'certificates', schema: t.Array(Certificate) } },
      handler: ({ auth }) => { s.compliance.assertTier(auth.operator); return s.compliance.list(auth.operator.id) },
    }),
    defineRoute({
      method: 'POST', path: '/api/v1/operator/compliance/generate', auth: 'bearer', tags,
      summary: 'Issue a compliance certificate for the current month so far (PRO and ENTERPRISE)',
      description: `Covers 00:00 UTC on the 1st of the current month until now: task counts by status, verified tasks and the verification rate, credits spent (net of refunds) and each agent's state root; valid for a year. FREE → 403 TIER_REQUIRED. ${VERIFY}`,
      errors: { 403: ['TIER_REQUIRED'] },
      responses: { 200: { description: 'the certificate', schema: Certificate } },
      handler: ({ auth }) => s.compliance.generate(auth.operator),
    }),
  ]
}
