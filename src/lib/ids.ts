import bs58 from 'bs58'

/** Random, URL-safe identifier with a type prefix, e.g. `op_7dKq…`. */
export function newId(prefix: string, bytes = 12): string {
  return `${prefix}_${bs58.encode(crypto.getRandomValues(new Uint8Array(bytes)))}`
}

export function randomToken(bytes = 24): string {
  return bs58.encode(crypto.getRandomValues(new Uint8Array(bytes)))
}

export function sha256Hex(s: string): string {
  return Bun.SHA256.hash(s, 'hex') as string
}
