// The pipeline end to end over real HTTP: agents, a builtin sentiment task with every Task field,
// independent verification of the IPFS CID, the receipt and the attestation.
import { openTestDb } from '../helpers/data'
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { importBytes } from 'ipfs-unixfs-importer'
import { CID } from 'multiformats/cid'
import { keccak256, toHex, verifyTypedData } from 'viem'
import { expectProblem, startServer, type TestServer } from '../helpers/server'
import { expectUnbrokenChain } from '../helpers/chain'

let s: TestServer
let op: string
let agent: any

beforeAll(async () => {
  s = await startServer()
  await s.setupAdmin()
  op = await s.signup('pipeliner')
  const r = await s.post('/api/v1/agents/register', { displayName: 'Sentiment Bot', capabilities: ['sentiment_analysis', 'general'], description: 'reads reviews', agentVersion: '2.1.0' }, { token: op })
  expect(r.status).toBe(201)
  agent = r.body
})
afterAll(async () => { await s.cleanup() })

async function cidOf(bytes: Uint8Array): Promise<string> {
  const store = { put: async () => {}, get: async () => { throw new Error('unused') }, has: async () => false }
  return (await importBytes(bytes, store as never, { cidVersion: 1, rawLeaves: true })).cid.toString()
}

describe('agents', () => {
  test('register returns the record plus an agent-bound key once; list and detail', async () => {
    expect(agent).toMatchObject({ displayName: 'Sentiment Bot', capabilities: ['sentiment_analysis', 'general'], model: 'builtin', agentVersion: '2.1.0', status: 'ACTIVE' })
    expect(agent.agentId).toMatch(/^agent_sentiment-bot_/)
    expect(agent.apiKey).toMatch(/^tg_test_/)
    expect((await s.get('/api/v1/whoami', { key: agent.apiKey })).body.agentId).toBe(agent.agentId)
    expect((await s.get('/api/v1/agents', { token: op })).body.map((a: any) => a.agentId)).toEqual([agent.agentId])
    const d = (await s.get(`/api/v1/agents/${agent.agentId}`, { token: op })).body
    expect(d.policyStatus).toMatchObject({ allowedTaskTypes: ['sentiment_analysis', 'general'], keyActive: true, status: 'ACTIVE' })
    expect(d.verificationHistory).toEqual([])
  })

  test('capabilities are validated; agentVersion and unknown fields cannot be patched; others see 404', async () => {
    expectProblem(await s.post('/api/v1/agents/register', { displayName: 'x', capabilities: ['mind_control'] }, { token: op }), 400, 'INVALID_CAPABILITY')
    expectProblem(await s.patch(`/api/v1/agents/${agent.agentId}`, { agentVersion: '9' }, { token: op }), 400, 'VALIDATION_FAILED')
    expectProblem(await s.patch(`/api/v1/agents/${agent.agentId}`, { capabilities: ['nope'] }, { token: op }), 400, 'INVALID_CAPABILITY')
    const upd = await s.patch(`/api/v1/agents/${agent.agentId}`, { description: 'reads reviews daily' }, { token: op })
    expect(upd.body.description).toBe('reads reviews daily')
    const other = await s.signup('other-pipeliner')
    expectProblem(await s.get(`/api/v1/agents/${agent.agentId}`, { token: other }), 404, 'NOT_FOUND')
    expectProblem(await s.post('/api/v1/agents/register', { displayName: 'k', capabilities: ['general'] }, { key: agent.apiKey }), 401, 'CREDENTIAL_NOT_ACCEPTED')
  })
})

