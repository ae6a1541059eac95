// The public explorer: receipts and other documents by CID, attestations, verification proofs and
// agents. Every signature and every CID is checked here, in the browser (ui/lib/verify.js), against
// the published signer list — the page trusts nothing the server says about validity.
// Reached at /explorer/<kind>/<id> (the server answers those paths with the console) or #/explorer/…
import { badge, jsonBlock, mono, taskStatusBadge } from '../components/cells.js'
import { dl, pageHead } from '../components/layout.js'
import { passportCard } from '../components/passport.js'
import { dataTable } from '../components/table.js'
import { checkList, failure, verdict } from '../components/verdict.js'
import { api, ApiError } from '../lib/api.js'
import { fill, h } from '../lib/dom.js'
import { fmtDate, fmtInt, fmtScore } from '../lib/format.js'
import { route } from '../lib/router.js'
import { documentKind, fetchVerifiedBytes, isCid, verifyAttestation, verifyCertificate, verifyTypedDocument, verifyVerificationProof } from '../lib/verify.js'

const get = (path) => api('GET', path, undefined, { auth: false })
const enc = encodeURIComponent
export const explorerHref = (kind, id) => `#/explorer/${kind}/${enc(id)}`
const xlink = (kind, id, text) => (id ? h('a', { href: explorerHref(kind, id), class: 'mono break' }, text ?? id) : h('span', { class: 'muted' }, '—'))

let signersPromise = null
/** The published signer list, fetched once per page load. */
export const signers = () => (signersPromise ??= get('/.well-known/taskgate-signers').catch((e) => { signersPromise = null; throw e }))

async function rawBlock(cid) {
  const r = await fetch(`/ipfs/${enc(cid)}?format=raw`, { cache: 'no-store' })
  if (r.status === 404) throw new NotFound()
  if (!r.ok) throw new Error(`block ${cid}: HTTP ${r.status}`)
  return new Uint8Array(await r.arrayBuffer())
}

class NotFound extends Error {}
const missing = (e) => e instanceof NotFound || (e instanceof ApiError && e.status === 404)

/** The document behind a CID with every block re-hashed: { doc, blocks } or { error }. */
async function verifiedDocument(cid) {
  let got
  try { got = await fetchVerifiedBytes(cid, rawBlock) } catch (e) {
    if (missing(e)) throw e
    return { error: e.message }
  }
  try { return { doc: JSON.parse(new TextDecoder().decode(got.bytes)), blocks: got.blocks } } catch { return { error: 'the content is not a JSON document' } }
}

function notFound(view, what, id) {
  fill(view,
    pageHead('Not found', `No ${what} with this id is recorded on this appliance.`),
    h('div', { class: 'card', 'data-not-found': what }, h('p', null, h('code', { class: 'break' }, id)), h('p', null, h('a', { href: '#/explorer' }, 'Search the explorer'))))
}

const cidLine = (r) => (r.error
  ? failure(`Content does not match its CID: ${r.error}`)
  : h('p', { class: 'muted', 'data-cid': 'valid' }, `✓ Content re-hashed in this browser: ${r.blocks} block${r.blocks === 1 ? '' : 's'}, same CID.`))

const rawFold = (doc) => h('details', { class: 'card fold' }, h('summary', null, h('h2', null, 'Record')), h('div', { class: 'fold-body' }, jsonBlock(doc)))

// ------------------------------------------------------------------ documents by CID

function receiptFields(m) {
  return dl([
    ['Task', mono(m.taskId)], ['Agent', xlink('agent', m.agentId)], ['Task document', xlink('receipt', m.ipfsCid)],
    ['Attestation', xlink('attestation', m.attestationUid)], ['Verification proof', xlink('verification', m.verificationProof)],
    ['Verified', m.verified ? badge('VERIFIED', 'green') : badge('NOT VERIFIED', 'red')], ['Score', fmtScore(Number(m.verificationScoreBps) / 10000)],
    ['State root', mono(m.stateRoot)], ['Credits charged', String(m.creditsCharged)], ['Completed', fmtDate(new Date(Number(m.completedAt) * 1000).toISOString())],
    ['Model', mono(m.model)], ['Prompt hash', mono(m.promptHash)], ['Output hash', mono(m.outputHash)],
  ])
}

