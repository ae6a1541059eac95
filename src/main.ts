#!/usr/bin/env bun
// CLI entry (docs/foundation.md, "The command line"): serve, migrate, operator, token, backup,
// config, version.
import { chmodSync, closeSync, existsSync, openSync } from 'node:fs'
import { resolve } from 'node:path'
import { Clock } from './clock'
import { ConfigError, loadConfig, parseFlags, SETTINGS, TIERS, type Tier } from './config'
import { backupDatabase } from './db'
import { openDataLayer } from './db/layer'
import { MetaRepository } from './db/meta'
import { buildAccounts } from './operators/accounts'
import { TokenService } from './operators/tokens'
import { ProblemError } from './http/errors'
import { loadSecrets } from './secrets'
import { VERSION } from './system/routes'

const HELP = `taskgate ${VERSION}: self-hosted gateway for AI agents

Usage:
  taskgate [serve] [--port N] [--host H] [--data-dir D] [--log-level L]
  taskgate migrate [--data-dir D]
  taskgate operator create --login L --password P [--tier FREE|PRO|ENTERPRISE] [--admin] [--email E] [--data-dir D]
  taskgate operator list [--data-dir D]
  taskgate operator set-tier --login L --tier T|none [--data-dir D]
  taskgate operator set-status --login L --status ACTIVE|SUSPENDED|BANNED [--data-dir D]
  taskgate token --login L [--ttl SECONDS] [--data-dir D]
  taskgate backup <file> [--data-dir D]      writes <file> (database) and <file>.ipfs (IPFS blocks)
  taskgate config            list every setting with its environment variable
  taskgate version
`

function fail(msg: string): never {
  process.stderr.write(`error: ${msg}\n`)
  process.exit(2)
}

function offline(flags: Record<string, string | true>) {
  const config = loadConfig(flags)
  const secrets = loadSecrets(config.dataDir, config.phase, config.keysDir)
  const data = openDataLayer(config)
  const clock = new Clock(new MetaRepository(data.db))
  return { config, secrets, data, clock, operators: buildAccounts(data.db, clock, config, data.tx).operators }
}

const str = (v: string | true | undefined, name: string): string => (typeof v === 'string' && v !== '' ? v : fail(`--${name} is required`))
const tierOf = (v: string): Tier => (TIERS.includes(v.toUpperCase() as Tier) ? (v.toUpperCase() as Tier) : fail(`unknown tier ${v} (FREE, PRO, ENTERPRISE)`))