describe('a sentiment task on the builtin provider', () => {
  let task: any

  test('completes with every Task field filled', async () => {
    const r = await s.post('/api/v1/tasks/submit', { agentId: agent.agentId, taskType: 'sentiment_analysis', prompt: 'I really love this product and the support was excellent, though shipping was slow.' }, { key: agent.apiKey })
    expect(r.status).toBe(200)
    task = r.body
    for (const f of ['id', 'taskType', 'status', 'agentId', 'model', 'provider', 'latencyMs', 'ipfsCid', 'stateRoot', 'verificationStatus', 'verificationScore', 'verificationProof', 'verificationExplorerUrl', 'attestationUid', 'attestationExplorerUrl', 'createdAt', 'completedAt']) {
      expect(task[f]).not.toBeNull()
      expect(task[f]).toBeDefined()
    }
    expect(task).toMatchObject({ status: 'COMPLETED', stage: 8, provider: 'builtin', model: 'builtin', verificationStatus: 'VERIFIED', creditsCharged: 1 })
    expect(JSON.parse(task.output).label).toBe('positive')
    expect(task.timeline.map((e: any) => e.name)).toEqual(['policy', 'debit', 'compute', 'verification', 'ipfs', 'fingerprint', 'attestation', 'receipt'])
    expect(task.ipfsCid).toStartWith('bafk')
    // the answer is built from the task as the pipeline committed it in memory: it equals what the store holds
    expect((await s.get(`/api/v1/tasks/${task.id}`, { key: agent.apiKey })).body).toEqual(task)
  })

  test('the signed receipt is read from its IPFS block, not stored a second time in the task row', async () => {
    const db = await openTestDb(s.dataDir)
    try {
      expect(db.query('SELECT receipt FROM tasks WHERE id = ?1').get(task.id)).toEqual({ receipt: null })
      const block = JSON.parse(await (await fetch(`${s.url}/ipfs/${task.receiptCid}`)).text())
      expect(block).toEqual({ type: 'taskgate.receipt/v1', ...task.receipt })
      expect((await s.get(`/api/v1/tasks/${task.id}`)).body.receipt).toEqual(task.receipt) // the public detail too
      // a row finished before the change keeps its stored receipt, which is answered as it is
      const stored = { ...task.receipt, signature: `0x${'ab'.repeat(65)}` }
      db.query('UPDATE tasks SET receipt = ?2 WHERE id = ?1').run(task.id, JSON.stringify(stored))
      expect((await s.get(`/api/v1/tasks/${task.id}`)).body.receipt).toEqual(stored)
    } finally {
      db.query('UPDATE tasks SET receipt = NULL WHERE id = ?1').run(task.id)
      db.close()
    }
  })

  test('the CID on /ipfs matches an independent UnixFS import of the content', async () => {
    const res = await fetch(`${s.url}/ipfs/${task.ipfsCid}`)
    const bytes = new Uint8Array(await res.arrayBuffer())
    expect(await cidOf(bytes)).toBe(task.ipfsCid)
    const doc = JSON.parse(new TextDecoder().decode(bytes))
    // Public by CID: the hashes, never the output itself (publishOutputs is off by default).
    expect(doc).toMatchObject({ taskId: task.id, promptHash: keccak256(toHex(task.prompt)), outputHash: keccak256(toHex(task.output)) })
    expect(doc.output).toBeUndefined()
    expect(new TextDecoder().decode(bytes)).not.toContain(task.output)
    const raw = await fetch(`${s.url}/ipfs/${task.ipfsCid}?format=raw`)
    expect(raw.headers.get('content-type')).toBe('application/vnd.ipld.raw')
    expect(new Uint8Array(await raw.arrayBuffer())).toEqual(bytes) // a small file is one raw block
    const ipfsDb = await openTestDb(s.dataDir, { file: 'ipfs.db', readonly: true })
    const pinned = ipfsDb.query('SELECT pinned_at FROM ipfs_blocks WHERE mh IN (?1, ?2) AND pinned_at IS NOT NULL').all(CID.parse(task.ipfsCid).multihash.bytes, CID.parse(task.receiptCid).multihash.bytes)
    ipfsDb.close()
    expect(pinned).toHaveLength(2) // the task document and the receipt are pinned
    const car = await fetch(`${s.url}/ipfs/${task.ipfsCid}?format=car`)
    expect(car.headers.get('content-type')).toContain('application/vnd.ipld.car')
    expect((await car.arrayBuffer()).byteLength).toBeGreaterThan(bytes.byteLength)
  })

  test('the receipt and the attestation verify with viem against the published signer', async () => {
    const signers = (await s.get('/.well-known/taskgate-signers')).body
    const signer = signers.signers[0].address
    expect(task.receipt.signer).toBe(signer)
    const p = task.receipt.payload
    expect(await verifyTypedData({ address: signer, domain: p.domain, types: p.types, primaryType: p.primaryType, message: p.message, signature: task.receipt.signature })).toBe(true)
    expect(await verifyTypedData({ address: signer, domain: p.domain, types: p.types, primaryType: p.primaryType, message: { ...p.message, verified: false }, signature: task.receipt.signature })).toBe(false)
    const att = (await s.get(`/api/v1/attestations/${task.attestationUid}`)).body
    expect(att.uid).toBe(task.attestationUid)
    const sig = att.sig
    const signature = `${sig.signature.r}${sig.signature.s.slice(2)}${sig.signature.v.toString(16)}`
    expect(await verifyTypedData({ address: signer, domain: { ...sig.domain, chainId: Number(sig.domain.chainId) }, types: sig.types, primaryType: 'Attest', message: sig.message, signature: signature as `0x${string}` })).toBe(true)
    expect(att.verification).toEqual({ signatureValid: true, signerKnown: true })
  })

  test('the receipt CID resolves at /public/proof with its verification', async () => {
    const r = (await s.get(`/api/v1/public/proof/${task.receiptCid}`)).body
    expect(r.kind).toBe('receipt')
    expect(r.verification).toMatchObject({ signatureValid: true, signerKnown: true, cidMatches: true })
    expect(r.task.id).toBe(task.id)
    expectProblem(await s.get('/api/v1/public/proof/not-a-cid'), 400, 'INVALID_CID')
  })

  test('the public view hides prompt and output; the list is public', async () => {
    const pub = (await s.get(`/api/v1/tasks/${task.id}`)).body
    expect(pub.prompt).toBeUndefined()
    expect(pub.output).toBeUndefined()
    expect(pub.receiptCid).toBe(task.receiptCid)
    const list = (await s.get(`/api/v1/tasks?agentId=${agent.agentId}&status=COMPLETED`)).body
    expect(list).toMatchObject({ total: 1, page: 1, limit: 20, totalPages: 1 })
    expect(list.data[0].id).toBe(task.id)
    expect(JSON.stringify(list)).not.toContain('I really love')
    expectProblem(await s.get('/api/v1/tasks?limit=101'), 400, 'VALIDATION_FAILED')
    expectProblem(await s.get('/api/v1/tasks?status=DONE'), 400, 'VALIDATION_FAILED')
  })

  test('the stage events stream replays the timeline over SSE', async () => {
    const res = await fetch(`${s.url}/api/v1/tasks/${task.id}/events?access_token=${op}`)
    expect(res.headers.get('content-type')).toBe('text/event-stream')
    const text = await res.text()
    expect(text.match(/event: stage/g)?.length).toBe(8)
    expect(text).toContain('"name":"receipt"')
  })
})

