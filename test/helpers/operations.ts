// The operations of the server's /openapi.json, and an operator with one of every resource, for
// the tests generated from the document (fuzz.test.ts, authz-matrix.test.ts).
import type { Contract } from './contract'
import type { ReqOptions, Res, TestServer } from './server'

/**
 * Server env for suites that drive every operation from one client address with a few operators
 * (fuzzing, the authorization matrix): the per-client abuse limits would otherwise end the run
 * early. Nothing dials out: GitHub sign-in points at a closed loopback port.
 */
export const LIFTED_LIMITS_ENV: Record<string, string> = Object.fromEntries([
  ...['TASKGATE_BEARER_RPM', 'TASKGATE_LOGIN_FAILURES_PER_LOGIN_ADDRESS', 'TASKGATE_LOGIN_FAILURES_PER_LOGIN', 'TASKGATE_LOGIN_FAILURES_PER_ADDRESS',
    'TASKGATE_SIGNUPS_PER_ADDRESS_PER_HOUR', 'TASKGATE_FAUCET_PER_ADDRESS_PER_DAY', 'TASKGATE_UPLOADS_PER_DAY'].map((k) => [k, '1000000000']),
  ['TASKGATE_GITHUB_WEB_URL', 'http://127.0.0.1:9'], ['TASKGATE_GITHUB_API_URL', 'http://127.0.0.1:9'],
])

export type AuthKind = 'none' | 'optional' | 'bearer' | 'apiKey' | 'either' | 'admin'

export interface Param { name: string; in: 'path' | 'query' | 'header' | 'cookie'; required: boolean; schema: unknown }

export interface Operation {
  /** `METHOD /template` */
  key: string
  method: string
  template: string
  op: Record<string, any>
  /** `x-taskgate-auth`, else derived from `security`. */
  auth: AuthKind
  params: Param[]
  /** Media type → schema of the request body; null when the operation takes none. */
  body: { required: boolean; content: Record<string, unknown> } | null
  /** Answers with an event stream (read status and headers, then let go). */
  sse: boolean
  mutating: boolean
}

/** Which credential kinds an operation takes, from `security` (OpenAPI) when it has no `x-taskgate-auth`. */
function authOf(op: Record<string, any>, doc: any): AuthKind {
  const x = op['x-taskgate-auth']
  if (typeof x === 'string') return x as AuthKind
  const sec: Record<string, unknown>[] = op.security ?? doc.security ?? []
  if (!sec.length) return 'none'
  const schemes = (r: Record<string, unknown>) => Object.keys(r)
  const kinds = new Set(sec.flatMap((r) => schemes(r).map((n) => doc.components?.securitySchemes?.[n]?.type === 'http' ? 'bearer' : 'apiKey')))
  const optional = sec.some((r) => schemes(r).length === 0)
  if (optional) return 'optional'
  return kinds.has('bearer') && kinds.has('apiKey') ? 'either' : kinds.has('bearer') ? 'bearer' : 'apiKey'
}

export function operationsOf(c: Contract): Operation[] {
  const doc = c.doc
  const out: Operation[] = []
  for (const e of c.ops) {
    const item = doc.paths[e.template] ?? {}
    const params = new Map<string, Param>()
    for (const p0 of [...(item.parameters ?? []), ...(e.op.parameters ?? [])]) {
      const p = c.deref(p0)
      if (!p?.name) continue
      params.set(`${p.in}:${p.name}`, { name: p.name, in: p.in, required: !!p.required || p.in === 'path', schema: p.schema ?? {} })
    }
    const rb = e.op.requestBody ? c.deref(e.op.requestBody) : null
    const content: Record<string, unknown> = {}
    for (const [mt, m] of Object.entries<any>(rb?.content ?? {})) content[mt] = m?.schema ?? {}
    const responses = Object.values<any>(e.op.responses ?? {}).map((r) => c.deref(r))
    const sse = responses.some((r) => r?.content?.['text/event-stream'] || /event-stream/.test(r?.description ?? ''))
    out.push({
      key: `${e.method} ${e.template}`, method: e.method, template: e.template, op: e.op, auth: authOf(e.op, doc),
      params: [...params.values()], body: rb ? { required: !!rb.required, content } : null, sse,
      mutating: !['GET', 'HEAD', 'OPTIONS'].includes(e.method),
    })
  }
  return out
}

