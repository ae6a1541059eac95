// src/keys/service.ts: key format, storage (hash + first4/last4 only) and resolve(), on a real
// migrated database with a real operator row.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Clock } from '../../src/clock'
import { migrate, openDb, type Db } from '../../src/db'
import { SqliteTransactor } from '../../src/db/transactor'
import { KeyRepository } from '../../src/keys/repository'
import { KeyService, keyPrefixOf, keyRecord, TEST_KEY_USES } from '../../src/keys/service'
import { OperatorRepository } from '../../src/operators/repository'
import { OperatorService } from '../../src/operators/service'

const BASE58 = /^[1-9A-HJ-NP-Za-km-z]+$/
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex')

let dir: string
let db: Db
let clock: Clock
let keys: KeyService
let opId: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tg-keys-'))
  db = openDb(dir)
  migrate(db)
  clock = new Clock()
  const tx = new SqliteTransactor(db.$client)
  keys = new KeyService(new KeyRepository(db), tx, clock, 'testnet')
  const ops = new OperatorService(new OperatorRepository(db), tx, clock, (id) => keys.hasActiveKey(id))
  opId = (await ops.create({ login: 'u1', password: 'password-1' })).id
})
afterAll(() => {
  keys.stop()
  db.$client.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Raw row as stored, every column. */
const rawRow = (id: string) => db.$client.query('SELECT * FROM api_keys WHERE id = ?1').get(id) as Record<string, unknown>
/** Inserts a row whose hash is that of `presented`, bypassing generate(), to probe resolve()'s guards. */
function plantHashOf(presented: string): void {
  db.$client.run(
    'INSERT INTO api_keys (id, operator_id, key_hash, first4, last4, rate_limit_rpm, created_at) VALUES (?1, ?2, ?3, ?4, ?5, 60, 0)',
    [`key_planted_${sha256(presented).slice(0, 12)}`, opId, sha256(presented), presented.slice(0, 4), presented.slice(-4)],
  )
}

describe('generate', () => {
  test('testnet keys are tg_test_ followed by base58', () => {
    const seen = new Set<string>()
    for (let i = 0; i < 50; i++) {
      const k = keys.generate()
      expect(k).toMatch(/^tg_test_[1-9A-HJ-NP-Za-km-z]+$/)
      expect(k.slice('tg_test_'.length).length).toBeGreaterThanOrEqual(30) // 24 random bytes in base58
      seen.add(k)
    }
    expect(seen.size).toBe(50)
  })

  test('live keys are tg_live_ followed by base58', () => {
    const live = new KeyService(new KeyRepository(db), new SqliteTransactor(db.$client), clock, 'live')
    for (let i = 0; i < 20; i++) {
      const k = live.generate()
      expect(k).toMatch(/^tg_live_[1-9A-HJ-NP-Za-km-z]+$/)
      expect(k.slice('tg_live_'.length)).toMatch(BASE58)
    }
  })
})

describe('storage', () => {
  test('the row holds the sha256 hex of the key, its first 4 and last 4 characters, and never the key', () => {
    const { key, row } = keys.insert(opId, { label: 'ci', rateLimitRpm: 60 })
    const raw = rawRow(row.id)
    expect(raw.key_hash).toBe(sha256(key))
    expect(raw.key_hash).toMatch(/^[0-9a-f]{64}$/)
    expect(raw.first4).toBe(key.slice(0, 4))
    expect(raw.last4).toBe(key.slice(-4))
    expect(raw.operator_id).toBe(opId)
    expect(raw.label).toBe('ci')
    expect(raw.rate_limit_rpm).toBe(60)
    expect(raw.revoked_at).toBeNull()
    const secret = key.slice('tg_test_'.length)
    for (const [col, v] of Object.entries(raw)) {
      if (typeof v !== 'string') continue
      expect({ col, holdsKey: v.includes(key) || v.includes(secret) }).toEqual({ col, holdsKey: false })
    }
    // Nor anywhere else in the database file's tables.
    const dump = JSON.stringify(db.$client.query('SELECT * FROM api_keys').all()) + JSON.stringify(db.$client.query('SELECT * FROM operators').all())
    expect(dump.includes(secret)).toBe(false)
  })

  test('the public views show first4...last4, not the key', () => {
    const { key, row } = keys.insert(opId, { label: 'view', rateLimitRpm: 60 })
    expect(keyPrefixOf(row)).toBe(`${key.slice(0, 4)}...${key.slice(-4)}`)
    const rec = keyRecord(row)
    expect(JSON.stringify(rec).includes(key.slice(8, -4))).toBe(false)
    expect(rec).toMatchObject({ id: row.id, label: 'view', keyPrefix: keyPrefixOf(row), isTestKey: false, testUsesRemaining: null, lastUsedAt: null })
  })

  test('test keys start with TEST_KEY_USES uses', () => {
    const { row } = keys.insert(opId, { label: null, rateLimitRpm: 5, isTestKey: true })
    expect(row.isTestKey).toBe(true)
    expect(row.testUsesRemaining).toBe(TEST_KEY_USES)
    expect(keyRecord(row).testUsesRemaining).toBe(TEST_KEY_USES)
  })
})

describe('resolve', () => {
  test('returns the row for the real key', () => {
    const { key, row } = keys.insert(opId, { label: 'r', rateLimitRpm: 60 })
    const got = keys.resolve(key)
    expect(got).not.toBeNull()
    expect(got!.key.id).toBe(row.id)
    expect(got!.key.operatorId).toBe(opId)
    expect(got!.operator.id).toBe(opId)
  })

  test('returns null for a revoked key, immediately', () => {
    const { key, row } = keys.insert(opId, { label: 'rv', rateLimitRpm: 60 })
    expect(keys.resolve(key)?.key.id).toBe(row.id)
    keys.revoke(opId, row.id)
    expect(keys.resolve(key)).toBeNull()
    expect(() => keys.revoke(opId, row.id)).toThrow() // already revoked: not found
  })

  test('returns null for a wrong key of the right shape', () => {
    const { key } = keys.insert(opId, { label: 'w', rateLimitRpm: 60 })
    const last = key.at(-1) === '2' ? '3' : '2'
    expect(keys.resolve(key.slice(0, -1) + last)).toBeNull()
    expect(keys.resolve(keys.generate())).toBeNull()
    expect(keys.resolve(`${key} `)).toBeNull()
  })

  test('returns null for a too-short string even when a row has its hash', () => {
    plantHashOf('tg_12345678') // 11 characters
    expect(keys.resolve('tg_12345678')).toBeNull()
    expect(keys.resolve('')).toBeNull()
    expect(keys.resolve('tg_')).toBeNull()
    plantHashOf('tg_123456789') // 12 characters: the minimum accepted
    expect(keys.resolve('tg_123456789')).not.toBeNull()
  })

  test('returns null for a too-long string even when a row has its hash', () => {
    const long = `tg_test_${'a'.repeat(121)}` // 129 characters
    plantHashOf(long)
    expect(keys.resolve(long)).toBeNull()
  })

  test('returns null for a string without the tg_ prefix even when a row has its hash', () => {
    const { key } = keys.insert(opId, { label: 'np', rateLimitRpm: 60 })
    const bare = key.slice(3)
    plantHashOf(bare)
    expect(keys.resolve(bare)).toBeNull()
    const upper = `TG_${bare}`
    plantHashOf(upper)
    expect(keys.resolve(upper)).toBeNull()
  })
})