describe('one agent, many tasks at once', () => {
  test('tasks in flight together extend the state-root chain one link each, in commit order, each receipt signing its link', async () => {
    const { token: owner, agent: a } = await s.operatorWithAgent('chainer')
    const N = 40
    const results = await Promise.all(Array.from({ length: N }, (_, i) => s.post('/api/v1/tasks/submit?wait=30', {
      agentId: a.agentId, taskType: 'sentiment_analysis', prompt: `Review ${i}: the product was good and the delivery was fast.`,
    }, { token: owner })))
    for (const r of results) expect(r.body.status).toBe('COMPLETED')
    expect(new Set(results.map((r) => r.body.stateRoot)).size).toBe(N)
    const db = await openTestDb(s.dataDir, { readonly: true })
    try {
      expect(expectUnbrokenChain(db, a.agentId)).toBe(N)
    } finally { db.close() }
    const passport = (await s.get(`/api/v1/agents/${a.agentId}`, { token: owner })).body
    expect(passport.metrics.totalTasks).toBe(N)
  })
})

describe('submission rules', () => {
  test('a task type outside the agent\'s capabilities fails in stage 1 with 403 and no charge', async () => {
    const r = await s.post('/api/v1/tasks/submit', { agentId: agent.agentId, taskType: 'trade_signal', prompt: 'buy?' }, { key: agent.apiKey })
    expectProblem(r, 403, 'GUARDRAIL_BLOCKED')
    expect(r.body.task).toMatchObject({ status: 'FAILED', failureCode: 'GUARDRAIL_BLOCKED', creditsCharged: 0 })
    expectProblem(await s.post('/api/v1/tasks/submit', { agentId: agent.agentId, taskType: 'telepathy', prompt: 'x' }, { key: agent.apiKey }), 400, 'INVALID_TASK_TYPE')
    expectProblem(await s.post('/api/v1/tasks/submit', { agentId: agent.agentId, taskType: 'general', prompt: 'x', model: 'gpt-9' }, { key: agent.apiKey }), 400, 'UNKNOWN_MODEL')
  })

  test('Idempotency-Key: same body → same task, other body → 409', async () => {
    const body = { agentId: agent.agentId, taskType: 'general', prompt: 'Summarise: TaskGate runs tasks. It signs receipts. It stores them on IPFS. Operators love it.' }
    const a = await s.post('/api/v1/tasks/submit', body, { key: agent.apiKey, headers: { 'idempotency-key': 'idem-1' } })
    const b = await s.post('/api/v1/tasks/submit', body, { key: agent.apiKey, headers: { 'idempotency-key': 'idem-1' } })
    expect(a.status).toBe(200)
    expect(b.body.id).toBe(a.body.id)
    expect(b.headers.get('idempotent-replayed')).toBe('true')
    expectProblem(await s.post('/api/v1/tasks/submit', { ...body, prompt: 'different' }, { key: agent.apiKey, headers: { 'idempotency-key': 'idem-1' } }), 409, 'IDEMPOTENCY_KEY_REUSED')
  })

  test('wait=0 answers 202 at once with a Location', async () => {
    const r = await s.post('/api/v1/tasks/submit?wait=0', { agentId: agent.agentId, taskType: 'general', prompt: 'Short text. Another sentence here.' }, { key: agent.apiKey })
    expect([200, 202]).toContain(r.status)
    if (r.status === 202) expect(r.headers.get('location')).toBe(`/api/v1/tasks/${r.body.id}`)
  })
})

