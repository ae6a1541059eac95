// Service secrets live in <dataDir>/keys/, created on first run with mode 0600.
// They are read once at start and never logged.
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { generatePrivateKey } from 'viem/accounts'

export interface Secrets {
  jwtSecret: string
  signerKey: `0x${string}`
  /** The developer wallet the faucet funds by default (testnet only). */
  devWalletKey: `0x${string}` | null
}

function readOrCreate(path: string, make: () => string): string {
  if (existsSync(path)) return readFileSync(path, 'utf8').trim()
  const value = make()
  writeFileSync(path, value + '\n', { mode: 0o600, flag: 'wx' })
  chmodSync(path, 0o600)
  return value
}

export function ensureDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  mkdirSync(join(dataDir, 'keys'), { recursive: true, mode: 0o700 })
}

export function loadSecrets(dataDir: string, phase: 'testnet' | 'live' = 'testnet'): Secrets {
  ensureDataDir(dataDir)
  const keys = join(dataDir, 'keys')
  const jwtSecret = readOrCreate(join(keys, 'jwt.secret'), () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('hex'))
  const signerKey = readOrCreate(join(keys, 'signer.key'), () => generatePrivateKey()) as `0x${string}`
  if (!/^0x[0-9a-fA-F]{64}$/.test(signerKey)) throw new Error(`${join(keys, 'signer.key')} is not a 32-byte hex private key`)
  if (jwtSecret.length < 32) throw new Error(`${join(keys, 'jwt.secret')} is too short (need at least 32 characters)`)
  const devWalletKey = phase === 'testnet' ? readOrCreate(join(keys, 'dev-wallet.key'), () => generatePrivateKey()) as `0x${string}` : null
  return { jwtSecret, signerKey, devWalletKey }
}
