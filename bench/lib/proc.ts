// Child-process bookkeeping for the benchmark: every process and temp dir is registered here so
// that cleanup() can remove them on normal exit, on errors and on SIGINT/SIGTERM.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Subprocess } from 'bun'

const children = new Set<Subprocess>()
const tempDirs = new Set<string>()

export function track<T extends Subprocess>(proc: T): T {
  children.add(proc)
  void proc.exited.then(() => children.delete(proc))
  return proc
}

export function tempDir(prefix = 'taskgate-bench-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  tempDirs.add(dir)
  return dir
}

export function removeTempDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true })
  tempDirs.delete(dir)
}

/** SIGTERM, then SIGKILL after `graceMs` if the process is still there. */
export async function stop(proc: Subprocess, graceMs = 3000): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return
  proc.kill('SIGTERM')
  const done = await Promise.race([proc.exited.then(() => true), Bun.sleep(graceMs).then(() => false)])
  if (!done) { proc.kill('SIGKILL'); await proc.exited }
  children.delete(proc)
}

/** Synchronous last-resort cleanup (safe inside process.on('exit')). */
export function cleanupSync(): void {
  for (const p of children) { try { p.kill('SIGKILL') } catch { /* already gone */ } }
  children.clear()
  for (const d of tempDirs) { try { rmSync(d, { recursive: true, force: true }) } catch { /* best effort */ } }
  tempDirs.clear()
}

export async function cleanup(): Promise<void> {
  await Promise.all([...children].map((p) => stop(p, 2000).catch(() => undefined)))
  cleanupSync()
}

/** A port that was free a moment ago (bind :0 on 127.0.0.1, read it, close). */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer()
    srv.unref()
    srv.on('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address()
      const port = typeof addr === 'object' && addr ? addr.port : 0
      srv.close(() => (port ? resolvePort(port) : reject(new Error('could not get a free port'))))
    })
  })
}

/**
 * Polls `url` every `intervalMs` until it answers 200. Throws if `proc` exits first or after
 * `timeoutMs`. Returns the elapsed milliseconds since `t0` (performance.now() origin).
 */
export async function waitForHttp(url: string, proc: Subprocess, t0: number, opts: { intervalMs?: number; timeoutMs?: number; describe?: () => string } = {}): Promise<number> {
  const { intervalMs = 2, timeoutMs = 20_000 } = opts
  for (;;) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000), keepalive: false })
      if (res.status === 200) { await res.arrayBuffer(); return performance.now() - t0 }
      await res.arrayBuffer()
    } catch { /* not listening yet */ }
    if (proc.exitCode !== null || proc.signalCode !== null) {
      throw new Error(`process exited (code ${proc.exitCode}, signal ${proc.signalCode}) before ${url} answered 200${opts.describe ? `\n${opts.describe()}` : ''}`)
    }
    if (performance.now() - t0 > timeoutMs) throw new Error(`${url} did not answer 200 within ${timeoutMs} ms${opts.describe ? `\n${opts.describe()}` : ''}`)
    await Bun.sleep(intervalMs)
  }
}

export interface MemSample { rssKb: number; hwmKb: number }

/** VmRSS and VmHWM of a Linux process, from /proc/<pid>/status. */
export function readMem(pid: number): MemSample | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status)?.[1] ?? NaN)
    return { rssKb: kb('VmRSS'), hwmKb: kb('VmHWM') }
  } catch {
    return null
  }
}

/** Samples readMem(pid) every `everyMs` until stopped; returns the largest VmRSS seen. */
export function sampleRss(pid: number, everyMs = 100): { stop(): MemSample } {
  let maxRss = 0
  let hwm = 0
  const take = () => {
    const m = readMem(pid)
    if (m) { maxRss = Math.max(maxRss, m.rssKb); hwm = Math.max(hwm, m.hwmKb) }
  }
  take()
  const timer = setInterval(take, everyMs)
  return { stop() { clearInterval(timer); take(); return { rssKb: maxRss, hwmKb: hwm } } }
}

/** Environment for children: the parent's, minus any TASKGATE_* so the binary runs on defaults. */
export function cleanEnv(extra: Record<string, string> = {}): { env: Record<string, string>; stripped: string[] } {
  const env: Record<string, string> = {}
  const stripped: string[] = []
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined) continue
    if (k.startsWith('TASKGATE_')) { stripped.push(k); continue }
    env[k] = v
  }
  return { env: { ...env, ...extra }, stripped }
}

export function tail(path: string, lines = 20): string {
  try {
    return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).join('\n')
  } catch {
    return '(no output)'
  }
}

let clkTck: number | null = null
/** Clock ticks per second of /proc/<pid>/stat times (getconf CLK_TCK, normally 100). */
export function clockTicks(): number {
  if (clkTck === null) {
    const r = Bun.spawnSync(['getconf', 'CLK_TCK'], { stdout: 'pipe', stderr: 'ignore' })
    const n = Number(r.stdout.toString().trim())
    clkTck = Number.isFinite(n) && n > 0 ? n : 100
  }
  return clkTck
}

export interface CpuSample { totalS: number; mainThreadS: number; atMs: number }

/** utime+stime of the whole process and of its main thread (/proc/<pid>/task/<pid>), in seconds. */
export function readCpu(pid: number): CpuSample | null {
  const ticks = (path: string) => {
    // Fields after the ")" that closes comm: state is field 3, utime 14, stime 15.
    const stat = readFileSync(path, 'utf8')
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return Number(f[11]) + Number(f[12])
  }
  try {
    const hz = clockTicks()
    return { totalS: ticks(`/proc/${pid}/stat`) / hz, mainThreadS: ticks(`/proc/${pid}/task/${pid}/stat`) / hz, atMs: performance.now() }
  } catch {
    return null
  }
}

/** CPU used between two readCpu() samples, as a fraction of one core. */
export function cpuBetween(a: CpuSample | null, b: CpuSample | null): { totalS: number; mainThreadS: number; wallS: number; cores: number; mainThreadCores: number } | null {
  if (!a || !b) return null
  const wallS = (b.atMs - a.atMs) / 1000
  const totalS = b.totalS - a.totalS
  const mainThreadS = b.mainThreadS - a.mainThreadS
  return { totalS, mainThreadS, wallS, cores: totalS / wallS, mainThreadCores: mainThreadS / wallS }
}
