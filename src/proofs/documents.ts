// The public proof of a CID (GET /api/v1/public/proof/:cid): which task a document on this node
// belongs to. Each document the pipeline stores names its task (a receipt in its signed message, a
// task document in `taskId`, a Terms of Service acceptance by operator and version), and counts
// only if that task recorded this very CID as its receipt or document: an uploaded look-alike
// naming a real task has another CID and is not a proof. No index on the tasks' CIDs is needed
// (two random-key indexes, written with every task; docs/performance.md, Checkpoints).
import type { CID } from 'multiformats/cid'
import * as raw from 'multiformats/codecs/raw'
import { verifyReceipt } from '../chain/signer'
import { badRequest, notFound } from '../http/errors'
import { parseCid, type IpfsNode } from '../ipfs/node'
import type { TaskRow } from '../tasks/types'

export type ProofKind = 'receipt' | 'task'
export interface ProofDocument { kind: ProofKind; bytes: Uint8Array; doc: Record<string, unknown>; task: TaskRow }

/** Every document the pipeline stores is JSON beginning with its type; other content is never parsed. */
const PREFIX = new TextEncoder().encode('{"type":"taskgate.')
/** Read at most this much of a document that is not a single block (a task document with a published output over 1 MiB). */
const MAX_DOCUMENT_BYTES = 16 * 1024 * 1024

export class ProofDocuments {
  constructor(
    private ipfs: Pick<IpfsNode, 'block' | 'has' | 'cat'>,
    private task: (id: string) => TaskRow | null,
    private tosAcceptanceTask: (operatorId: string, version: string) => string | null,
    /** Content re-hashed to its CID (the embedded IPFS node's importer). */
    private recomputeCid: (bytes: Uint8Array) => Promise<string>,
    /** The service signer's address, asked at the first check: deriving it is the key's first secp256k1 multiplication (noble's base-point table), which start-up need not wait for (Signer.account). */
    private signerAddress: () => string,
  ) {}

  /**
   * A proof checked as a client would (GET /api/v1/public/proof/:cid, the MCP tool verify_receipt):
   * the document under the CID, its content re-hashed to the CID and, for a receipt, its EIP-712
   * signature verified. 400 INVALID_CID, 404 NOT_FOUND for anything that is not a task's proof.
   */
  async verify(cidText: string) {
    const cid = parseCid(cidText)
    if (!cid) throw badRequest('INVALID_CID', 'not a valid CID')
    const found = await this.find(cid)
    if (!found) throw notFound('proof')
    const { kind, bytes, doc, task } = found
    const key = cid.toString()
    const cidMatches = (await this.recomputeCid(bytes)) === key
    if (kind === 'receipt') {
      const signatureValid = await verifyReceipt(doc as never)
      return { cid: key, kind, doc, task, verification: { signatureValid, signer: String(doc.signer), signerKnown: String(doc.signer).toLowerCase() === this.signerAddress().toLowerCase(), cidMatches } }
    }
    return { cid: key, kind, doc, task, verification: { cidMatches } }
  }

  /** The receipt or task document stored under `cid`, with its task; null for anything else. */
  async find(cid: CID): Promise<ProofDocument | null> {
    const bytes = await this.read(cid)
    if (!bytes || bytes.length < PREFIX.length || PREFIX.some((b, i) => bytes[i] !== b)) return null
    let doc: Record<string, unknown>
    try { doc = JSON.parse(new TextDecoder().decode(bytes)) } catch { return null }
    const named = this.named(doc)
    const task = named ? this.task(named.taskId) : null
    if (!named || !task || (named.kind === 'receipt' ? task.receiptCid : task.ipfsCid) !== cid.toString()) return null
    return { kind: named.kind, bytes, doc, task }
  }

  /**
   * The content under `cid`, or null: a single raw block (every receipt and task document up to
   * 1 MiB) in one read; anything else only if its root is stored here (so an unknown CID never
   * loads Helia) and within MAX_DOCUMENT_BYTES.
   */
  private async read(cid: CID): Promise<Uint8Array | null> {
    if (cid.code === raw.code) return this.ipfs.block(cid)
    if (!this.ipfs.has(cid)) return null
    try { return await this.ipfs.cat(cid, MAX_DOCUMENT_BYTES) } catch { return null }
  }

  /** The task a document says it belongs to. */
  private named(doc: Record<string, unknown>): { kind: ProofKind; taskId: string } | null {
    const str = (v: unknown) => (typeof v === 'string' ? v : null)
    const message = ((doc.payload as Record<string, unknown> | undefined)?.message ?? {}) as Record<string, unknown>
    const kind: ProofKind = doc.type === 'taskgate.receipt/v1' ? 'receipt' : 'task'
    let taskId: string | null = null
    if (doc.type === 'taskgate.receipt/v1') taskId = str(message.taskId)
    else if (doc.type === 'taskgate.task/v1') taskId = str(doc.taskId)
    else if (doc.type === 'taskgate.tos-acceptance') {
      const operatorId = str(message.operatorId), version = str(message.version)
      taskId = operatorId && version ? this.tosAcceptanceTask(operatorId, version) : null
    }
    return taskId ? { kind, taskId } : null
  }
}
