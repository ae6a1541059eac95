// How a task row stores its timeline, read back exactly (TaskRepository; the verification record,
// its other large value, has its own column type: src/db/verification-column.ts). Each event is a
// JSON array [stage, status, detail, at(, name)] instead of an object, the name left out when it is
// its stage's, and the detail 0 when it is the stage's own fields of the row, written by the same
// statement and never again (stage 4's score and status, the CIDs of stages 5 and 8, stage 7's
// attestation UID). Events written before are objects and stay so.
import type { StoredEvent, TaskRow } from './types'

/** The name of each stage's events (src/pipeline/runner.ts STAGES). */
const STAGE_NAMES = ['', 'policy', 'debit', 'compute', 'verification', 'ipfs', 'fingerprint', 'attestation', 'receipt']

type Refs = Pick<TaskRow, 'verificationScore' | 'verificationStatus' | 'ipfsCid' | 'attestationUid' | 'receiptCid'>
/** A stage's own fields as its event's detail, or undefined when the row does not hold them. */
function ownFields(stage: number, row: Partial<Refs>): Record<string, unknown> | undefined {
  const all = (d: Record<string, unknown>) => (Object.values(d).some((v) => v === undefined || v === null) ? undefined : d)
  switch (stage) {
    case 4: return all({ score: row.verificationScore, status: row.verificationStatus })
    case 5: return all({ cid: row.ipfsCid })
    case 7: return all({ uid: row.attestationUid })
    case 8: return all({ cid: row.receiptCid })
    default: return undefined
  }
}

/**
 * Events as the statement that writes `fields` (the inserted row, or the update's patch) appends
 * them to the timeline: their JSON texts joined by commas.
 */
export function encodeEvents(events: StoredEvent[], fields: Partial<Refs>): string {
  return events.map((e) => {
    const own = ownFields(e.stage, fields)
    const detail = own && e.detail && JSON.stringify(own) === JSON.stringify(e.detail) ? 0 : e.detail
    const a: unknown[] = [e.stage, e.status, detail, e.at]
    if (e.name !== STAGE_NAMES[e.stage]) a.push(e.name)
    return JSON.stringify(a)
  }).join(',')
}

/** The stored timeline of a row, events in either form. */
export function decodeTimeline(text: string, row: Refs): StoredEvent[] {
  return (JSON.parse(text) as (StoredEvent | [number, string, Record<string, unknown> | null | 0, number, string?])[]).map((e) => {
    if (!Array.isArray(e)) return e
    const [stage, status, detail, at, name] = e
    return { stage, name: name ?? STAGE_NAMES[stage]!, status, detail: detail === 0 ? ownFields(stage, row)! : detail, at }
  })
}