async function documentPage(ctx, cid) {
  if (!isCid(cid)) return notFound(ctx.view, 'document', cid)
  const [s, found] = await Promise.all([signers(), verifiedDocument(cid).catch((e) => { if (missing(e)) return null; throw e })])
  if (!ctx.alive()) return
  if (!found) return notFound(ctx.view, 'document', cid)
  const kind = found.doc ? documentKind(found.doc) : 'unknown'
  const parts = [pageHead(TITLES[kind] ?? 'Document', cid), cidLine(found)]
  const doc = found.doc
  if (kind === 'receipt') {
    const r = await verifyTypedDocument(doc, s, 'receipt')
    parts.push(verdict(r), h('div', { class: 'card' }, receiptFields(doc.payload?.message ?? {})), checkList(r))
  } else if (kind === 'tos') {
    const r = await verifyTypedDocument(doc, s, 'tos')
    const m = doc.payload?.message ?? {}
    parts.push(verdict(r), h('div', { class: 'card' }, dl([['Operator', mono(m.operatorId)], ['Terms version', mono(m.version)], ['Text hash', mono(m.textHash)], ['Accepted', mono(m.acceptedAt)]])), checkList(r))
  } else if (kind === 'certificate') {
    const r = await verifyCertificate(doc, s)
    parts.push(verdict(r), h('div', { class: 'card' }, certificateFields(doc)), checkList(r))
  } else if (kind === 'task') {
    const proof = await get(`/api/v1/public/proof/${enc(cid)}`).catch(() => null)
    parts.push(h('div', { class: 'card' }, dl([
      ['Task', mono(doc.taskId)], ['Agent', xlink('agent', doc.agentId)], ['Type', mono(doc.taskType)],
      ['Receipt', proof?.task?.receiptCid ? xlink('receipt', proof.task.receiptCid) : null], ['Verification', xlink('verification', doc.verification?.proof)],
      ['Prompt hash', mono(doc.promptHash)], ['Output hash', mono(doc.outputHash)],
    ])), h('p', { class: 'muted' }, 'A task document is not signed itself: its CID is signed in the task\'s receipt.'))
  }
  if (doc) parts.push(rawFold(doc))
  fill(ctx.view, ...parts)
}

const TITLES = { receipt: 'Signed receipt', tos: 'Terms of Service acceptance', certificate: 'Compliance certificate', task: 'Task document', attestation: 'Attestation' }

export function certificateFields(c) {
  const sum = c.summary ?? {}
  return dl([
    ['Operator', mono(c.operatorId)], ['Tier', mono(c.tier)], ['Period', `${fmtDate(c.periodStart)} – ${fmtDate(c.periodEnd)}`],
    ['Tasks', fmtInt(sum.totalTasks)], ['Verified', fmtInt(sum.verifiedTasks)], ['Verification rate', typeof sum.verificationRate === 'number' ? `${(sum.verificationRate * 100).toFixed(1)} %` : null],
    ['Issued', fmtDate(c.issuedAt)], ['Certificate hash', mono(c.certHash)], ['IPFS', c.ipfsCid ? xlink('receipt', c.ipfsCid) : null],
  ])
}

// ------------------------------------------------------------------ attestations, proofs, agents

async function attestationPage(ctx, uid) {
  const [s, att] = await Promise.all([signers(), get(`/api/v1/attestations/${enc(uid)}`).catch((e) => { if (missing(e)) return null; throw e })])
  if (!ctx.alive()) return
  if (!att) return notFound(ctx.view, 'attestation', uid)
  const r = await verifyAttestation(att, s)
  const m = att.sig?.message ?? {}
  fill(ctx.view, pageHead('EAS offchain attestation', uid), verdict(r),
    h('div', { class: 'card' }, dl([['UID', mono(att.uid)], ['Task', mono(att.taskId)], ['Schema', mono(m.schema)], ['Time', fmtDate(new Date(Number(m.time) * 1000).toISOString())], ['Attester', mono(att.signer)]])),
    checkList(r), rawFold(att))
}

