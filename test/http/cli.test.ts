// The CLI and first-run files: version, migrate, backup, secrets with 0600, sign-up switch.
import { TEST_POSTGRES } from '../helpers/postgres'
import { Database } from 'bun:sqlite'
import { afterAll, describe, expect, test } from 'bun:test'
import { existsSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { cli, expectProblem, startServer, tempDir } from '../helpers/server'

const dirs: string[] = []
afterAll(() => { for (const d of dirs) rmSync(d, { recursive: true, force: true }) })

describe('CLI', () => {
  test('version and config', async () => {
    const v = await cli(['version'])
    expect(v.code).toBe(0)
    expect(v.stdout).toMatch(/^taskgate \d+\.\d+\.\d+ \(bun /)
    const c = await cli(['config'])
    expect(c.stdout).toContain('TASKGATE_PORT')
    expect(c.stdout).not.toContain('HEAP_GROWTH') // serve no longer restarts itself with engine options
    const bad = await cli(['frobnicate'])
    expect(bad.code).not.toBe(0)
    expect(bad.stderr).toContain('unknown command')
  })

  test('migrate creates the data dir, the database and secrets readable only by the owner', async () => {
    const dir = join(tempDir(), 'nested', 'data')
    dirs.push(dir)
    const m = await cli(['migrate', '--data-dir', dir])
    expect(m.code).toBe(0)
    expect(m.stdout).toMatch(/^\d+ migration\(s\) applied/)
    for (const f of ['keys/jwt.secret', 'keys/signer.key']) expect(statSync(join(dir, f)).mode & 0o777).toBe(0o600)
    const again = await cli(['migrate', '--data-dir', dir])
    expect(again.stdout).toStartWith('0 migration(s) applied')
  })

  test('backup writes a consistent copy of a live database', async () => {
    const s = await startServer()
    dirs.push(s.dataDir)
    try {
      const t = await s.setupAdmin()
      await s.createKey(t, 'backed-up')
      const target = join(tempDir(), 'backup.db')
      dirs.push(target, `${target}.ipfs`)
      const b = await cli(['backup', target, '--data-dir', s.dataDir])
      if (TEST_POSTGRES) { // PostgreSQL mode: pg_dump's job, said so
        expect({ code: b.code, pgDump: b.stderr.includes('pg_dump') }).toEqual({ code: 2, pgDump: true })
        return
      }
      expect(b.code).toBe(0)
      const db = new Database(target, { readonly: true })
      expect((db.query("SELECT count(*) AS n FROM api_keys WHERE label = 'backed-up'").get() as { n: number }).n).toBe(1)
      db.close()
      const ipfs = new Database(`${target}.ipfs`, { readonly: true })
      expect((ipfs.query("SELECT count(*) AS n FROM sqlite_master WHERE name = 'ipfs_blocks'").get() as { n: number }).n).toBe(1)
      ipfs.close()
      expect((await cli(['backup', target, '--data-dir', s.dataDir])).code).not.toBe(0) // never overwrites
    } finally { await s.stop() }
  })

  test('a bad configuration value stops the server with a clear message', async () => {
    const r = await cli(['serve', '--port', 'eighty', '--data-dir', tempDir()])
    expect(r.code).not.toBe(0)
    expect(r.stderr).toContain('server.port')
  })
})

describe('sign-up switch', () => {
  test('TASKGATE_SIGNUP=0 refuses sign-up with 403 SIGNUP_DISABLED', async () => {
    const s = await startServer({ TASKGATE_SIGNUP: '0' })
    dirs.push(s.dataDir)
    try {
      expectProblem(await s.post('/api/v1/auth/signup', { login: 'nobody', password: 'password-1' }), 403, 'SIGNUP_DISABLED')
      expect((await s.get('/api/v1/auth/options')).body.signup).toBe(false)
      expect(existsSync(join(s.dataDir, 'taskgate.db'))).toBe(!TEST_POSTGRES) // PostgreSQL mode keeps no database file
    } finally { await s.stop() }
  })
})
