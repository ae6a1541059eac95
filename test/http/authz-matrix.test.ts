// The authorization matrix, generated from the server's own /openapi.json: every operation ×
// every identity that must not reach the owner's resources → the documented refusal
// (docs/security.md, "Who calls, and what they get"; docs/foundation.md, "Errors"), with no owner
// data in what comes back, and a re-read after every refused mutating call proving nothing changed.
//
// Identities: anonymous; a forged bearer token (the owner's claims signed with another secret)
// and a forged API key; the owner's revoked key; the owner's logged-out token; the owner's expired
// token (test clock moved past the 12 h lifetime; run last); another operator's token and key on
// the owner's resources; the owner's second agent's key on the first agent's resources; a
// suspended operator's token and key; and the owner (not an admin) on admin routes.
//
// A new route joins by itself. Its path parameters are filled from PARAMS below (by name, and
// for `id`/`cid` by path); an operation with a path parameter PARAMS has no value for fails, so
// no route can be added without being covered.
import { afterAll, describe, expect, test } from 'bun:test'
import { createOwner, errorCode, fillPath, LIFTED_LIMITS_ENV, operationsOf, send, type Operation, type Owner } from '../helpers/operations'
import { SchemaArbs } from '../helpers/schema-arb'
import { startServer, type Res } from '../helpers/server'

const s = await startServer({ ...LIFTED_LIMITS_ENV, TASKGATE_TEST_CLOCK: '1' })
afterAll(async () => { await s.cleanup() })

const contract = (await s.contract())!
if (!contract) throw new Error('GET /openapi.json failed')
const operations = operationsOf(contract)
const arbs = new SchemaArbs((ref) => contract.deref({ $ref: ref }))
const PASSWORD = 'operator-password'

// ------------------------------------------------------------------ the owner and the others

let admin = await s.setupAdmin()
const owner: Owner = await createOwner(s, admin, 'owner-zq7', 'zq7', { approval: true })
const provider = (await s.post('/api/v1/admin/providers', { name: 'matrix-provider', kind: 'openai', baseUrl: 'http://127.0.0.1:9/v1', models: ['matrix-model'], keys: [{ key: 'sk-matrix-provider-0000' }] }, { token: admin })).body
const login = async (l: string, password = PASSWORD): Promise<string> => {
  const r = await s.post('/api/v1/auth/login', { login: l, password })
  if (r.status !== 200) throw new Error(`login ${l}: ${r.status} ${r.text}`)
  return r.body.accessToken
}

// the owner's revoked key and logged-out token (logout ends every token of the owner: log in again)
const revoked = await s.createKey(owner.token, 'to be revoked')
expect((await s.del(`/api/v1/operator/keys/${revoked.id}`, { token: owner.token })).status).toBe(200)
const loggedOut = await login(owner.login)
expect((await s.post('/api/v1/auth/logout', undefined, { token: loggedOut })).status).toBe(200)
owner.token = await login(owner.login)

const otherToken = await s.signup('intruder')
const otherKey = (await s.createKey(otherToken, 'intruder key')).key
const suspendedToken = await s.signup('suspended-op')
const suspendedKey = (await s.createKey(suspendedToken, 'suspended key')).key
const suspendedId = (await s.get('/api/v1/auth/me', { token: suspendedToken })).body.id as string
expect((await s.patch(`/api/v1/admin/operators/${suspendedId}`, { status: 'SUSPENDED' }, { token: admin })).status).toBe(200)