async function main(argv: string[]): Promise<void> {
  const { flags, positional } = parseFlags(argv)
  const [cmd = 'serve', sub] = positional
  if (flags.help || cmd === 'help') { process.stdout.write(HELP); return }
  switch (cmd) {
    case 'version': process.stdout.write(`taskgate ${VERSION} (bun ${Bun.version})\n`); return
    case 'config':
      for (const s of SETTINGS) process.stdout.write(`${s.env.padEnd(42)} ${s.key.padEnd(38)} ${s.doc}\n`)
      return
    case 'serve': {
      const { startServer } = await import('./server')
      const config = loadConfig(flags)
      const server = await startServer(config)
      // The binary starts with the JIT 1000× more reluctant (scripts/build.ts, compile.jitPolicy):
      // start-up code runs once, and compiling it cost time and memory (docs/performance.md,
      // Start-up). From here on the normal policy: request and pipeline code is compiled as usual.
      Bun.unsafe.setJITPolicy(1)
      const shutdown = async (sig: string) => {
        server.services.log.info({ signal: sig }, 'shutting down')
        await server.stop()
        process.exit(0)
      }
      process.once('SIGINT', () => void shutdown('SIGINT'))
      process.once('SIGTERM', () => void shutdown('SIGTERM'))
      return
    }
    case 'migrate': {
      const config = loadConfig(flags)
      loadSecrets(config.dataDir, config.phase, config.keysDir)
      const data = openDataLayer(config)
      process.stdout.write(`${data.applied} migration(s) applied to ${data.dialect === 'sqlite' ? resolve(config.dataDir, 'taskgate.db') : data.where}\n`)
      data.close()
      return
    }
    case 'operator': {
      const o = offline(flags)
      const find = () => o.operators.byLogin(str(flags.login, 'login')) ?? fail(`no operator with login ${flags.login}`)
      if (sub === 'create') {
        const op = await o.operators.create({
          login: str(flags.login, 'login'), password: str(flags.password, 'password'),
          tier: flags.tier ? tierOf(String(flags.tier)) : 'FREE', admin: flags.admin === true,
          email: typeof flags.email === 'string' ? flags.email : null,
        })
        process.stdout.write(JSON.stringify(o.operators.adminView(op)) + '\n')
      } else if (sub === 'list') {
        for (const op of o.operators.list()) process.stdout.write(JSON.stringify(o.operators.adminView(op)) + '\n')
      } else if (sub === 'set-tier') {
        const t = str(flags.tier, 'tier')
        const op = o.operators.update(find().id, { tierOverride: t.toLowerCase() === 'none' ? null : tierOf(t) })
        process.stdout.write(JSON.stringify(o.operators.adminView(op)) + '\n')
      } else if (sub === 'set-status') {
        const st = str(flags.status, 'status').toUpperCase()
        if (!['ACTIVE', 'SUSPENDED', 'BANNED'].includes(st)) fail('status must be ACTIVE, SUSPENDED or BANNED')
        const op = o.operators.update(find().id, { status: st as 'ACTIVE' })
        process.stdout.write(JSON.stringify(o.operators.adminView(op)) + '\n')
      } else fail('usage: taskgate operator create|list|set-tier|set-status')
      o.data.close()
      return
    }
    case 'token': {
      const o = offline(flags)
      const op = o.operators.byLogin(str(flags.login, 'login')) ?? fail(`no operator with login ${flags.login}`)
      const ttl = flags.ttl ? Number(flags.ttl) : o.config.tokenTtlSeconds
      if (!Number.isInteger(ttl) || ttl <= 0) fail('--ttl must be a positive number of seconds')
      const tokens = await TokenService.create(o.secrets.jwtSecret, o.clock, ttl)
      process.stdout.write((await tokens.issue(op.id, op.tokenVersion)).accessToken + '\n')
      o.data.close()
      return
    }
    case 'backup': {
      const target = sub ?? fail('usage: taskgate backup <file>')
      const config = loadConfig(flags)
      if (config.databaseUrl) fail('the database is PostgreSQL (TASKGATE_DATABASE_URL): back it up with pg_dump, and the keys directory with it (docs/scale-out.md, "Backups")')
      const dbPath = resolve(config.dataDir, 'taskgate.db')
      if (!existsSync(dbPath)) fail(`no database at ${dbPath}`)
      const ipfsPath = resolve(config.dataDir, 'ipfs.db')
      const targets = [[dbPath, resolve(target)], [ipfsPath, `${resolve(target)}.ipfs`]].filter(([from]) => existsSync(from!)) as [string, string][]
      for (const [, to] of targets) if (existsSync(to)) fail(`${to} already exists`)
      for (const [from, to] of targets) {
        // The copy holds everything the data dir does (0700): create it empty with mode 0600 first,
        // so it is never readable by others, not even for a moment (VACUUM INTO accepts an empty file).
        closeSync(openSync(to, 'wx', 0o600))
        backupDatabase(from, to)
        chmodSync(to, 0o600)
        process.stdout.write(`backup written to ${to}\n`)
      }
      return
    }
    default:
      fail(`unknown command "${cmd}"\n\n${HELP}`)
  }
}

main(process.argv.slice(2)).catch((e) => {
  if (e instanceof ConfigError) fail(`configuration: ${e.message}`)
  if (e instanceof ProblemError) fail(`${e.code}: ${e.detail}`)
  fail(e instanceof Error ? e.stack ?? e.message : String(e))
})
