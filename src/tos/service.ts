// Terms of Service (docs/governance.md, "Terms of Service"): versions published by the
// administrator (the newest is current; a fresh install has "1", inserted by its migration), and
// each operator's acceptance: an EIP-712 document signed by the service signer, stored on IPFS, and
// a system task (`taskType: "system"`) that records it among the operator's tasks. With
// `tos.required` on, submit and compute refuse operators who have not accepted the current version
// (403 TOS_NOT_ACCEPTED).
import { keccak256, toBytes, type PrivateKeyAccount } from 'viem'
import type { Clock } from '../clock'
import type { Transactor } from '../db/transactor'
import { conflict, forbidden } from '../http/errors'
import type { IpfsNode } from '../ipfs/node'
import { newSortableId } from '../lib/ids'
import type { TaskRow } from '../tasks/types'
import type { TaskRepository } from '../tasks/repository'
import type { TosAcceptance, TosRepository } from './repository'

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

export class TosService {
  constructor(
    private repo: TosRepository, private tx: Transactor, private clock: Clock,
    private signer: { account: PrivateKeyAccount; tosDomain: { name: string; version: string; chainId: number } },
    private ipfs: Pick<IpfsNode, 'addJson'>, private tasks: Pick<TaskRepository, 'insert'>, readonly required: boolean,
  ) {}

  private view(r: { version: string; text: string; createdAt: number }, current: string): TosVersion {
    return { version: r.version, text: r.text, textHash: keccak256(toBytes(r.text)), publishedAt: new Date(r.createdAt).toISOString(), current: r.version === current }
  }

  current(): TosVersion {
    const r = this.repo.current()
    return this.view(r, r.version)
  }

  versions(): TosVersion[] {
    const rows = this.repo.versions()
    return rows.map((r) => this.view(r, rows[0]!.version))
  }

  /** Publishes a new current version; an existing version → 409 TOS_VERSION_EXISTS. */
  publish(version: string, text: string): TosVersion {
    if (!this.repo.publish(version, text, this.clock.now())) throw conflict('TOS_VERSION_EXISTS', `ToS version ${version} already exists`)
    return this.current()
  }

  status(operatorId: string) {
    const cur = this.current().version
    const a = this.repo.acceptance(operatorId, cur) ?? this.repo.latest(operatorId)
    return {
      accepted: a?.version === cur, acceptedAt: a ? new Date(a.acceptedAt).toISOString() : null,
      version: a?.version ?? null, ipfsCid: a?.ipfsCid ?? null, currentVersion: cur,
    }
  }

  /** The task that records the operator's acceptance of `version`, if any. */
  acceptanceTaskId(operatorId: string, version: string): string | null {
    return this.repo.acceptance(operatorId, version)?.taskId ?? null
  }

  /** The operator's acceptances, oldest first (for the export). */
  acceptances(operatorId: string) {
    return this.repo.acceptances(operatorId).map((a) => ({ ...a, acceptedAt: new Date(a.acceptedAt).toISOString() }))
  }

  /**
   * Accepts `version` (must be the current one, else 409 TOS_VERSION_NOT_CURRENT). Accepting a
   * version again answers the first acceptance.
   */
  async accept(operatorId: string, version: string) {
    const cur = this.current()
    if (version !== cur.version) throw conflict('TOS_VERSION_NOT_CURRENT', `the current ToS version is ${cur.version}`, { currentVersion: cur.version })
    const prior = this.repo.acceptance(operatorId, version)
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
    return this.tx.write(() => {
      const twin = this.repo.acceptance(operatorId, version) // a concurrent accept won
      if (twin) return this.acceptView(twin)
      const task: TaskRow = this.tasks.insert({
        id: newSortableId('task'), operatorId, agentId: 'system', keyId: null, taskType: 'system',
        prompt: `Accept the Terms of Service, version ${version}`, model: 'system', provider: 'system',
        metadata: { kind: 'tos_acceptance', tosVersion: version, textHash: cur.textHash }, action: null,
        status: 'COMPLETED', stage: 0, output: `Terms of Service version ${version} accepted; signed acceptance document: ipfs://${ipfsCid}`,
        ipfsCid, creditsCharged: 0, createdAt: now, updatedAt: now, completedAt: now,
      })
      const accepted = { operatorId, version, ipfsCid, taskId: task.id, acceptedAt: now }
      this.repo.record(accepted)
      return this.acceptView(accepted)
    })
  }

  private acceptView(a: TosAcceptance) {
    return { accepted: true, ipfsCid: a.ipfsCid, taskId: a.taskId, acceptedAt: new Date(a.acceptedAt).toISOString() }
  }

  /** With `tos.required` on: 403 TOS_NOT_ACCEPTED unless the operator accepted the current version. */
  assertAccepted(operatorId: string): void {
    if (!this.required) return
    const cur = this.current().version
    if (!this.repo.acceptance(operatorId, cur)) {
      throw forbidden('TOS_NOT_ACCEPTED', `accept the Terms of Service version ${cur} first (POST /api/v1/operator/tos/accept)`, { currentVersion: cur })
    }
  }
}
