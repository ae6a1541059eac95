// @taskgate/sdk: a typed client for TaskGate's REST API (types generated from /openapi.json by
// openapi-typescript into schema.d.ts, requests by openapi-fetch), plus two helpers that need no
// trust in the server: verifyReceipt (viem) and payWithX402 (an EIP-3009 authorization for a 402).
import createClient, { type Client, type ClientOptions } from 'openapi-fetch'
import type { paths } from './schema'

export type { components, operations, paths } from './schema'
export { verifyReceipt, type ReceiptCheck, type VerifyOptions } from './receipt'
export { payWithX402, type X402Options, type X402Payer, type X402Requirement } from './x402'

export interface TaskGateClientOptions extends Omit<ClientOptions, 'baseUrl' | 'headers'> {
  /** the server, e.g. http://127.0.0.1:8787 */
  baseUrl: string
  /** an API key (`tg_…`), sent as `x-api-key` */
  apiKey?: string
  /** an operator's bearer token (POST /api/v1/auth/login), sent as `Authorization: Bearer` */
  token?: string
  /** more headers for every request */
  headers?: Record<string, string>
}

export type TaskGateClient = Client<paths>

/**
 * An openapi-fetch client typed by TaskGate's OpenAPI document: `client.POST('/api/v1/tasks/submit',
 * { body, params: { query: { wait: 30 } } })` answers `{ data, error, response }` with `data` typed
 * by the operation's success schema and `error` by its problem schemas.
 */
export function createTaskGateClient(options: TaskGateClientOptions): TaskGateClient {
  const { baseUrl, apiKey, token, headers, ...rest } = options
  return createClient<paths>({
    ...rest,
    baseUrl: baseUrl.replace(/\/+$/, ''),
    headers: { ...headers, ...(apiKey ? { 'x-api-key': apiKey } : {}), ...(token ? { authorization: `Bearer ${token}` } : {}) },
  })
}
