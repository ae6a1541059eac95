// Terms of Service (docs/governance.md, "Terms of Service"): versions published by the
// administrator (the newest is current; a fresh install has "1", inserted by its migration), and
// each operator's acceptance: an EIP-712 document signed by the service signer, stored on IPFS, and
// a system task (`taskType: "system"`) that records it among the operator's tasks. With
// `tos.required` on, submit and compute refuse operators who have not accepted the current version
// (403 TOS_NOT_ACCEPTED).
import type { Database } from 'bun:sqlite'
import { keccak256, toBytes, type PrivateKeyAccount } from 'viem'
import type { Clock } from '../clock'
import { conflict, forbidden } from '../http/errors'
import type { IpfsNode } from '../ipfs/node'
import { newSortableId } from '../lib/ids'
import type { TaskRow } from '../tasks/types'
import type { TaskRepository } from '../tasks/repository'

/** EIP-712 types of the acceptance document (domain `{ name: "TaskGate", version: "1", chainId }`). */
export const TOS_ACCEPTANCE_TYPES = {
  TosAcceptance: [
    { name: 'operatorId', type: 'string' },
    { name: 'version', type: 'string' },
    { name: 'textHash', type: 'bytes32' },
    { name: 'acceptedAt', type: 'string' },
  ],
} as const

export interface TosVersion { version: string; text: string; textHash: string; publishedAt: string; current: boolean }
export interface TosAcceptance { operatorId: string; version: string; ipfsCid: string; taskId: string; acceptedAt: number }

export class TosService {
  private q

  constructor(
    private db: Database, private clock: Clock, private signer: { account: PrivateKeyAccount; tosDomain: { name: string; version: string; chainId: number } },
    private ipfs: Pick<IpfsNode, 'addJson'>, private tasks: Pick<TaskRepository, 'insert'>, readonly required: boolean,
  ) {
    this.q = {
      current: db.prepare('SELECT version, text, created_at AS createdAt FROM tos_versions ORDER BY seq DESC LIMIT 1'),
      versions: db.prepare('SELECT version, text, created_at AS createdAt FROM tos_versions ORDER BY seq DESC'),
      publish: db.prepare('INSERT INTO tos_versions (version, text, created_at) VALUES (?1, ?2, ?3) ON CONFLICT(version) DO NOTHING RETURNING seq'),
      acceptance: db.prepare('SELECT operator_id AS operatorId, version, ipfs_cid AS ipfsCid, task_id AS taskId, accepted_at AS acceptedAt FROM tos_acceptances WHERE operator_id = ?1 AND version = ?2'),
      latest: db.prepare('SELECT operator_id AS operatorId, version, ipfs_cid AS ipfsCid, task_id AS taskId, accepted_at AS acceptedAt FROM tos_acceptances WHERE operator_id = ?1 ORDER BY id DESC LIMIT 1'),
      all: db.prepare('SELECT operator_id AS operatorId, version, ipfs_cid AS ipfsCid, task_id AS taskId, accepted_at AS acceptedAt FROM tos_acceptances WHERE operator_id = ?1 ORDER BY id'),
      record: db.prepare('INSERT INTO tos_acceptances (operator_id, version, ipfs_cid, task_id, accepted_at) VALUES (?1, ?2, ?3, ?4, ?5)'),
    }
  }

  private view(r: { version: string; text: string; createdAt: number }, current: string): TosVersion {
    return { version: r.version, text: r.text, textHash: keccak256(toBytes(r.text)), publishedAt: new Date(r.createdAt).toISOString(), current: r.version === current }
  }

  current(): TosVersion {
    const r = this.q.current.get() as { version: string; text: string; createdAt: number }
    return this.view(r, r.version)
  }

  versions(): TosVersion[] {
    const rows = this.q.versions.all() as { version: string; text: string; createdAt: number }[]
    return rows.map((r) => this.view(r, rows[0]!.version))
  }

