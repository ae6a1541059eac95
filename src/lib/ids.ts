import bs58 from 'bs58'

/** Random, URL-safe identifier with a type prefix, e.g. `op_7dKq…`. */
export function newId(prefix: string, bytes = 12): string {
  return `${prefix}_${bs58.encode(crypto.getRandomValues(new Uint8Array(bytes)))}`
}

/**
 * An identifier that sorts by creation time: 6 bytes of milliseconds since 1970, then 10 random
 * bytes (80 bits: as unguessable as it needs to be), base58 like newId. Rows keyed by it land at
 * the end of their indexes instead of on a random page, so a busy table writes one index page per
 * commit instead of one per row (the task id keys the tasks table, its events, ledger and points refs).
 */
export function newSortableId(prefix: string, now = Date.now()): string {
  const b = new Uint8Array(16)
  let t = now
  for (let i = 5; i >= 0; i--) { b[i] = t % 256; t = Math.floor(t / 256) }
  crypto.getRandomValues(b.subarray(6))
  return `${prefix}_${bs58.encode(b)}`
}

export function randomToken(bytes = 24): string {
  return bs58.encode(crypto.getRandomValues(new Uint8Array(bytes)))
}

export function sha256Hex(s: string): string {
  return Bun.SHA256.hash(s, 'hex') as string
}
