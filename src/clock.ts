// The one clock everything time-based reads: rate windows, token expiry, nonces, the scheduler.
// In testnet with TASKGATE_TEST_CLOCK=1 an admin can move it forward (docs/foundation.md, "Jobs
// and the clock"); the offset is persisted so it survives a restart.
import type { MetaRepository } from './db/meta'

type AdvanceListener = (now: number) => void | Promise<void>

export class Clock {
  private offsetMs = 0
  private listeners: AdvanceListener[] = []

  constructor(private meta?: MetaRepository) {
    const value = meta?.get('clock.offsetMs') ?? null
    if (value !== null) this.offsetMs = Number(value) || 0
  }

  now(): number { return Date.now() + this.offsetMs }
  date(): Date { return new Date(this.now()) }
  iso(): string { return new Date(this.now()).toISOString() }
  offset(): number { return this.offsetMs }

  /** Registers a listener; returns the function that removes it. */
  onAdvance(fn: AdvanceListener): () => void {
    this.listeners.push(fn)
    return () => { this.listeners = this.listeners.filter((l) => l !== fn) }
  }

  /** Moves the clock forward by `ms` and waits for every listener (e.g. the scheduler) to catch up. */
  async advance(ms: number): Promise<number> {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('the clock only moves forward')
    // Stored first: when the write fails (a full disk) the clock has not moved.
    const next = this.offsetMs + ms
    this.meta?.set('clock.offsetMs', String(next))
    this.offsetMs = next
    for (const fn of this.listeners) await fn(this.now())
    return this.now()
  }
}

export const isoOrNull = (ms: number | null | undefined): string | null => (ms == null ? null : new Date(ms).toISOString())
