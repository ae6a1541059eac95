// A throwaway PostgreSQL cluster for a test file: initdb in a temp dir and pg_ctl on a free
// loopback port, trust authentication, removed at the end. Uses Debian's PostgreSQL
// (`apt-get install -y postgresql`: /usr/lib/postgresql/<version>/bin); as root it runs the server
// as the `postgres` user, which PostgreSQL requires. Without PostgreSQL installed, startPostgres()
// answers null and the tests that need it are skipped with a warning (TASKGATE_REQUIRE_POSTGRES=1,
// set by CI, makes that an error).
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface Postgres { url: string; port: number; stop(): void; start(): void; cleanup(): void }

function binDir(): string | null {
  const root = '/usr/lib/postgresql'
  if (existsSync(root)) {
    const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a))
    if (versions[0]) return join(root, versions[0], 'bin')
  }
  const which = Bun.which('initdb')
  return which ? join(which, '..') : null
}

const asRoot = process.getuid?.() === 0

function run(cmd: string[]): void {
  const full = asRoot ? ['runuser', '-u', 'postgres', '--', ...cmd] : cmd
  const r = Bun.spawnSync(full, { stdout: 'pipe', stderr: 'pipe' })
  if (r.exitCode !== 0) throw new Error(`${cmd.join(' ')} failed (${r.exitCode}): ${r.stderr.toString()}${r.stdout.toString()}`)
}

async function freePort(): Promise<number> {
  const s = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } })
  const port = s.port
  s.stop(true)
  return port
}

/** Starts a cluster, or null when PostgreSQL is not installed (the caller skips). */
export async function startPostgres(): Promise<Postgres | null> {
  const bin = binDir()
  if (!bin) {
    if (process.env.TASKGATE_REQUIRE_POSTGRES === '1') throw new Error('PostgreSQL is not installed (apt-get install -y postgresql)')
    console.warn('warning: PostgreSQL is not installed (apt-get install -y postgresql): its tests are skipped')
    return null
  }
  const dir = mkdtempSync(join(tmpdir(), 'taskgate-pg-'))
  chmodSync(dir, 0o777) // the postgres user writes here when we are root
  const data = join(dir, 'data')
  const port = await freePort()
  run([join(bin, 'initdb'), '-D', data, '-A', 'trust', '-U', 'taskgate', '--no-sync', '-E', 'UTF8'])
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`
  const start = () => run([join(bin, 'pg_ctl'), '-D', data, '-o', opts, '-l', join(dir, 'log'), '-w', 'start'])
  const stop = () => run([join(bin, 'pg_ctl'), '-D', data, '-m', 'immediate', '-w', 'stop'])
  start()
  return {
    url: `postgres://taskgate@127.0.0.1:${port}/postgres`, port, start, stop,
    cleanup: () => { try { stop() } catch { /* already stopped */ } rmSync(dir, { recursive: true, force: true }) },
  }
}

/**
 * The HTTP suite on PostgreSQL (scripts/test-postgres.sh sets TASKGATE_TEST_POSTGRES to a cluster's
 * URL): each data dir gets its own database on that cluster, created at its first use, so a server
 * restarted on the same data dir, and the CLI on it, find their data. Null on SQLite.
 */
export const TEST_POSTGRES = process.env.TASKGATE_TEST_POSTGRES || null

let admin: InstanceType<typeof Bun.SQL> | null = null
const created = new Set<string>()

const databaseName = (dataDir: string) => `tg_${new Bun.CryptoHasher('sha256').update(dataDir).digest('hex').slice(0, 24)}`

/** The URL of `dataDir`'s database on the test cluster (created now if it is new). */
export async function databaseFor(dataDir: string): Promise<string> {
  if (!TEST_POSTGRES) throw new Error('TASKGATE_TEST_POSTGRES is not set')
  const name = databaseName(dataDir)
  if (!created.has(name)) {
    admin ??= new Bun.SQL(TEST_POSTGRES, { max: 2 })
    const exists = await admin.unsafe('SELECT 1 FROM pg_database WHERE datname = $1', [name])
    if (!exists.length) await admin.unsafe(`CREATE DATABASE ${name}`)
    created.add(name)
  }
  const u = new URL(TEST_POSTGRES)
  u.pathname = `/${name}`
  return u.toString()
}

/** Drops `dataDir`'s database (its server stopped). */
export async function dropDatabaseFor(dataDir: string): Promise<void> {
  if (!TEST_POSTGRES) return
  const name = databaseName(dataDir)
  if (!created.delete(name)) return
  admin ??= new Bun.SQL(TEST_POSTGRES, { max: 2 })
  await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
}
