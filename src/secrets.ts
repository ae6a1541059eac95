// Service secrets live in the keys directory (<dataDir>/keys/, or TASKGATE_KEYS_DIR, which the
// replicas of one PostgreSQL database share), created on first run with mode 0600. They are read
// once at start and never logged.
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { generatePrivateKey } from 'viem/accounts'

export interface Secrets {
  jwtSecret: string
  signerKey: `0x${string}`
  /** Key that seals secrets stored in the database (provider API keys), AES-256-GCM. */
  dataKey: Buffer
  /** The developer wallet the faucet funds by default (testnet only). */
  devWalletKey: `0x${string}` | null
}

/**
 * The key at `path`, made now if there is none. Made whole or not at all: written under a name of
 * its own, then linked into place, never over a key another process (a replica starting at the same
 * moment) made meanwhile: then that one is read.
 */
function readOrCreate(path: string, make: () => string): string {
  if (existsSync(path)) return readFileSync(path, 'utf8').trim()
  const value = make()
  const tmp = `${path}.new-${process.pid}`
  writeFileSync(tmp, value + '\n', { mode: 0o600 })
  chmodSync(tmp, 0o600)
  try {
    linkSync(tmp, path)
    return value
  } catch (e) {
    if ((e as { code?: string }).code !== 'EEXIST') throw e
    return readFileSync(path, 'utf8').trim()
  } finally { rmSync(tmp, { force: true }) }
}

export function ensureDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
}

export function loadSecrets(dataDir: string, phase: 'testnet' | 'live' = 'testnet', keys = join(dataDir, 'keys')): Secrets {
  ensureDataDir(dataDir)
  mkdirSync(keys, { recursive: true, mode: 0o700 })
  const jwtSecret = readOrCreate(join(keys, 'jwt.secret'), () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex'))
  const signerKey = readOrCreate(join(keys, 'signer.key'), () => generatePrivateKey()) as `0x${string}`
  if (!/^0x[0-9a-fA-F]{64}$/.test(signerKey)) throw new Error(`${join(keys, 'signer.key')} is not a 32-byte hex private key`)
  if (jwtSecret.length < 32) throw new Error(`${join(keys, 'jwt.secret')} is too short (need at least 32 characters)`)
  const devWalletKey = phase === 'testnet' ? readOrCreate(join(keys, 'dev-wallet.key'), () => generatePrivateKey()) as `0x${string}` : null
  const dataKey = Buffer.from(readOrCreate(join(keys, 'data.key'), () => randomBytes(32).toString('hex')), 'hex')
  if (dataKey.length !== 32) throw new Error(`${join(keys, 'data.key')} is not a 32-byte hex key`)
  return { jwtSecret, signerKey, devWalletKey, dataKey }
}

/** Seals a secret for storage: `v1.<iv>.<tag>.<ciphertext>` (base64url), AES-256-GCM. */
export function seal(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12)
  const c = createCipheriv('aes-256-gcm', key, iv)
  const ct = Buffer.concat([c.update(plaintext, 'utf8'), c.final()])
  return ['v1', iv.toString('base64url'), c.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.')
}

export function unseal(key: Buffer, sealed: string): string {
  const [v, iv, tag, ct] = sealed.split('.')
  if (v !== 'v1' || !iv || !tag || ct === undefined) throw new Error('not a sealed secret')
  const d = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'))
  d.setAuthTag(Buffer.from(tag, 'base64url'))
  return Buffer.concat([d.update(Buffer.from(ct, 'base64url')), d.final()]).toString('utf8')
}