/** The path of an operation with its parameters filled in (encoded). */
export function fillPath(template: string, values: Record<string, string>): string {
  return template.replace(/\{([^}]+)\}/g, (_, n: string) => encodeURIComponent(values[n] ?? ''))
}

/**
 * Sends one request through the contract-checked client. An event stream is read until it ends by
 * itself (a finished task or job replays its events and ends) or for at most `streamMs`, then let
 * go; its complete events are checked against the document's itemSchema (helpers/contract.ts).
 * Every request gives up after `timeoutMs`.
 */
export async function send(s: TestServer, op: Operation, url: string, o: ReqOptions, timeoutMs = 20_000, streamMs = 2_000): Promise<Res> {
  if (!op.sse) return s.req(op.method, url, { ...o, signal: AbortSignal.timeout(timeoutMs) })
  const headers: Record<string, string> = { ...o.headers }
  if (o.token) headers.authorization = `Bearer ${o.token}`
  if (o.key) headers['x-api-key'] = o.key
  // an operation that may answer a stream can still take a body (the doors' `stream: true`)
  const body = o.raw ?? (o.body === undefined ? undefined : JSON.stringify(o.body))
  if (o.body !== undefined && o.raw === undefined) headers['content-type'] ??= 'application/json'
  const ac = new AbortController()
  const timer = setTimeout(() => ac.abort(), timeoutMs)
  try {
    const res = await fetch(s.url + url, { method: op.method, headers, body, signal: ac.signal })
    const streaming = (res.headers.get('content-type') ?? '').startsWith('text/event-stream')
    const text = streaming ? await readFor(res, streamMs) : await res.text()
    if (streaming) ac.abort()
    await s.checkContract(op.method, url, { status: res.status, headers: res.headers, text })
    let parsed: any = text
    try { parsed = text ? JSON.parse(text) : null } catch { /* not JSON */ }
    return { status: res.status, headers: res.headers, body: parsed, text }
  } finally { clearTimeout(timer) }
}

/** The text of a streamed body: until it ends, or what arrived within `ms`. */
async function readFor(res: Response, ms: number): Promise<string> {
  const reader = res.body!.getReader()
  const dec = new TextDecoder()
  let text = ''
  const deadline = Date.now() + ms
  try {
    for (;;) {
      const left = deadline - Date.now()
      if (left <= 0) break
      let timer: ReturnType<typeof setTimeout> | undefined
      const r = await Promise.race([reader.read(), new Promise<null>((resolve) => { timer = setTimeout(() => resolve(null), left) })])
      clearTimeout(timer)
      if (!r || r.done) break
      text += dec.decode(r.value, { stream: true })
    }
  } catch { /* aborted */ }
  reader.cancel().catch(() => {})
  return text
}

/**
 * Reads an event stream to its end (a finished job or task replays its last events and ends); its
 * events are checked against the document like every other response.
 */
export async function readStream(s: TestServer, path: string, token: string, timeoutMs = 20_000): Promise<string> {
  const res = await fetch(s.url + path, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(timeoutMs) })
  const text = await res.text()
  await s.checkContract('GET', path, { status: res.status, headers: res.headers, text })
  return text
}

/** An operator's resources: one of every kind the routes take ids of. */
export interface Owner {
  login: string
  token: string
  operatorId: string
  /** An operator API key (not bound to an agent). */
  key: { key: string; id: string; keyPrefix: string; name: string }
  agent: { agentId: string; apiKey: string; keyId: string; displayName: string; description: string }
  /** A second agent of the same operator (its key is the "agent key on another agent's resources"). */
  agentB: { agentId: string; apiKey: string; keyId: string }
  task: { id: string; prompt: string; output: string; ipfsCid: string | null; receiptCid: string | null; attestationUid: string | null; verificationProof: string | null }
  job: { jobId: string; prompt: string; events: string }
  upload: { cid: string }
  wallet: string
  txHash: string
  /** A pending approval request of the owner's first agent (only with `o.approval`; needs the test clock). */
  approval: { id: string; taskId: string } | null
}

/** A fresh EVM-style address (not bound to anyone). */
export function randomAddress(): string {
  return '0x' + [...crypto.getRandomValues(new Uint8Array(20))].map((b) => b.toString(16).padStart(2, '0')).join('')
}

const must = <T>(r: { status: number; text: string; body: T }, ok: number[], what: string): T => {
  if (!ok.includes(r.status)) throw new Error(`${what}: ${r.status} ${r.text.slice(0, 400)}`)
  return r.body
}

