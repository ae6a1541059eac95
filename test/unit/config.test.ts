// src/config.ts: precedence flags > env (TASKGATE_*) > taskgate.toml in the data dir > defaults,
// flag parsing, validation. Every call passes an explicit env object, never process.env.
import { afterEach, beforeEach, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { isAbsolute, join, resolve } from 'node:path'
import { ConfigError, loadConfig, parseFlags, SETTINGS } from '../../src/config'

let dir: string
beforeEach(() => { dir = mkdtempSync(join(tmpdir(), 'tg-config-')) })
afterEach(() => { rmSync(dir, { recursive: true, force: true }) })

const toml = (text: string) => writeFileSync(join(dir, 'taskgate.toml'), text)
/** Loads with the temp dir as data dir (through the flag unless the test says otherwise). */
const load = (flags: Record<string, string | true> = {}, env: Record<string, string | undefined> = {}) =>
  loadConfig({ 'data-dir': dir, ...flags }, env)

describe('defaults', () => {
  test('an empty data dir and env give the declared defaults', () => {
    const c = load()
    expect(c.dataDir).toBe(dir)
    expect(c.port).toBe(8787)
    expect(c.host).toBe('127.0.0.1')
    expect(c.publicUrl).toBe('')
    expect(c.jsonBodyLimit).toBe(1024 * 1024)
    expect(c.uploadBodyLimit).toBe(10 * 1024 * 1024)
    expect(c.phase).toBe('testnet')
    expect(c.logLevel).toBe('info')
    expect(c.signup).toBe(true)
    expect(c.tokenTtlSeconds).toBe(12 * 3600)
    expect(c.login).toEqual({ failuresPerLoginAddress: 10, failuresPerLogin: 100, failuresPerAddress: 30, signupsPerAddressPerHour: 10 })
    expect(c.github).toEqual({ clientId: '', clientSecret: '', webUrl: 'https://github.com', apiUrl: 'https://api.github.com', enabled: false })
    expect(c.metricsToken).toBe('')
    expect(c.testClock).toBe(false)
    expect(c.monthlyCredits).toEqual({ FREE: 100, PRO: 1000, ENTERPRISE: 10000 })
    expect(c.proPriceMonthlyUsd).toBe(15)
    expect(c.topUpPacks).toEqual([{ credits: 500, priceUsd: 5 }, { credits: 2000, priceUsd: 15 }, { credits: 10000, priceUsd: 50 }])
    expect(c.pioneer).toEqual({ taskPoints: 25, walletBindPoints: 500, trustedLevelPoints: 2000, explorerThreshold: 500, founderThreshold: 25000 })
  })

  test('the default data dir is ./data resolved against the working directory', () => {
    const c = loadConfig({}, {})
    expect(c.dataDir).toBe(resolve('./data'))
    expect(isAbsolute(c.dataDir)).toBe(true)
  })

  test('every setting has a unique key and a TASKGATE_ env name', () => {
    const keys = SETTINGS.map((s) => s.key)
    const envs = SETTINGS.map((s) => s.env)
    expect(new Set(keys).size).toBe(keys.length)
    expect(new Set(envs).size).toBe(envs.length)
    for (const e of envs) expect(e).toMatch(/^TASKGATE_[A-Z0-9_]+$/)
    expect(SETTINGS[0]!.key).toBe('dataDir') // loadConfig resolves SETTINGS[0] first as the data dir
  })
})

describe('precedence', () => {
  test('taskgate.toml in the data dir overrides the defaults (TOML paths mirror the dotted keys)', () => {
    toml([
      'phase = "live"',
      '[server]', 'port = 9001', 'host = "0.0.0.0"', 'publicUrl = "https://gw.example.com//"',
      '[tiers.free]', 'monthlyCredits = 7',
      '[tiers.pro]', 'priceMonthlyUsd = 19.5',
      '[auth]', 'tokenTtlSeconds = 60',
      '[leaderboard.pioneer]', 'founderThreshold = 3',
      '[[credits.topUpPacks]]', 'credits = 1', 'priceUsd = 2',
    ].join('\n'))
    const c = load()
    expect(c.phase).toBe('live')
    expect(c.port).toBe(9001)
    expect(c.host).toBe('0.0.0.0')
    expect(c.publicUrl).toBe('https://gw.example.com') // trailing slashes stripped
    expect(c.monthlyCredits).toEqual({ FREE: 7, PRO: 1000, ENTERPRISE: 10000 })
    expect(c.proPriceMonthlyUsd).toBe(19.5)
    expect(c.tokenTtlSeconds).toBe(60)
    expect(c.pioneer.founderThreshold).toBe(3)
    expect(c.topUpPacks).toEqual([{ credits: 1, priceUsd: 2 }]) // json kind accepts native TOML values
  })

  test('env overrides the TOML file', () => {
    toml('phase = "live"\n[server]\nport = 9001\n[tiers.free]\nmonthlyCredits = 7\n')
    const c = load({}, { TASKGATE_PORT: '9002', TASKGATE_TIERS_FREE_MONTHLY_CREDITS: '8', TASKGATE_PHASE: 'testnet' })
    expect(c.port).toBe(9002)
    expect(c.monthlyCredits.FREE).toBe(8)
    expect(c.phase).toBe('testnet')
  })

  test('flags override env and the TOML file', () => {
    toml('[server]\nport = 9001\nhost = "10.0.0.1"\n[log]\nlevel = "warn"\n')
    const c = load({ port: '9003', host: '::1', 'log-level': 'debug' }, { TASKGATE_PORT: '9002', TASKGATE_HOST: '10.0.0.2', TASKGATE_LOG_LEVEL: 'error' })
    expect(c.port).toBe(9003)
    expect(c.host).toBe('::1')
    expect(c.logLevel).toBe('debug')
  })

  test('each layer only overrides the keys it sets', () => {
    toml('[server]\nport = 9001\nhost = "10.0.0.1"\n[tiers.pro]\nmonthlyCredits = 5\n')
    const c = load({ port: '9003' }, { TASKGATE_HOST: '10.0.0.2' })
    expect(c.port).toBe(9003) // flag
    expect(c.host).toBe('10.0.0.2') // env
    expect(c.monthlyCredits.PRO).toBe(5) // toml
    expect(c.monthlyCredits.ENTERPRISE).toBe(10000) // default
  })

  test('an empty env value counts as unset and falls through to the TOML file', () => {
    toml('[server]\nport = 9001\n')
    expect(load({}, { TASKGATE_PORT: '' }).port).toBe(9001)
    expect(load({}, { TASKGATE_PORT: undefined }).port).toBe(9001)
  })

  test('the data dir comes from the flag over TASKGATE_DATA_DIR, and the TOML is read from that dir', () => {
    const other = mkdtempSync(join(tmpdir(), 'tg-config-other-'))
    try {
      toml('[server]\nport = 9001\n')
      writeFileSync(join(other, 'taskgate.toml'), '[server]\nport = 9999\n')
      expect(loadConfig({ 'data-dir': dir }, { TASKGATE_DATA_DIR: other }).port).toBe(9001)
      const viaEnv = loadConfig({}, { TASKGATE_DATA_DIR: other })
      expect(viaEnv.dataDir).toBe(other)
      expect(viaEnv.port).toBe(9999)
    } finally { rmSync(other, { recursive: true, force: true }) }
  })

  test('a relative data dir is resolved to an absolute path', () => {
    const c = loadConfig({ 'data-dir': 'some/rel/dir' }, {})
    expect(isAbsolute(c.dataDir)).toBe(true)
    expect(c.dataDir).toBe(resolve(process.cwd(), 'some/rel/dir'))
    expect(loadConfig({}, { TASKGATE_DATA_DIR: './x/../y' }).dataDir).toBe(resolve('y'))
  })

  test('TASKGATE_CREDITS_TOP_UP_PACKS is parsed as JSON', () => {
    const c = load({}, { TASKGATE_CREDITS_TOP_UP_PACKS: '[{"credits":3,"priceUsd":1.5}]' })
    expect(c.topUpPacks).toEqual([{ credits: 3, priceUsd: 1.5 }])
  })

  test('the sign-in and sign-up limits come from their TASKGATE_ variables', () => {
    const c = load({}, {
      TASKGATE_LOGIN_FAILURES_PER_LOGIN_ADDRESS: '3', TASKGATE_LOGIN_FAILURES_PER_LOGIN: '40',
      TASKGATE_LOGIN_FAILURES_PER_ADDRESS: '7', TASKGATE_SIGNUPS_PER_ADDRESS_PER_HOUR: '2',
    })
    expect(c.login).toEqual({ failuresPerLoginAddress: 3, failuresPerLogin: 40, failuresPerAddress: 7, signupsPerAddressPerHour: 2 })
    expect('loginAttemptsPerMinute' in c).toBe(false)
  })

  test('the pending-approval cap and the retention: 100 and 30 days by default, from their TASKGATE_ variables, at least 1', () => {
    expect(load()).toMatchObject({ maxPendingApprovals: 100, retentionDays: 30 })
    expect(load({}, { TASKGATE_MAX_PENDING_APPROVALS: '7', TASKGATE_RETENTION_DAYS: '90' })).toMatchObject({ maxPendingApprovals: 7, retentionDays: 90 })
    expect(load({}, { TASKGATE_MAX_PENDING_APPROVALS: '0', TASKGATE_RETENTION_DAYS: '0' })).toMatchObject({ maxPendingApprovals: 1, retentionDays: 1 })
  })

  test('GitHub login is enabled only with both client id and secret; URLs lose trailing slashes', () => {
    expect(load({}, { TASKGATE_GITHUB_CLIENT_ID: 'id' }).github.enabled).toBe(false)
    expect(load({}, { TASKGATE_GITHUB_CLIENT_SECRET: 's' }).github.enabled).toBe(false)
    const c = load({}, { TASKGATE_GITHUB_CLIENT_ID: 'id', TASKGATE_GITHUB_CLIENT_SECRET: 's', TASKGATE_GITHUB_WEB_URL: 'http://gh.local/', TASKGATE_GITHUB_API_URL: 'http://api.gh.local///' })
    expect(c.github).toEqual({ clientId: 'id', clientSecret: 's', webUrl: 'http://gh.local', apiUrl: 'http://api.gh.local', enabled: true })
  })
})

describe('phase-dependent settings', () => {
  test('auth.signup defaults to true in testnet and false in live', () => {
    expect(load({}, { TASKGATE_PHASE: 'testnet' }).signup).toBe(true)
    expect(load({}, { TASKGATE_PHASE: 'live' }).signup).toBe(false)
    toml('phase = "live"\n')
    expect(load().signup).toBe(false) // the default follows the phase whatever layer set it
  })

  test('an explicit auth.signup wins over the phase default', () => {
    expect(load({}, { TASKGATE_PHASE: 'live', TASKGATE_SIGNUP: 'true' }).signup).toBe(true)
    expect(load({}, { TASKGATE_PHASE: 'testnet', TASKGATE_SIGNUP: 'off' }).signup).toBe(false)
    toml('phase = "live"\n[auth]\nsignup = true\n')
    expect(load().signup).toBe(true)
  })

  test('boolean env values accept 1/true/yes/on and 0/false/no/off, case-insensitive', () => {
    for (const v of ['1', 'true', 'YES', ' on ']) expect(load({}, { TASKGATE_TEST_CLOCK: v }).testClock).toBe(true)
    for (const v of ['0', 'false', 'No', 'OFF']) expect(load({}, { TASKGATE_TEST_CLOCK: v }).testClock).toBe(false)
  })

  test('testClock is honoured in testnet and forced off in live', () => {
    expect(load({}, { TASKGATE_TEST_CLOCK: '1' }).testClock).toBe(true)
    expect(load({}, { TASKGATE_TEST_CLOCK: '1', TASKGATE_PHASE: 'live' }).testClock).toBe(false)
    toml('phase = "live"\ntestClock = true\n')
    expect(load().testClock).toBe(false)
  })
})

describe('validation', () => {
  const configError = (f: () => unknown, message?: RegExp) => {
    let err: unknown
    try { f() } catch (e) { err = e }
    expect(err).toBeInstanceOf(ConfigError)
    if (message) expect((err as Error).message).toMatch(message)
  }

  test('a non-integer port throws ConfigError naming the setting and the source', () => {
    configError(() => load({ port: 'abc' }), /server\.port \(--port\)/)
    configError(() => load({}, { TASKGATE_PORT: '80.5' }), /server\.port \(TASKGATE_PORT\)/)
    configError(() => load({ port: true })) // `--port` without a value
    toml('[server]\nport = 1.5\n')
    configError(() => load(), /taskgate\.toml/)
  })

  test('a port outside 0..65535 throws ConfigError', () => {
    configError(() => load({ port: '65536' }), /out of range/)
    configError(() => load({ port: '-1' }), /out of range/)
    expect(load({ port: '0' }).port).toBe(0)
    expect(load({ port: '65535' }).port).toBe(65535)
  })

  test('a phase other than testnet or live throws ConfigError', () => {
    configError(() => load({}, { TASKGATE_PHASE: 'moon' }), /phase.*"moon"/)
    toml('phase = "moon"\n')
    configError(() => load(), /phase/)
  })

  test('bad JSON for TASKGATE_CREDITS_TOP_UP_PACKS throws ConfigError', () => {
    configError(() => load({}, { TASKGATE_CREDITS_TOP_UP_PACKS: '[{credits: 1' }), /credits\.topUpPacks \(TASKGATE_CREDITS_TOP_UP_PACKS\)/)
  })

  test('well-formed JSON of the wrong shape for the top-up packs throws ConfigError', () => {
    configError(() => load({}, { TASKGATE_CREDITS_TOP_UP_PACKS: '{"credits":1,"priceUsd":2}' }), /topUpPacks/)
    configError(() => load({}, { TASKGATE_CREDITS_TOP_UP_PACKS: '[{"credits":"1","priceUsd":2}]' }), /topUpPacks/)
    configError(() => load({}, { TASKGATE_CREDITS_TOP_UP_PACKS: '[null]' }), /topUpPacks/)
  })

  test('invalid TOML throws ConfigError naming the file', () => {
    toml('[server\nport = = 1\n')
    configError(() => load(), new RegExp(join(dir, 'taskgate.toml').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
  })

  test('a bad boolean or number throws ConfigError', () => {
    configError(() => load({}, { TASKGATE_SIGNUP: 'maybe' }), /auth\.signup/)
    configError(() => load({}, { TASKGATE_TIERS_PRO_PRICE_MONTHLY_USD: 'ten' }), /priceMonthlyUsd/)
    configError(() => load({}, { TASKGATE_TOKEN_TTL_SECONDS: 'Infinity' }), /tokenTtlSeconds/)
    toml('[auth]\nsignup = "perhaps"\n')
    configError(() => load(), /auth\.signup/)
  })

  test('TASKGATE_DNS_SERVERS: a comma-separated list of ip, ip:port or [ipv6]:port (default: none, the system resolver); anything else throws ConfigError', () => {
    expect(load().dnsServers).toEqual([])
    expect(load({}, { TASKGATE_DNS_SERVERS: '10.0.0.53, 127.0.0.1:5353,[::1]:53,2001:db8::53' }).dnsServers).toEqual(['10.0.0.53', '127.0.0.1:5353', '[::1]:53', '2001:db8::53'])
    toml('[webhooks]\ndnsServers = "192.0.2.53"\n')
    expect(load().dnsServers).toEqual(['192.0.2.53'])
    for (const bad of ['dns.example.com', '10.0.0.53:99999', '10.0.0.53:x', 'udp://10.0.0.53']) configError(() => load({}, { TASKGATE_DNS_SERVERS: bad }), /webhooks\.dnsServers/)
  })
})

describe('parseFlags', () => {
  test('splits --name value, --name=value, bare --flag and positional arguments', () => {
    expect(parseFlags(['serve', '--port', '9000', '--host=0.0.0.0', '--verbose', '--data-dir', './d', 'extra'])).toEqual({
      flags: { port: '9000', host: '0.0.0.0', verbose: true, 'data-dir': './d' },
      positional: ['serve', 'extra'],
    })
  })

  test('a flag followed by another flag or by nothing is boolean true', () => {
    expect(parseFlags(['--a', '--b', 'x', '--c']).flags).toEqual({ a: true, b: 'x', c: true })
  })

  test('--name= gives an empty string and only the first = splits', () => {
    expect(parseFlags(['--a=', '--b=x=y']).flags).toEqual({ a: '', b: 'x=y' })
  })

  test('a value that looks like a negative number or a single-dash option is taken as the value', () => {
    expect(parseFlags(['--port', '-1', '-v']).flags).toEqual({ port: '-1' })
    expect(parseFlags(['--port', '-1', '-v']).positional).toEqual(['-v'])
  })

  test('the last occurrence of a flag wins', () => {
    expect(parseFlags(['--port', '1', '--port=2']).flags.port).toBe('2')
  })

  test('parsed flags feed loadConfig', () => {
    const { flags } = parseFlags(['serve', `--data-dir=${dir}`, '--port', '4321', '--log-level', 'warn'])
    const c = loadConfig(flags, {})
    expect(c.dataDir).toBe(dir)
    expect(c.port).toBe(4321)
    expect(c.logLevel).toBe('warn')
  })
})
