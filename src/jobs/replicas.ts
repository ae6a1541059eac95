// The processes serving one PostgreSQL database (docs/scale-out.md, "Replicas"). Each registers
// under an id of its own and writes a heartbeat every third of the lease
// (TASKGATE_JOB_LEASE_SECONDS); a replica whose heartbeat is older than the lease is dead, and
// the running jobs it owned are claimed again by the others (JobRunner). Wall-clock time, not the
// service clock: a lease is about a process being alive, and the test clock moves only one process.
// The id is kept in the replica's data dir (`replica.id`): a replica that restarts is the same
// replica, and takes back at once what it was running when it stopped, without waiting for a lease.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { newId } from '../lib/ids'
import type { Logger } from '../log'
import type { ReplicaRepository } from './replica-repository'

/** The replica id kept in `dataDir` (made at the first start). */
export function replicaId(dataDir: string): string {
  const path = join(dataDir, 'replica.id')
  if (existsSync(path)) return readFileSync(path, 'utf8').trim()
  const id = newId('rep')
  writeFileSync(path, `${id}\n`, { mode: 0o600 })
  return id
}

export class ReplicaRegistry {
  private timer: ReturnType<typeof setInterval> | undefined
  private lastBeat = 0

  constructor(readonly id: string, private repo: ReplicaRepository, readonly leaseMs: number, private log: Pick<Logger, 'warn' | 'info'>, private now = () => Date.now()) {}

  /** Writes the heartbeat; false when the database cannot be reached (the next beat tries again). */
  beat(): boolean {
    try {
      this.repo.beat(this.id, this.now())
      this.lastBeat = this.now()
      return true
    } catch (e) {
      this.log.warn({ replica: this.id, err: e instanceof Error ? e.message : String(e) }, 'replica heartbeat failed')
      return false
    }
  }

  /** Heartbeats newer than this are live replicas. */
  liveSince(): number { return this.now() - this.leaseMs }

  /** Whether this process's own heartbeat is within its lease (its claims still hold). */
  holdsLease(): boolean { return this.now() - this.lastBeat < this.leaseMs }

  /** Registers now and beats every third of the lease, calling `tick` after each beat. */
  start(tick: () => void): void {
    this.beat()
    this.timer = setInterval(() => { if (this.beat()) tick() }, Math.max(100, Math.floor(this.leaseMs / 3)))
    this.timer.unref?.()
  }

  /** Stops beating and leaves: what this process still owned is claimed again at once by the others. */
  stop(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
    try { this.repo.leave(this.id) } catch { /* unreachable: its lease runs out instead */ }
  }
}