/**
 * Signs up an operator (made ENTERPRISE with credits by the admin, so no tier cap or balance
 * gets in the way) and creates its agent, second agent, key, a finished task, a compute job,
 * an upload and a faucet transfer. `tag` makes every private string unique to this operator.
 */
export async function createOwner(s: TestServer, admin: string, login: string, tag: string, o: { approval?: boolean } = {}): Promise<Owner> {
  const token = await s.signup(login)
  const operatorId = must(await s.get('/api/v1/auth/me', { token }), [200], 'me').id as string
  must(await s.patch(`/api/v1/admin/operators/${operatorId}`, { tierOverride: 'ENTERPRISE' }, { token: admin }), [200], 'tier')
  must(await s.post('/api/v1/admin/credits', { operatorId, amount: 1_000_000, reason: 'contract tests' }, { token: admin }), [200], 'credits')
  const keyName = `key ${tag}`
  const key = must(await s.post('/api/v1/operator/keys', { name: keyName, rateLimitRpm: 1_000_000 }, { token }), [200], 'key') as any
  const displayName = `Agent ${tag}`
  const description = `private description ${tag}`
  const agent = must(await s.post('/api/v1/agents/register', { displayName, description, capabilities: ['general', 'sentiment_analysis'] }, { token }), [201], 'agent') as any
  const agentB = must(await s.post('/api/v1/agents/register', { displayName: `Other agent ${tag}`, capabilities: ['general'] }, { token }), [201], 'agent B') as any
  const prompt = `secret prompt ${tag}: the quarterly numbers of ${tag} look fine and the plan holds.`
  const task = must(await s.post('/api/v1/tasks/submit?wait=20', { agentId: agent.agentId, taskType: 'general', prompt }, { key: key.key }), [200], 'task') as any
  const jobPrompt = `secret compute prompt ${tag}`
  const job = must(await s.post('/api/v1/compute', { prompt: jobPrompt, agentId: agent.agentId }, { token }), [202], 'compute') as any
  const events = await readStream(s, `/api/v1/compute/${job.jobId}/status`, token) // until it has finished
  const upload = must(await s.post('/v1/prior/claim', { note: `upload ${tag}` }, { token }), [201], 'upload') as any
  const wallet = randomAddress()
  const drip = must(await s.post('/api/v1/faucet/usdc', { wallet, amount: 1 }), [200], 'faucet') as any
  let approval: Owner['approval'] = null
  if (o.approval) { // a held task: the threshold activates 30 s later (test clock), then a high-value action waits for approval
    must(await s.patch('/api/v1/operator/guardrails', { approvalThreshold: 1000 }, { token }), [200], 'guardrails')
    must(await s.post('/api/v1/admin/clock/advance', { ms: 30_000 }, { token: admin }), [200], 'clock')
    const held = must(await s.post('/api/v1/tasks/submit?wait=5', { agentId: agent.agentId, taskType: 'general', prompt: `held prompt ${tag}`, action: { operation: 'payout', requestedValue: 5000, currency: 'USDC' } }, { key: key.key }), [202], 'held task') as any
    approval = { id: held.approvalId, taskId: held.id }
  }
  return {
    login, token, operatorId,
    key: { key: key.key, id: key.id, keyPrefix: key.keyPrefix, name: keyName },
    agent: { agentId: agent.agentId, apiKey: agent.apiKey, keyId: agent.keyId, displayName, description },
    agentB: { agentId: agentB.agentId, apiKey: agentB.apiKey, keyId: agentB.keyId },
    task: { id: task.id, prompt, output: String(task.output ?? ''), ipfsCid: task.ipfsCid ?? null, receiptCid: task.receiptCid ?? null, attestationUid: task.attestationUid ?? null, verificationProof: task.verificationProof ?? null },
    job: { jobId: job.jobId, prompt: jobPrompt, events },
    upload: { cid: upload.cid },
    wallet,
    txHash: drip.devWalletTxHash,
    approval,
  }
}

/** Whether a path answers errors in OpenAI's shape (the OpenAI-compatible routes, docs/doors.md): the server's own rule. */
export { isOpenAiPath } from '../../src/http/errors'

/** The problem code of an error answer: `code` of a problem, or OpenAI's `error.code` (lower case) upper-cased. */
export function errorCode(r: { body?: any }): string | undefined {
  if (typeof r.body?.code === 'string') return r.body.code
  const c = r.body?.error?.code
  return typeof c === 'string' ? c.toUpperCase() : undefined
}
