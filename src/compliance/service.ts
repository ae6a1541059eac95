// Compliance certificates (docs/compliance.md), PRO and ENTERPRISE only. A certificate covers a
// period (on demand: the current calendar month so far; monthly: the month that just ended) and
// verifies from itself alone:
//   certHash  = keccak256 of the canonical JSON (keys sorted recursively, no whitespace) of the
//               certificate without certHash, signature, signer and ipfsCid;
//   signature = EIP-191 personal_sign of certHash (its 32 bytes) by `signer`, the service key;
//   ipfsCid   = the canonical JSON of the certificate without ipfsCid, on this node's IPFS.
// The monthly certificate is issued by the durable scheduler at 00:00 UTC on the 1st (the service
// clock, so the test clock drives it), once per operator and month.
import { keccak256, toBytes, type Hex, type PrivateKeyAccount } from 'viem'
import type { Clock } from '../clock'
import type { Tier } from '../config'
import { monthStart, nextMonthStart } from '../credits/service'
import { forbidden } from '../http/errors'
import type { IpfsNode } from '../ipfs/node'
import type { JobRunner } from '../jobs/runner'
import { newId } from '../lib/ids'
import type { Logger } from '../log'
import { effectiveTier, type OperatorRow } from '../operators/service'
import type { ComplianceRepository } from './repository'

const YEAR = 365 * 86_400_000
const STATUSES = ['PENDING_APPROVAL', 'QUEUED', 'PROCESSING', 'COMPLETED', 'FAILED'] as const

/** JSON with object keys sorted recursively and no whitespace. */
export function canonicalJson(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v)
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`
  const o = v as Record<string, unknown>
  return `{${Object.keys(o).filter((k) => o[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`
}

export interface ComplianceSummary {
  totalTasks: number
  taskCounts: Record<(typeof STATUSES)[number], number>
  verifiedTasks: number
  /** verified ÷ completed (0–1, 4 decimals); 0 with no completed task. */
  verificationRate: number
  /** Credits debited for tasks and compute in the period, net of refunds. */
  creditsSpent: number
  /** Each agent's state root at the end of the period (null before its first fingerprinted task). */
  agents: { agentId: string; tasks: number; stateRoot: string | null }[]
}

export interface Certificate {
  id: string; operatorId: string; tier: Tier; issuedAt: string; expiresAt: string; periodStart: string; periodEnd: string
  summary: ComplianceSummary; certHash: Hex; signature: Hex; signer: `0x${string}`; ipfsCid: string
}

export class ComplianceService {
  constructor(
    private repo: ComplianceRepository, private clock: Clock, private signer: { account: PrivateKeyAccount }, private ipfs: Pick<IpfsNode, 'addBytes'>,
    private jobs: Pick<JobRunner, 'enqueue'>, private operators: { byId(id: string): OperatorRow | undefined; list(): OperatorRow[] }, private log: Logger,
  ) {}

  /** 403 TIER_REQUIRED for FREE operators. */
  assertTier(op: OperatorRow): Tier {
    const tier = effectiveTier(op)
    if (tier === 'FREE') throw forbidden('TIER_REQUIRED', 'compliance certificates are for PRO and ENTERPRISE operators', { requiredTier: 'PRO', tier })
    return tier
  }

  list(operatorId: string): Certificate[] {
    return this.repo.list(operatorId) as Certificate[] // stored as issued
  }

  /** A certificate for the current calendar month so far. */
  async generate(op: OperatorRow): Promise<Certificate> {
    const tier = this.assertTier(op)
    const now = this.clock.now()
    return this.issue(op.id, tier, monthStart(now), now, null)
  }

  summary(operatorId: string, from: number, to: number): ComplianceSummary {
    const taskCounts = Object.fromEntries(STATUSES.map((st) => [st, 0])) as ComplianceSummary['taskCounts']
    let verifiedTasks = 0
    for (const r of this.repo.taskCounts(operatorId, from, to)) {
      taskCounts[r.status as (typeof STATUSES)[number]] = r.n
      verifiedTasks += r.verified ?? 0
    }
    const totalTasks = Object.values(taskCounts).reduce((a, b) => a + b, 0)
    const agents = this.repo.agentIds(operatorId).map((id) => ({
      agentId: id,
      tasks: this.repo.agentTasks(id, from, to),
      stateRoot: this.repo.agentRoot(id, to),
    }))
    return {
      totalTasks, taskCounts, verifiedTasks,
      verificationRate: taskCounts.COMPLETED ? Math.round((verifiedTasks / taskCounts.COMPLETED) * 10_000) / 10_000 : 0,
      creditsSpent: this.repo.creditsSpent(operatorId, from, to),
      agents,
    }
  }

  private async issue(operatorId: string, tier: Tier, from: number, to: number, autoKey: string | null): Promise<Certificate> {
    const issuedAt = this.clock.now()
    const body = {
      id: newId('cert'), operatorId, tier, issuedAt: new Date(issuedAt).toISOString(), expiresAt: new Date(issuedAt + YEAR).toISOString(),
      periodStart: new Date(from).toISOString(), periodEnd: new Date(to).toISOString(), summary: this.summary(operatorId, from, to),
    }
    const certHash = keccak256(toBytes(canonicalJson(body)))
    const signature = await this.signer.account.signMessage({ message: { raw: certHash } })
    const signed = { ...body, certHash, signature, signer: this.signer.account.address }
    const ipfsCid = await this.ipfs.addBytes(new TextEncoder().encode(canonicalJson(signed)))
    const cert: Certificate = { ...signed, ipfsCid }
    this.repo.insert({ id: cert.id, operatorId, issuedAt, autoKey, certificate: cert })
    return cert
  }

  /** Schedules the next monthly run (a run missed while the server was down is still pending, hence due at once). */
  schedule(): void {
    this.jobs.enqueue('compliance.monthly', {}, { runAt: nextMonthStart(this.clock.now()), dedupeKey: 'compliance.monthly' })
  }

  /** Issues the certificate of the month that just ended to every active PRO and ENTERPRISE operator, once each. */
  async issueMonthly(): Promise<number> {
    const now = this.clock.now()
    const end = monthStart(now)
    const start = monthStart(end - 1)
    const month = new Date(start).toISOString().slice(0, 7)
    let n = 0
    for (const op of this.operators.list()) {
      const tier = effectiveTier(op)
      if (tier === 'FREE' || op.status !== 'ACTIVE' || op.createdAt >= end) continue
      const key = `monthly:${op.id}:${month}`
      if (this.repo.hasAuto(key)) continue
      await this.issue(op.id, tier, start, end, key)
      n++
    }
    if (n) this.log.info({ issued: n, month }, 'monthly compliance certificates')
    this.schedule()
    return n
  }
}
