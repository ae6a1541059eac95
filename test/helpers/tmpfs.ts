// A small tmpfs for the full-disk tests: mounted by the test (needs root and mount), filled with a
// filler file until the file system refuses.
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface Tmpfs { dir: string; mounted: boolean; skipReason: string; unmount(): void }

/** Mounts a tmpfs of `mb` MiB on a new temporary directory; `mounted` false (with the reason) where that is not allowed. */
export function mountTmpfs(mb: number, prefix: string): Tmpfs {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  let m: { exitCode: number | null; stderr: Buffer | undefined }
  try { m = Bun.spawnSync(['mount', '-t', 'tmpfs', '-o', `size=${mb}m,mode=0700`, 'tmpfs', dir], { stderr: 'pipe' }) }
  catch (e) { m = { exitCode: null, stderr: Buffer.from(String(e)) } }
  const mounted = m.exitCode === 0
  return {
    dir, mounted,
    skipReason: mounted ? '' : `cannot mount a tmpfs (needs root and mount): ${m.stderr?.toString().trim()}`,
    unmount() {
      if (mounted) Bun.spawnSync(['umount', '-l', dir])
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** Writes zeros into a new file until the file system refuses (ENOSPC), keeping the file; returns its size. */
export function fillDisk(path: string): number {
  const fd = openSync(path, 'a')
  let size = 0
  try {
    for (const chunk of [1 << 20, 1 << 16, 4096, 512, 1]) {
      const buf = Buffer.alloc(chunk)
      try { for (;;) size += writeSync(fd, buf) } catch (e) { if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e }
    }
  } finally { closeSync(fd) }
  return size
}