/** The owner's own claims, signed with a secret that is not the server's. */
async function forgeToken(real: string): Promise<string> {
  const [h, p] = real.split('.')
  const key = await crypto.subtle.importKey('raw', crypto.getRandomValues(new Uint8Array(32)), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign'])
  const sig = new Uint8Array(await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${h}.${p}`)))
  return `${h}.${p}.${Buffer.from(sig).toString('base64url')}`
}
const forgedKey = owner.key.key.slice(0, 8) + [...owner.key.key.slice(8)].reverse().join('')

type IdClass = 'anonymous' | 'invalid' | 'suspended' | 'other' | 'agentB' | 'nonAdmin'
interface Identity { name: string; class: IdClass; token?: string; key?: string; adminRoutesOnly?: boolean }
const identities: Identity[] = [
  { name: 'anonymous', class: 'anonymous' },
  { name: 'forged token', class: 'invalid', token: await forgeToken(owner.token) },
  { name: 'forged API key', class: 'invalid', key: forgedKey },
  { name: 'revoked API key', class: 'invalid', key: revoked.key },
  { name: 'logged-out token', class: 'invalid', token: loggedOut },
  { name: "another operator's token", class: 'other', token: otherToken },
  { name: "another operator's key", class: 'other', key: otherKey },
  { name: "another agent's key", class: 'agentB', key: owner.agentB.apiKey },
  { name: 'suspended operator token', class: 'suspended', token: suspendedToken },
  { name: 'suspended operator key', class: 'suspended', key: suspendedKey },
  { name: 'non-admin token', class: 'nonAdmin', token: owner.token, adminRoutesOnly: true },
  { name: 'non-admin key', class: 'nonAdmin', key: owner.key.key, adminRoutesOnly: true },
]
/** Minted now, used after the clock has moved past the token lifetime. */
const expiring: Identity = { name: 'expired token', class: 'invalid', token: await login(owner.login) }

// ------------------------------------------------------------------ what fills the parameters

type Scope = 'agent' | 'operator' | 'admin' | 'public'
interface Ref { name: string; value: string; scope: Scope }

/**
 * Path parameters → the owner's resources. `agent` resources belong to the owner's first agent,
 * `operator` ones to the owner, `public` ones are readable by anyone by design.
 * A parameter without an entry here fails its operation's test.
 */
const PARAMS: Record<string, (op: Operation) => Omit<Ref, 'name'> | undefined> = {
  agentId: () => ({ value: owner.agent.agentId, scope: 'agent' }),
  keyId: () => ({ value: owner.key.id, scope: 'operator' }),
  jobId: () => ({ value: owner.job.jobId, scope: 'agent' }),
  operatorId: () => ({ value: owner.operatorId, scope: 'operator' }),
  uid: () => (owner.task.attestationUid ? { value: owner.task.attestationUid, scope: 'public' } : undefined),
  hash: () => ({ value: owner.txHash, scope: 'public' }),
  proof: () => (owner.task.verificationProof ? { value: owner.task.verificationProof, scope: 'public' } : undefined),
  address: () => ({ value: owner.wallet, scope: 'public' }),
  taskId: () => ({ value: owner.task.id, scope: 'agent' }),
  // a model name: /v1/models/{model} reads the pool (any credential), /api/v1/admin/prices/{model} is the administrator's
  model: (op) => ({ value: 'builtin', scope: op.template.startsWith('/api/v1/admin/') ? 'admin' : 'public' }),
  id: (op) => {
    if (op.template.startsWith('/api/v1/tasks/')) return { value: owner.task.id, scope: 'agent' }
    if (op.template.startsWith('/api/v1/admin/operators/')) return { value: owner.operatorId, scope: 'operator' }
    if (op.template.startsWith('/api/v1/admin/providers/')) return { value: provider.id, scope: 'admin' }
    // the request of the owner's first agent: another agent's key gets 404 (and agent keys never resolve: 403)
    if (op.template.startsWith('/api/v1/approvals/')) return owner.approval ? { value: owner.approval.id, scope: 'agent' } : undefined
    return undefined
  },
  cid: (op) => {
    if (op.template.startsWith('/ipfs/')) return { value: owner.upload.cid, scope: 'public' }
    if (op.template.startsWith('/api/v1/public/proof/')) return owner.task.receiptCid ? { value: owner.task.receiptCid, scope: 'public' } : undefined
    return undefined
  },
}

/** Body members that name the owner's resources, and plain values that keep a body valid. */
const BODY_REFS: Record<string, Omit<Ref, 'name'>> = {
  agentId: { value: owner.agent.agentId, scope: 'agent' },
  operatorId: { value: owner.operatorId, scope: 'operator' },
  taskId: { value: owner.task.id, scope: 'agent' },
  jobId: { value: owner.job.jobId, scope: 'agent' },
  keyId: { value: owner.key.id, scope: 'operator' },
}
const BODY_FILL: Record<string, unknown> = {
  prompt: 'matrix prompt', taskType: 'general', capabilities: ['general'], displayName: 'matrix', name: 'matrix',
  wallet: owner.wallet, walletAddress: owner.wallet, reason: 'matrix', ms: 1,
}

/** Operations a SUSPENDED or BANNED operator may still use (docs/foundation.md, "Operator status"). */
const ALLOW_INACTIVE = new Set(['GET /api/v1/auth/me', 'POST /api/v1/auth/logout', 'GET /api/v1/operator/export'])
/** Another operator's resource is 404, never 403, except where the route says otherwise (docs/foundation.md, "Errors"). */
const FORBIDDEN_NOT_HIDDEN = new Set(['GET /api/v1/credits/balance/{operatorId}'])

function paramsOf(op: Operation): { values: Record<string, string>; refs: Ref[]; missing: string[] } {
  const values: Record<string, string> = {}
  const refs: Ref[] = []
  const missing: string[] = []
  for (const p of op.params.filter((x) => x.in === 'path')) {
    const r = PARAMS[p.name]?.(op)
    if (!r) { missing.push(p.name); continue }
    values[p.name] = r.value
    refs.push({ name: p.name, ...r })
  }
  return { values, refs, missing }
}

function bodyOf(op: Operation): { body?: unknown; raw?: BodyInit; refs: Ref[] } {
  if (!op.body) return { refs: [] }
  const types = Object.keys(op.body.content)
  const json = types.find((t) => t === 'application/json' || t.endsWith('+json'))
  const fill: Record<string, unknown> = { ...BODY_FILL, ...Object.fromEntries(Object.entries(BODY_REFS).map(([k, v]) => [k, v.value])) }
  if (json) {
    const body = arbs.example(op.body.content[json], fill)
    const refs = body && typeof body === 'object' && !Array.isArray(body)
      ? Object.keys(body).filter((k) => k in BODY_REFS).map((k) => ({ name: k, ...BODY_REFS[k]! }))
      : []
    return { body, refs }
  }
  if (types.includes('multipart/form-data')) {
    const form = new FormData()
    form.append('file', new Blob(['matrix upload']), 'matrix.txt')
    return { raw: form, refs: [] }
  }
  return { refs: [] }
}

// ------------------------------------------------------------------ what each cell expects

type Expect = { refuse: number; codes: string[] } | { allow: 'public' | 'own' }

function expected(op: Operation, id: Identity, refs: Ref[]): Expect {
  const auth = op.auth
  if (auth === 'none') return { allow: 'public' }
  const takesBearer = ['bearer', 'either', 'optional', 'admin'].includes(auth)
  const takesKey = ['apiKey', 'either', 'optional'].includes(auth)
  if (!id.token && !id.key) return auth === 'optional' ? { allow: 'public' } : { refuse: 401, codes: ['UNAUTHENTICATED'] }
  if ((id.token && !takesBearer) || (id.key && !takesKey)) return { refuse: 401, codes: ['CREDENTIAL_NOT_ACCEPTED'] }
  if (id.class === 'invalid') return { refuse: 401, codes: id.token ? ['INVALID_TOKEN'] : ['INVALID_API_KEY'] }
  if (id.class === 'suspended') return ALLOW_INACTIVE.has(op.key) || op.op['x-taskgate-allow-inactive'] === true ? { allow: 'own' } : { refuse: 403, codes: ['OPERATOR_SUSPENDED'] }
  if (auth === 'admin') return { refuse: 403, codes: ['ADMIN_REQUIRED'] }
  const owned = refs.filter((r) => r.scope === 'agent' || r.scope === 'operator')
  if (id.class === 'agentB') {
    if (!owned.some((r) => r.scope === 'agent')) return { allow: 'own' } // the same operator's own things
    if (refs.some((r) => r.name === 'agentId')) return { refuse: 403, codes: ['AGENT_KEY_MISMATCH'] }
    return { refuse: 404, codes: ['NOT_FOUND'] }
  }
  if (!owned.length) return { allow: 'own' }
  if (FORBIDDEN_NOT_HIDDEN.has(op.key)) return { refuse: 403, codes: [] }
  if (auth === 'optional') return { allow: 'public' }
  return { refuse: 404, codes: ['NOT_FOUND'] }
}

/** What must never reach anyone but the owner: in refusals, also the agent's name and description. */
const PRIVATE = [owner.task.prompt, 'secret prompt zq7', owner.job.prompt, owner.key.key, owner.key.keyPrefix, owner.key.name, owner.agent.apiKey, owner.agentB.apiKey]
  .concat(owner.task.output.length >= 12 ? [owner.task.output] : [])
const IDENTIFYING = [owner.agent.displayName, owner.agent.description]

function leaks(r: Res, secrets: string[]): string[] {
  const headers: string[] = []
  r.headers.forEach((v, k) => headers.push(`${k}: ${v}`))
  const seen = r.text + ' ' + headers.join('\n')
  return secrets.filter((x) => x && seen.includes(x))
}

// ------------------------------------------------------------------ the re-read

/** The owner's state as the owner (and the admin) read it, without what reading itself changes. */
async function ownerState(): Promise<string> {
  const paths = ['/api/v1/auth/me', '/api/v1/agents', `/api/v1/agents/${owner.agent.agentId}`, `/api/v1/agents/${owner.agentB.agentId}`,
    '/api/v1/operator/keys', '/api/v1/operator/billing', `/api/v1/tasks/${owner.task.id}`, '/api/v1/operator/tasks', '/api/v1/operator/dashboard']
  const out: Record<string, unknown> = {}
  for (const p of paths) {
    const r = await s.get(p, { token: owner.token })
    out[p] = r.status === 200 ? r.body : r.status
  }
  const ops = await s.get('/api/v1/admin/operators', { token: admin })
  out.operators = (ops.body as any[]).filter((o) => o.id === owner.operatorId || o.id === suspendedId)
  out.providers = (await s.get('/api/v1/admin/providers', { token: admin })).body
  return JSON.stringify(out, (k, v) => (['lastUsedAt', 'requestId', 'inflight', 'state', 'cooldownUntil'].includes(k) ? undefined : v))
}

let baseline = ''

// ------------------------------------------------------------------ the cells

const stats = { cells: 0, refusals: 0, reReads: 0 }
const t0 = Date.now()
// logout last: it is the one operation that ends credentials other cells still use
const ordered = [...operations.filter((o) => o.key !== 'POST /api/v1/auth/logout'), ...operations.filter((o) => o.key === 'POST /api/v1/auth/logout')]

async function runCell(op: Operation, id: Identity, failures: string[]): Promise<void> {
  const { values, refs: pathRefs } = paramsOf(op)
  const { body, raw, refs: bodyRefs } = bodyOf(op)
  const refs = [...pathRefs, ...bodyRefs]
  const url = fillPath(op.template, values)
  const want = expected(op, id, refs)
  const r = await send(s, op, url, { token: id.token, key: id.key, body, raw })
  stats.cells++
  const where = `${id.name}: ${op.method} ${url}`
  if (process.env.AUTHZ_VERBOSE) console.error(`${where} → ${r.status} ${errorCode(r) ?? ''} (expected ${'refuse' in want ? `${want.refuse} ${want.codes.join('|')}` : want.allow})`)
  if (r.status >= 500) { failures.push(`${where} → ${r.status} ${r.text.slice(0, 200)}`); return }
  if ('refuse' in want) {
    stats.refusals++
    if (r.status !== want.refuse) failures.push(`${where} → ${r.status}, expected ${want.refuse}${want.codes.length ? ` ${want.codes.join('|')}` : ''}: ${r.text.slice(0, 200)}`)
    else if (want.codes.length && !want.codes.includes(errorCode(r)!)) failures.push(`${where} → ${r.status} ${errorCode(r)}, expected code ${want.codes.join('|')}`)
    const leaked = leaks(r, [...PRIVATE, ...IDENTIFYING])
    if (leaked.length) failures.push(`${where} → the refusal carries the owner's data: ${leaked.join(', ')}`)
  } else {
    const leaked = leaks(r, PRIVATE)
    if (leaked.length) failures.push(`${where} → ${r.status} carries the owner's private data: ${leaked.join(', ')}`)
  }
  if (op.mutating) {
    const now = await ownerState()
    stats.reReads++
    if ('refuse' in want || r.status >= 400) {
      if (now !== baseline) failures.push(`${where} → ${r.status}, refused, but the owner's state changed:\n${diff(baseline, now)}`)
    }
    baseline = now
  }
}

function diff(a: string, b: string): string {
  const x = JSON.parse(a) as Record<string, unknown>, y = JSON.parse(b) as Record<string, unknown>
  return Object.keys({ ...x, ...y }).filter((k) => JSON.stringify(x[k]) !== JSON.stringify(y[k]))
    .map((k) => `  ${k}: ${JSON.stringify(x[k]).slice(0, 300)}\n   → ${JSON.stringify(y[k]).slice(0, 300)}`).join('\n')
}

async function runOperation(op: Operation, ids: Identity[]): Promise<void> {
  const { missing } = paramsOf(op)
  if (missing.length) {
    throw new Error(`${op.key}: the authorization matrix has no value for path parameter(s) ${missing.join(', ')}; add an entry to PARAMS in test/http/authz-matrix.test.ts (a resource of the owner to aim at)`)
  }
  const failures: string[] = []
  for (const id of ids) {
    if (id.adminRoutesOnly && op.auth !== 'admin') continue
    await runCell(op, id, failures)
  }
  if (failures.length) throw new Error(`${op.key}: ${failures.length} cell(s) failed\n${failures.join('\n')}`)
}

describe('authorization matrix from /openapi.json', () => {
  test('the owner\'s resources exist, and the owner\'s state reads the same twice', async () => {
    expect(operations.length).toBeGreaterThan(10)
    expect(owner.task.receiptCid).toBeTruthy()
    expect(owner.task.attestationUid).toBeTruthy()
    expect(owner.job.events).toMatch(/event: (completed|failed)/)
    // the detectors see what they look for: the owner's own view carries the prompt, and a
    // change by the owner shows in the re-read
    const own = await s.get(`/api/v1/tasks/${owner.task.id}`, { token: owner.token })
    expect(leaks(own, PRIVATE)).toContain(owner.task.prompt)
    baseline = await ownerState()
    expect(await ownerState()).toBe(baseline)
    const k = await s.createKey(owner.token, 'probe')
    expect(await ownerState()).not.toBe(baseline)
    await s.del(`/api/v1/operator/keys/${k.id}`, { token: owner.token })
    baseline = await ownerState()
  })

  for (const op of ordered) test(op.key, () => runOperation(op, identities), 60_000)

  test('the test clock moves past the token lifetime', async () => {
    const r = await s.post('/api/v1/admin/clock/advance', { ms: 13 * 3600_000 }, { token: admin })
    expect(r.status).toBe(200)
    admin = await login('admin', 'admin-password') // every earlier token has expired too
    owner.token = await login(owner.login)
    baseline = await ownerState()
  })

  for (const op of ordered) test(`expired token: ${op.key}`, () => runOperation(op, [expiring]), 60_000)

  test('summary', () => {
    const n = operations.length
    console.error(`authz matrix: ${n} operations × ${identities.length + 1} identities (${identities.filter((i) => i.adminRoutesOnly).length} on admin routes only) = ${stats.cells} cells, ` +
      `${stats.refusals} refusals checked, ${stats.reReads} re-reads, ${((Date.now() - t0) / 1000).toFixed(1)} s`)
    expect(stats.cells).toBeGreaterThan(n)
  })
})