  /** Publishes a new current version; an existing version → 409 TOS_VERSION_EXISTS. */
  publish(version: string, text: string): TosVersion {
    if (!this.q.publish.get(version, text, this.clock.now())) throw conflict('TOS_VERSION_EXISTS', `ToS version ${version} already exists`)
    return this.current()
  }

  status(operatorId: string) {
    const cur = this.current().version
    const a = (this.q.acceptance.get(operatorId, cur) ?? this.q.latest.get(operatorId)) as TosAcceptance | null
    return {
      accepted: a?.version === cur, acceptedAt: a ? new Date(a.acceptedAt).toISOString() : null,
      version: a?.version ?? null, ipfsCid: a?.ipfsCid ?? null, currentVersion: cur,
    }
  }

  /** The task that records the operator's acceptance of `version`, if any. */
  acceptanceTaskId(operatorId: string, version: string): string | null {
    return (this.q.acceptance.get(operatorId, version) as TosAcceptance | null)?.taskId ?? null
  }

  /** The operator's acceptances, oldest first (for the export). */
  acceptances(operatorId: string) {
    return (this.q.all.all(operatorId) as TosAcceptance[]).map((a) => ({ ...a, acceptedAt: new Date(a.acceptedAt).toISOString() }))
  }

  /**
   * Accepts `version` (must be the current one, else 409 TOS_VERSION_NOT_CURRENT). Accepting a
   * version again answers the first acceptance.
   */
  async accept(operatorId: string, version: string) {
    const cur = this.current()
    if (version !== cur.version) throw conflict('TOS_VERSION_NOT_CURRENT', `the current ToS version is ${cur.version}`, { currentVersion: cur.version })
    const prior = this.q.acceptance.get(operatorId, version) as TosAcceptance | null
    if (prior) return this.acceptView(prior)
    const now = this.clock.now()
    const message = { operatorId, version, textHash: cur.textHash as `0x${string}`, acceptedAt: new Date(now).toISOString() }
    const domain = { ...this.signer.tosDomain }
    const signature = await this.signer.account.signTypedData({ domain, types: TOS_ACCEPTANCE_TYPES, primaryType: 'TosAcceptance', message })
    const document = {
      type: 'taskgate.tos-acceptance', text: cur.text,
      payload: { domain, types: TOS_ACCEPTANCE_TYPES, primaryType: 'TosAcceptance', message }, signature, signer: this.signer.account.address,
    }
    const ipfsCid = await this.ipfs.addJson(document)
    return this.db.transaction(() => {
      const twin = this.q.acceptance.get(operatorId, version) as TosAcceptance | null // a concurrent accept won
      if (twin) return this.acceptView(twin)
      const task: TaskRow = this.tasks.insert({
        id: newSortableId('task'), operatorId, agentId: 'system', keyId: null, taskType: 'system',
        prompt: `Accept the Terms of Service, version ${version}`, model: 'system', provider: 'system',
        metadata: { kind: 'tos_acceptance', tosVersion: version, textHash: cur.textHash }, action: null,
        status: 'COMPLETED', stage: 0, output: `Terms of Service version ${version} accepted; signed acceptance document: ipfs://${ipfsCid}`,
        ipfsCid, creditsCharged: 0, createdAt: now, updatedAt: now, completedAt: now,
      })
      this.q.record.run(operatorId, version, ipfsCid, task.id, now)
      return this.acceptView({ operatorId, version, ipfsCid, taskId: task.id, acceptedAt: now })
    }).immediate()
  }

  private acceptView(a: TosAcceptance) {
    return { accepted: true, ipfsCid: a.ipfsCid, taskId: a.taskId, acceptedAt: new Date(a.acceptedAt).toISOString() }
  }

  /** With `tos.required` on: 403 TOS_NOT_ACCEPTED unless the operator accepted the current version. */
  assertAccepted(operatorId: string): void {
    if (!this.required) return
    const cur = this.current().version
    if (!this.q.acceptance.get(operatorId, cur)) {
      throw forbidden('TOS_NOT_ACCEPTED', `accept the Terms of Service version ${cur} first (POST /api/v1/operator/tos/accept)`, { currentVersion: cur })
    }
  }
}
