// Storage faults (docs/security.md, "A full disk"): recognising SQLITE_FULL / ENOSPC, and the
// service-wide "storage is full" state that /readyz reports and that writes answer 507 for.
//
// While storage is full, a probe performs a tiny real committed write on each database every
// `probeMs`; when all succeed, the state clears and listeners (the job runner, the overflow queue,
// start-up work that had to wait) pick up where they stopped. Nothing else polls the disk.
//
// The reserve file (`<dataDir>/storage.reserve`, 1 MiB), measured on Bun 1.4.5 / SQLite 3.54 /
// tmpfs: opening a WAL database creates its `-shm` file and extends it by writing one byte per
// 4 KiB page (so a full tmpfs never SIGBUSes the mmap); when that write fails, every statement,
// reads included, fails with SQLITE_IOERR_SHMSIZE "disk I/O error". After a clean shutdown SQLite
// deletes `-shm`, so a server stopped cleanly could not even read its database once the disk filled.
// Hence the reserve: when less than its size is free at start-up it is deleted before the databases
// open (they get their shared-memory files), and start() takes the space back right after and
// probes; a server that could not is in the "full" state from the start. The probe restores the
// reserve to its full size before it declares storage available again.
import { closeSync, fstatSync, openSync, statfsSync, statSync, unlinkSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import type { Logger } from '../log'

/** Whether `e`, or an error it wraps (`cause`, a few levels deep), passes `test`. */
function someCause(e: unknown, test: (err: { code?: unknown; message?: unknown }) => boolean): boolean {
  for (let depth = 0; depth < 4 && e && typeof e === 'object'; depth++) {
    if (test(e as { code?: unknown; message?: unknown })) return true
    e = (e as { cause?: unknown }).cause
  }
  return false
}

/**
 * True for SQLite's "database is locked" (SQLITE_BUSY and its extended codes), also when wrapped:
 * another process (a CLI command on this data dir) held the write lock for longer than the busy
 * timeout (5 s). Not a fault of the request: answered 503 DATABASE_BUSY with Retry-After.
 */
export function isDatabaseBusy(e: unknown): boolean {
  return someCause(e, (err) => (typeof err.code === 'string' && err.code.startsWith('SQLITE_BUSY')) || (typeof err.message === 'string' && /^database is locked/.test(err.message)))
}

/** PostgreSQL mode: the database could not be reached (DatabaseUnavailable, src/db/pg/connection.ts), also when wrapped. */
export function isDatabaseUnavailable(e: unknown): boolean {
  return someCause(e, (err) => err.code === 'DATABASE_UNAVAILABLE')
}

/**
 * Errors after which work waits for its store to come back — a full disk, or (PostgreSQL mode) an
 * unreachable database — and resumes then, instead of failing: the monitor's "unavailable" state.
 */
export function isStorageUnavailable(e: unknown): boolean {
  return isStorageFull(e) || isDatabaseUnavailable(e)
}

/** True for errors that mean the disk (or the database's size cap) is full, also when wrapped (`cause`). */
export function isStorageFull(e: unknown): boolean {
  // SQLITE_IOERR_SHMSIZE: SQLite could not extend a -shm file (the disk is full when a database opens).
  return someCause(e, (err) => err.code === 'SQLITE_FULL' || err.code === 'ENOSPC' || err.code === 'SQLITE_IOERR_SHMSIZE'
    || (typeof err.message === 'string' && /database or disk is full|no space left on device/i.test(err.message)))
}

export const RESERVE_FILE = 'storage.reserve'
const DEFAULT_RESERVE_BYTES = 1024 * 1024

export interface StorageMonitorOptions {
  log?: Logger
  /** How often to probe while storage is full. */
  probeMs?: number
  /** Where the reserve file lives (no reserve without it). */
  dataDir?: string
  /** Size of the reserve file; 0 disables it. */
  reserveBytes?: number
}

interface Probe { name: string; run: () => void }

export class StorageMonitor {
  /** Writes cannot be stored now: the disk is full, or (PostgreSQL mode) the database unreachable (`kind`). */
  full = false
  /** What is unavailable while `full`: the disk, or the database. */
  kind: 'disk' | 'database' | null = null
  /** When storage became full (ms since the epoch), or null. */
  since: number | null = null
  /** Why: the error that said so, in words (for the log; never sent to clients). */
  reason: string | null = null

  private log: Logger | undefined
  private probeMs: number
  private dataDir: string | null
  private reservePath: string | null
  private reserveBytes: number
  private probes: Probe[] = []
  private listeners = new Set<() => void | Promise<void>>()
  private fullListeners = new Set<() => void>()
  private timer: ReturnType<typeof setInterval> | undefined
  private stopped = false

  constructor(o: StorageMonitorOptions = {}) {
    this.log = o.log
    this.probeMs = Math.max(10, o.probeMs ?? 2000)
    this.dataDir = o.dataDir ?? null
    this.reserveBytes = o.reserveBytes ?? DEFAULT_RESERVE_BYTES
    this.reservePath = o.dataDir && this.reserveBytes > 0 ? join(o.dataDir, RESERVE_FILE) : null
    // Before any database opens: when less than the reserve is free, its space goes to SQLite.
    if (this.reservePath && (freeBytes(o.dataDir!) ?? Infinity) < this.reserveBytes) {
      try { unlinkSync(this.reservePath) } catch { /* no reserve yet */ }
    }
  }

  /** Registers a tiny committed write that must succeed before storage counts as available. */
  addProbe(name: string, run: () => void): void { this.probes.push({ name, run }) }

  /** Registers a listener called once storage is available again; returns the function that removes it. */
  onRecovered(fn: () => void | Promise<void>): () => void {
    this.listeners.add(fn)
    return () => { this.listeners.delete(fn) }
  }

  /**
   * Registers a listener called each time storage becomes full (requests waiting for work to
   * finish stop waiting: nothing finishes until space is back); returns the function that removes it.
   */
  onFull(fn: () => void): () => void {
    this.fullListeners.add(fn)
    return () => { this.fullListeners.delete(fn) }
  }

  /**
   * At start-up, once the databases are open: takes back (or creates) the reserve and probes every
   * database. When either fails the disk is full: the server starts in the "full" state and says so.
   */
  start(): void {
    const error = this.check()
    if (error) this.markFull(error, 'storage is full at start-up: the server runs, reads keep working; writes answer 507 STORAGE_FULL until space is freed')
  }

  /** Storage is full: logs once (with the reason) and probes every `probeMs` until space is back. */
  markFull(error?: unknown, message = 'storage is full: reads keep working; writes answer 507 STORAGE_FULL until space is freed'): void {
    if (this.full || this.stopped) return
    this.full = true
    this.kind = isDatabaseUnavailable(error) ? 'database' : 'disk'
    this.since = Date.now()
    this.reason = describe(error)
    if (this.kind === 'database') this.log?.warn({ reason: this.reason }, 'the database cannot be reached: requests answer 503 DATABASE_UNAVAILABLE; work in flight resumes once it answers')
    else this.log?.warn({ reason: this.reason, freeBytes: this.dataDir ? freeBytes(this.dataDir) : null }, message)
    // An unreachable database is asked often (a trivial query): work resumes soon after it answers.
    this.timer = setInterval(() => this.probe(), this.kind === 'database' ? Math.min(this.probeMs, 250) : this.probeMs)
    this.timer.unref?.()
    for (const fn of [...this.fullListeners]) {
      try { fn() } catch (e) { this.log?.error({ err: describe(e) }, 'a storage-full listener failed') }
    }
  }

  /** One probe round; clears "full" (and tells the listeners) when it succeeds. */
  probe(): boolean {
    if (!this.full) return true
    if (this.stopped || this.check()) return false
    this.recovered()
    return true
  }

  stop(): void {
    this.stopped = true
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
  }

  /** Restores the reserve, then writes to every database: null when all succeeded, else the storage error. */
  private check(): unknown {
    if (!this.ensureReserve()) return Object.assign(new Error(`no room for the ${this.reserveBytes}-byte storage reserve`), { code: 'ENOSPC' })
    for (const p of this.probes) {
      try {
        p.run()
      } catch (e) {
        if (isStorageUnavailable(e)) return e
        // Not a space problem (e.g. a long lock): no verdict this round.
        this.log?.warn({ probe: p.name, err: describe(e) }, 'storage probe failed')
        return this.full ? e : null
      }
    }
    return null
  }

  private recovered(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
    const fullForMs = this.since === null ? null : Date.now() - this.since
    const kind = this.kind
    this.full = false
    this.kind = null
    this.since = null
    this.reason = null
    this.log?.info({ fullForMs }, kind === 'database' ? 'the database answers again' : 'storage available again')
    for (const fn of [...this.listeners]) {
      try {
        const r = fn()
        if (r instanceof Promise) r.catch((e) => this.listenerFailed(e))
      } catch (e) {
        this.listenerFailed(e)
      }
    }
  }

  private listenerFailed(e: unknown): void {
    if (isStorageUnavailable(e)) this.markFull(e)
    else this.log?.error({ err: describe(e) }, 'work resumed after storage came back failed')
  }

  /** Makes the reserve file its full size; false when the disk has no room for it. */
  private ensureReserve(): boolean {
    const path = this.reservePath
    if (!path) return true
    let size = 0
    try { size = statSync(path).size } catch { /* missing */ }
    if (size >= this.reserveBytes) return true
    let fd: number | undefined
    try {
      fd = openSync(path, 'a')
      size = fstatSync(fd).size
      const zeros = Buffer.alloc(Math.min(64 * 1024, this.reserveBytes))
      while (size < this.reserveBytes) size += writeSync(fd, zeros, 0, Math.min(zeros.length, this.reserveBytes - size))
      return true
    } catch (e) {
      if (isStorageFull(e)) return false // keeps what it got: that space is the reserve's again
      // Not a space problem (read-only dir, permissions): run without a reserve.
      this.log?.warn({ err: describe(e), path }, 'cannot keep a storage reserve file; a restart on a full disk may fail')
      this.reservePath = null
      return true
    } finally {
      if (fd !== undefined) closeSync(fd)
    }
  }
}

/** Bytes an unprivileged writer could still use on the file system of `dir`, or null when unknown. */
function freeBytes(dir: string): number | null {
  try {
    const st = statfsSync(dir)
    return Number(st.bavail) * Number(st.bsize)
  } catch {
    return null
  }
}

function describe(e: unknown): string {
  if (!e) return 'unknown'
  const err = e as { code?: unknown; message?: unknown }
  const msg = typeof err.message === 'string' ? err.message : String(e)
  return typeof err.code === 'string' && !msg.includes(err.code) ? `${err.code}: ${msg}` : msg
}
