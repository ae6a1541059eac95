// A client journey written against types generated from /openapi.json (openapi-typescript) and
// driven with openapi-fetch: no project code on the client side. test/interop/client.test.ts
// generates generated/api.d.ts from a running server, type-checks this file with it (a document
// that loses a field, a status or a schema breaks the build) and then runs the journey.
import createClient from 'openapi-fetch'
import type { paths } from './generated/api.d.ts'

export interface JourneyResult { agentId: string; keyPrefix: string; taskId: string; receiptCid: string; signatureValid: boolean; jobStatusUrl: string }

export async function journey(baseUrl: string, login: string, password: string): Promise<JourneyResult> {
  const api = createClient<paths>({ baseUrl })
  const signup = await api.POST('/api/v1/auth/signup', { body: { login, password } })
  if (!signup.data) throw new Error(`signup: ${signup.response.status} ${JSON.stringify(signup.error)}`)
  const bearer = { authorization: `Bearer ${signup.data.accessToken}` }

  const agent = await api.POST('/api/v1/agents/register', { headers: bearer, body: { displayName: 'Typed client bot', capabilities: ['sentiment_analysis'] } })
  if (!agent.data) throw new Error(`register: ${agent.response.status}`)
  const agentId: string = agent.data.agentId
  const agentKey: string = agent.data.apiKey

  const key = await api.POST('/api/v1/operator/keys', { headers: bearer, body: { name: 'typed' } })
  if (!key.data) throw new Error(`key: ${key.response.status}`)
  const keyPrefix: string = key.data.keyPrefix

  const task = await api.POST('/api/v1/tasks/submit', {
    headers: { 'x-api-key': agentKey, 'Idempotency-Key': 'typed-journey-1' },
    params: { query: { wait: 30 } },
    body: { agentId, taskType: 'sentiment_analysis', prompt: 'The typed client works, and the receipt verifies.' },
  })
  if (!task.data) throw new Error(`submit: ${task.response.status} ${JSON.stringify(task.error)}`)
  const receiptCid = task.data.receiptCid
  if (!receiptCid) throw new Error('no receipt')

  const proof = await api.GET('/api/v1/public/proof/{cid}', { params: { path: { cid: receiptCid } } })
  if (!proof.data) throw new Error(`proof: ${proof.response.status}`)

  const job = await api.POST('/api/v1/compute', { headers: { 'x-api-key': agentKey }, body: { prompt: 'Summarise: typed clients catch broken documents.' } })
  if (!job.data) throw new Error(`compute: ${job.response.status}`)

  const revoked = await api.DELETE('/api/v1/operator/keys/{keyId}', { headers: bearer, params: { path: { keyId: key.data.id } } })
  if (!revoked.data?.success) throw new Error(`revoke: ${revoked.response.status}`)

  const v = proof.data.verification
  return { agentId, keyPrefix, taskId: task.data.id, receiptCid, signatureValid: 'signatureValid' in v && v.signatureValid, jobStatusUrl: job.data.statusUrl }
}