describe('metrics', () => {
  test('/metrics counts tasks by status', async () => {
    const list = (await s.get('/api/v1/tasks?status=COMPLETED&limit=1', { token: op })).body // first: tasks still finish meanwhile
    const text = (await s.get('/metrics')).text
    const completed = Number(text.match(/taskgate_tasks\{status="COMPLETED"\} (\d+)/)?.[1])
    expect(completed).toBeGreaterThanOrEqual(2)
    expect(text).toMatch(/taskgate_tasks\{status="FAILED"\} \d+/)
    expect(completed).toBeGreaterThanOrEqual(list.total) // the counters the list reads agree with the gauge
  })

  test('signatures are made on the signing worker, from source and in the compiled binary (TASKGATE_TEST_BIN)', async () => {
    // The tasks above were signed by then: a worker that failed would have handed them to the main thread.
    expect((await s.get('/metrics')).text).toMatch(/^taskgate_signing_worker 1$/m)
  })
})

describe('explorer pages', () => {
  test('the default explorer URLs of a task resolve to console pages on the appliance (verified in the browser: test/ui/explorer)', async () => {
    const r = await s.post('/api/v1/tasks/submit', { agentId: agent.agentId, taskType: 'general', prompt: 'Explorer check. It has two sentences.' }, { key: agent.apiKey })
    for (const url of [r.body.verificationExplorerUrl, r.body.attestationExplorerUrl, `${s.url}/explorer/receipt/${r.body.receiptCid}`, `${s.url}/explorer/agent/${agent.agentId}`]) {
      const page = await fetch(url)
      expect(page.status).toBe(200)
      expect(page.headers.get('content-type')).toStartWith('text/html')
      expect(await page.text()).toContain('<script type="module" src="/app.js">')
    }
    for (const path of [`/explorer/attestation/0x${'0'.repeat(64)}`, '/explorer/receipt/not-a-cid', '/explorer/agent/nobody', `/explorer/verification/0x${'1'.repeat(64)}`]) {
      const page = await fetch(`${s.url}${path}`)
      expect(page.status).toBe(404)
      expect(page.headers.get('content-type')).toStartWith('text/html')
    }
  })
})

describe('public stats and passport', () => {
  test('stats count operators, agents and tasks; the passport shows trust metrics', async () => {
    const st = (await s.get('/api/v1/public/stats')).body
    expect(st.totalTasks).toBeGreaterThanOrEqual(4)
    expect(st.totalAgents).toBeGreaterThanOrEqual(1)
    expect(st.totalOperators).toBeGreaterThanOrEqual(3)
    expect(st.avgLatencyMs).toBeGreaterThan(0)
    expect(st.verificationRate).toBeGreaterThan(0)
    expect(st.verificationRate).toBeLessThanOrEqual(1)
    const p = (await s.get(`/api/v1/public/agent/${agent.agentId}/passport`)).body
    expect(Object.keys(p).sort()).toEqual(['agentId', 'ari', 'cq', 'displayName', 'driftScore', 'enrolledAt', 'lastActiveAt', 'nextLevel', 'totalTasks', 'trustLevel', 'vci', 'verifiedTasks', 'x402'])
    expect(p.displayName).toBe('Sentiment Bot')
    expect(p.trustLevel).toBe('PROBATIONARY') // fewer than 5 tasks
    expect(p.totalTasks).toBeGreaterThanOrEqual(4)
    expect(p.verifiedTasks).toBeLessThanOrEqual(p.totalTasks)
    for (const k of ['ari', 'vci', 'cq']) { expect(p[k]).toBeGreaterThanOrEqual(0); expect(p[k]).toBeLessThanOrEqual(1) }
    expect(p.x402).toMatchObject({ blocked: false, reason: null, walletChecked: null })
    expectProblem(await s.get('/api/v1/public/agent/agent_nope/passport'), 404, 'NOT_FOUND')
  })
})
