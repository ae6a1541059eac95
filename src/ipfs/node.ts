// The embedded IPFS node: Helia light (no libp2p, nothing listens or dials), UnixFS import with
// pinned importer options (CIDv1, raw leaves, 1 MiB chunks), and CAR export for the gateway.
// Pins are rows in our own `ipfs_pins` table: Helia's pinning walked the DAG and wrote CBOR
// records at ~1.4 ms per add, ten times the import itself, for a store that never collects garbage.
import { Database } from 'bun:sqlite'
import { car } from '@helia/car'
import { unixfs, type UnixFS } from '@helia/unixfs'
import { createHeliaLight } from 'helia'
import { CID } from 'multiformats/cid'
import { join } from 'node:path'
import { initIpfsSchema, SqliteBlockstore, SqliteDatastore } from './stores'

type Helia = Awaited<ReturnType<typeof createHeliaLight>>

export class IpfsNode {
  private writes: Promise<void> = Promise.resolve()
  private constructor(private db: Database, private helia: Helia, private fs: UnixFS, private carExporter: ReturnType<typeof car>) {}

  static async open(dataDir: string): Promise<IpfsNode> {
    const db = new Database(join(dataDir, 'ipfs.db'), { create: true, strict: true })
    db.run('PRAGMA journal_mode = WAL')
    db.run('PRAGMA synchronous = NORMAL')
    db.run('PRAGMA busy_timeout = 5000')
    initIpfsSchema(db)
    const helia = await createHeliaLight({ blockstore: new SqliteBlockstore(db), datastore: new SqliteDatastore(db) }).start()
    return new IpfsNode(db, helia as Helia, unixfs(helia), car(helia))
  }

  /**
   * Imports bytes as a UnixFS file and pins it; returns the CIDv1 string. Imports are serialised:
   * each one batches its block writes in one SQLite transaction, which must not interleave with
   * another import's awaits.
   */
  addBytes(bytes: Uint8Array): Promise<string> {
    const run = this.writes.then(() => this.importNow(bytes))
    this.writes = run.then(() => undefined, () => undefined)
    return run
  }

  private async importNow(bytes: Uint8Array): Promise<string> {
    let cid!: CID
    this.db.run('BEGIN')
    try {
      cid = await this.fs.addBytes(bytes, { cidVersion: 1, rawLeaves: true })
      this.db.query('INSERT OR IGNORE INTO ipfs_pins (cid, created_at) VALUES (?1, ?2)').run(cid.toString(), Date.now())
      this.db.run('COMMIT')
    } catch (e) {
      this.db.run('ROLLBACK')
      throw e
    }
    return cid.toString()
  }

  async addJson(value: unknown): Promise<string> {
    return this.addBytes(new TextEncoder().encode(JSON.stringify(value)))
  }

  has(cid: CID): boolean { return this.db.query('SELECT 1 FROM ipfs_blocks WHERE mh = ?1').get(cid.multihash.bytes) != null }

  /** The whole file content behind a UnixFS CID (offline: never fetches). */
  async cat(cid: CID, maxBytes = 64 * 1024 * 1024): Promise<Uint8Array> {
    const parts: Uint8Array[] = []
    let size = 0
    for await (const p of this.fs.cat(cid, { offline: true })) {
      size += p.byteLength
      if (size > maxBytes) throw new RangeError('content too large')
      parts.push(p)
    }
    return Buffer.concat(parts)
  }

  async catJson<T = unknown>(cid: CID): Promise<T> {
    return JSON.parse(new TextDecoder().decode(await this.cat(cid))) as T
  }

  /** The raw bytes of one block. */
  block(cid: CID): Uint8Array | null {
    const row = this.db.query('SELECT data FROM ipfs_blocks WHERE mh = ?1').get(cid.multihash.bytes) as { data: Uint8Array } | null
    return row?.data ?? null
  }

  carStream(cid: CID): ReadableStream<Uint8Array> {
    const it = this.carExporter.export(cid, { offline: true })[Symbol.asyncIterator]()
    return new ReadableStream({
      async pull(c) { const n = await it.next(); if (n.done) c.close(); else c.enqueue(n.value) },
      cancel() { void it.return?.(undefined) },
    })
  }

  healthy(): boolean {
    try { this.db.query('SELECT 1').get(); return true } catch { return false }
  }

  async stop(): Promise<void> {
    await this.helia.stop()
    this.db.run('PRAGMA wal_checkpoint(TRUNCATE)')
    this.db.close()
  }
}

export function parseCid(s: string): CID | null {
  try { return CID.parse(s) } catch { return null }
}
