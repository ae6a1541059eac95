// The operator's data export (docs/governance.md, "Data export"): one JSON document, streamed. The
// small members are read at once; tasks and the ledger are written page by page, so a large history
// never sits in memory as one string. It holds no secret: keys appear as records (prefix …
// last 4, never the key or its hash), the profile without password hash or tokens, guardrails
// without the webhook secret, A2A push configs without their token or credentials, and no provider keys.
import type { TaskRow } from '../tasks/types'

const PAGE = 100

/** Where each member comes from; every function answers what the operator's own API answers. */
export interface ExportSources {
  profile(operatorId: string): unknown
  keys(operatorId: string): unknown[]
  agents(operatorId: string): unknown[]
  /** One task as its owner reads it (prompt, output, receipt, timeline). */
  task(t: TaskRow): unknown
  /** The operator's tasks after `after` in (createdAt, id) order, up to `limit`. */
  tasksAfter(operatorId: string, after: { createdAt: number; id: string }, limit: number): TaskRow[]
  /** The operator's ledger entries after id `after`, oldest first, up to `limit`. */
  ledgerAfter(operatorId: string, after: number, limit: number): { id: number; createdAt: number }[]
  guardrails(operatorId: string): unknown
  /** Every approval request, whatever its decision, newest first. */
  approvals(operatorId: string): unknown[]
  tos(operatorId: string): unknown
  certificates(operatorId: string): unknown[]
  wallet(operatorId: string): unknown
  pioneerEvents(operatorId: string): unknown[]
  /** The A2A push notification configs of the operator's tasks, without token or credentials. */
  a2aPushConfigs(operatorId: string): unknown[]
}

export class ExportService {
  constructor(private clock: { now(): number }, private src: ExportSources) {}

  /** The document's text, piece by piece. */
  *chunks(operatorId: string): Generator<string> {
    const j = JSON.stringify
    const s = this.src
    yield `{"exportedAt":${j(new Date(this.clock.now()).toISOString())},"operatorId":${j(operatorId)}`
    yield `,"profile":${j(s.profile(operatorId))},"keys":${j(s.keys(operatorId))},"agents":${j(s.agents(operatorId))}`
    yield ',"tasks":['
    let first = true
    for (let after = { createdAt: -1, id: '' }; ;) {
      const rows = s.tasksAfter(operatorId, after, PAGE)
      if (rows.length === 0) break
      yield (first ? '' : ',') + rows.map((t) => j(s.task(t))).join(',')
      first = false
      const last = rows[rows.length - 1]!
      after = { createdAt: last.createdAt, id: last.id }
      if (rows.length < PAGE) break
    }
    yield '],"ledger":['
    first = true
    for (let after = 0; ;) {
      const rows = s.ledgerAfter(operatorId, after, PAGE)
      if (rows.length === 0) break
      yield (first ? '' : ',') + rows.map((r) => j({ ...r, createdAt: new Date(r.createdAt).toISOString() })).join(',')
      first = false
      after = rows[rows.length - 1]!.id
      if (rows.length < PAGE) break
    }
    yield `],"guardrails":${j(s.guardrails(operatorId))}`
    yield `,"approvals":${j(s.approvals(operatorId))}`
    yield `,"tos":${j(s.tos(operatorId))},"certificates":${j(s.certificates(operatorId))}`
    yield `,"wallet":${j(s.wallet(operatorId))},"pioneerEvents":${j(s.pioneerEvents(operatorId))},"a2aPushConfigs":${j(s.a2aPushConfigs(operatorId))}}`
  }

  /** The document as a byte stream: each pull writes the next piece (a page of tasks or ledger entries). */
  stream(operatorId: string): ReadableStream<Uint8Array> {
    const enc = new TextEncoder()
    const it = this.chunks(operatorId)
    return new ReadableStream<Uint8Array>({
      pull(c) {
        const n = it.next()
        if (n.done) c.close()
        else c.enqueue(enc.encode(n.value))
      },
      cancel() { it.return(undefined) },
    })
  }
}