async function verificationPage(ctx, proof) {
  const v = await get(`/api/v1/public/verification/${enc(proof)}`).catch((e) => { if (missing(e)) return null; throw e })
  if (!ctx.alive()) return
  if (!v) return notFound(ctx.view, 'verification proof', proof)
  const s = await signers()
  const receiptCid = v.task?.receiptCid
  const found = receiptCid ? await verifiedDocument(receiptCid).catch(() => ({ error: 'the receipt could not be read' })) : null
  const receipt = found?.doc ?? null
  const proofResult = verifyVerificationProof(v, receipt)
  const receiptResult = receipt ? await verifyTypedDocument(receipt, s, 'receipt') : null
  if (!ctx.alive()) return
  const rec = v.record ?? {}
  fill(ctx.view, pageHead('Verification proof', proof),
    verdict(proofResult, 'Proof'), receiptResult ? verdict(receiptResult, 'Receipt signature') : failure('No readable signed receipt names this proof yet'),
    h('div', { class: 'card' }, dl([
      ['Status', badge(rec.status, rec.status === 'VERIFIED' ? 'green' : 'red')], ['Score', fmtScore(rec.score)], ['Threshold', fmtScore(rec.threshold)],
      ['Task', mono(v.task?.id)], ['Receipt', xlink('receipt', receiptCid)],
      ['Record', v.recordComplete ? 'complete: it hashes to the proof' : 'notes withheld by the operator: the proof is checked through the signed receipt'],
    ])),
    h('div', { class: 'card' }, h('h2', null, 'Checks'), h('ul', { class: 'checks' }, (rec.checks ?? []).map((c) => h('li', null, h('strong', null, c.name), `: ${fmtScore(c.score)} × ${c.weight}`, c.note ? ` — ${c.note}` : '')))),
    checkList(proofResult), rawFold(v))
}

async function agentPage(ctx, agentId) {
  const [p, tasks, board] = await Promise.all([
    get(`/api/v1/public/agent/${enc(agentId)}/passport`).catch((e) => { if (missing(e)) return null; throw e }),
    get(`/api/v1/tasks?agentId=${enc(agentId)}&limit=10`).catch(() => ({ data: [] })),
    get('/api/v1/public/leaderboard?limit=100').catch(() => null),
  ])
  if (!ctx.alive()) return
  if (!p) return notFound(ctx.view, 'agent', agentId)
  const rank = board && ['data', 'quarantined', 'archived'].map((k) => [k, board[k].find((e) => e.agentId === agentId)]).find(([, e]) => e)
  document.title = `${p.displayName} · Agent passport · TaskGate`
  fill(ctx.view, pageHead(p.displayName, h('span', null, 'Agent passport · ', h('code', { class: 'break' }, p.agentId))), passportCard(p, rank),
    h('div', { class: 'card' }, h('h2', null, 'Recent tasks'), dataTable(['Task', 'Status', 'Verified', 'Receipt', 'Created'], (tasks.data ?? []).map((t) => h('tr', null,
      h('td', null, mono(t.id)), h('td', null, taskStatusBadge(t.status)), h('td', null, t.verificationStatus ?? '—'),
      h('td', null, xlink('receipt', t.receiptCid, t.receiptCid ? 'verify' : null)), h('td', null, fmtDate(t.createdAt)))))))
}

// ------------------------------------------------------------------ the page

function searchPage(ctx) {
  const input = h('input', { type: 'search', name: 'q', required: true, 'aria-label': 'CID, attestation UID, verification proof or agent id', placeholder: 'bafk… · 0x… · agent id', class: 'grow' })
  const form = h('form', { class: 'row', role: 'search', onsubmit: (ev) => {
    ev.preventDefault()
    const q = input.value.trim()
    const kind = /^0x[0-9a-fA-F]{64}$/.test(q) ? 'attestation' : /^(b[a-z2-7]{20,}|Qm[1-9A-HJ-NP-Za-km-z]{44})$/.test(q) ? 'receipt' : 'agent'
    location.hash = explorerHref(kind, q)
  } }, input, h('button', { type: 'submit' }, 'Open'))
  fill(ctx.view, pageHead('Explorer', 'Look up a receipt or document (CID), an attestation (UID) or an agent. Every signature is checked in your browser.'), h('div', { class: 'card' }, form),
    h('p', { class: 'muted' }, 'A 0x… value opens as an attestation; for a verification proof use /explorer/verification/<proof>.'))
}

const PAGES = { receipt: documentPage, attestation: attestationPage, verification: verificationPage, agent: agentPage }

route('explorer', {
  title: 'Explorer', auth: 'any', nav: 'Explorer', group: 'public', order: 90,
  render: async (ctx) => {
    const slash = ctx.sub.indexOf('/')
    const kind = slash > 0 ? ctx.sub.slice(0, slash) : ctx.sub
    const id = slash > 0 ? ctx.sub.slice(slash + 1) : ''
    const page = PAGES[kind]
    if (!page || !id) return searchPage(ctx)
    fill(ctx.view, h('p', { class: 'muted' }, 'Checking signatures…'))
    await page(ctx, id)
  },
})
