// Context uploads (/v1/prior/claim): stored on the embedded IPFS node, counted against the
// operator's rolling 24 h quota (by default 100 uploads and 200 MiB per
// operator: docs/security.md, "Limits").
// Uploads in flight are counted too, so parallel requests cannot all slip under the quota.
import type { Clock } from '../clock'
import { tooManyRequests } from '../http/errors'
import type { IpfsNode } from './node'
import type { UploadRepository } from './repository'

const DAY = 86_400_000

export interface UploadLimits { perDay: number; bytesPerDay: number }

export class UploadService {
  private inflight = new Map<string, { n: number; bytes: number }>()

  constructor(private repo: UploadRepository, private clock: Clock, private ipfs: IpfsNode, private limits: UploadLimits) {}

  /** Refuses (429 UPLOAD_QUOTA_EXCEEDED) an upload of `size` bytes that would exceed the quota. */
  assertQuota(operatorId: string, size: number): void {
    const now = this.clock.now()
    const used = this.repo.usage(operatorId, now - DAY)
    const pending = this.inflight.get(operatorId) ?? { n: 0, bytes: 0 }
    const n = used.n + pending.n, bytes = used.bytes + pending.bytes
    if (n + 1 <= this.limits.perDay && bytes + size <= this.limits.bytesPerDay) return
    throw tooManyRequests('UPLOAD_QUOTA_EXCEEDED',
      `upload quota reached: ${this.limits.perDay} uploads and ${this.limits.bytesPerDay} bytes per operator per 24 h (used ${n} uploads, ${bytes} bytes)`,
      ((used.oldest ?? now) + DAY - now) / 1000,
      { limit: { uploads: this.limits.perDay, bytes: this.limits.bytesPerDay }, used: { uploads: n, bytes } })
  }

  /** Stores the bytes (after a final quota check) and records the upload; returns the CID. */
  async store(operatorId: string, bytes: Uint8Array): Promise<string> {
    this.assertQuota(operatorId, bytes.byteLength)
    const slot = this.inflight.get(operatorId) ?? { n: 0, bytes: 0 }
    slot.n++; slot.bytes += bytes.byteLength
    this.inflight.set(operatorId, slot)
    try {
      const cid = await this.ipfs.addBytes(bytes)
      this.repo.insert(operatorId, cid, bytes.byteLength, this.clock.now())
      return cid
    } finally {
      slot.n--; slot.bytes -= bytes.byteLength
      if (slot.n === 0) this.inflight.delete(operatorId)
    }
  }
}
