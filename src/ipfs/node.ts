// The embedded IPFS node: Helia light (no libp2p, nothing listens or dials), UnixFS import with
// pinned importer options (CIDv1, raw leaves, 1 MiB chunks), and CAR export for the gateway.
// Helia is loaded on first use only (reading a file of several blocks, exporting a CAR): adding
// content and reading one-block content (every task document and receipt) never need it, and
// loading it cost about a third of the start-up time and memory.
// A pin is the root block's `pinned_at` in our own store (src/ipfs/stores.ts, layout 2): Helia's
// pinning walked the DAG and wrote CBOR records at ~1.4 ms per add, ten times the import itself,
// for a store that never collects garbage.
import type { Database } from 'bun:sqlite'
import type { car } from '@helia/car'
import type { UnixFS } from '@helia/unixfs'
import type { createHeliaLight } from 'helia'
import { importFile, type ImporterOptions } from 'ipfs-unixfs-importer'
import { fixedSize } from 'ipfs-unixfs-importer/chunker'
import { balanced } from 'ipfs-unixfs-importer/layout'
import { CID } from 'multiformats/cid'
import { sha256 } from 'multiformats/hashes/sha2'
import { GroupCommitter } from '../db/group-commit'
import type { Db } from '../db'
import type { Transactor } from '../db/transactor'
import type { Logger } from '../log'
import { IpfsStore } from './stores'

type Helia = Awaited<ReturnType<typeof createHeliaLight>>

const CHUNK_SIZE = 1_048_576
const RAW_CODEC = 0x55

/** @helia/unixfs's defaults (CIDv1, raw leaves, 1 MiB chunks, 1024 links per node), pinned here so CIDs never drift. */
export const IMPORT_OPTIONS: Partial<ImporterOptions> = {
  cidVersion: 1, rawLeaves: true, layout: balanced({ maxChildrenPerNode: 1024 }), chunker: fixedSize({ chunkSize: CHUNK_SIZE }),
}

/**
 * Imports bytes as a UnixFS file into memory: the root CID and every block, nothing stored. Content
 * of one chunk (1 byte to 1 MiB: every task document and receipt) is a single raw block whose CID is
 * CIDv1(raw, sha2-256(bytes)) — exactly what the importer gives with these options (test/unit/ipfs-cid)
 * — so it is hashed directly instead of going through the importer.
 */
export async function importToMemory(bytes: Uint8Array): Promise<{ cid: CID; blocks: Map<string, { cid: CID; data: Uint8Array }> }> {
  const block = rawBlock(bytes)
  return block ? alone(block) : importWithImporter(bytes)
}

/** One raw block as an import: the root and its only block. */
const alone = (block: { cid: CID; data: Uint8Array }) => ({ cid: block.cid, blocks: new Map([[block.cid.toString(), block]]) })

/** Content of one chunk as its single raw block (CIDv1, raw, sha2-256), computed synchronously; null for other sizes. */
export function rawBlock(bytes: Uint8Array): { cid: CID; data: Uint8Array } | null {
  if (bytes.length === 0 || bytes.length > CHUNK_SIZE) return null
  const digest = sha256.digest(bytes)
  if (digest instanceof Promise) throw new Error('sha2-256 is asynchronous here') // multiformats' Node build hashes with node:crypto, synchronously
  return { cid: CID.createV1(RAW_CODEC, digest), data: bytes }
}

/** The UnixFS importer with IMPORT_OPTIONS (files of several chunks, and the empty file). */
export async function importWithImporter(bytes: Uint8Array): Promise<{ cid: CID; blocks: Map<string, { cid: CID; data: Uint8Array }> }> {
  const blocks = new Map<string, { cid: CID; data: Uint8Array }>()
  const staging = {
    put: async (cid: CID, data: Uint8Array) => { blocks.set(cid.toString(), { cid, data }); return cid },
    get: async function* (): AsyncGenerator<Uint8Array> { throw new Error('unused') },
    has: async (cid: CID) => blocks.has(cid.toString()),
  }
  const entry = await importFile({ content: bytes }, staging as never, IMPORT_OPTIONS)
  return { cid: entry.cid, blocks }
}

export class IpfsNode {
  private group: GroupCommitter
  private heliaTools: Promise<{ helia: Helia; fs: UnixFS; car: ReturnType<typeof car> }> | null = null
  private constructor(private repo: IpfsStore) {
    this.group = new GroupCommitter(repo.tx)
  }

  /** The node on <dataDir>/ipfs.db, or (`postgres`) on the blocks tables of the service's PostgreSQL database. */
  static async open(dataDir: string, log?: Pick<Logger, 'info' | 'warn'>, postgres?: { db: Db; tx: Transactor }): Promise<IpfsNode> {
    if (postgres) return new IpfsNode(IpfsStore.onPostgres(postgres.db, postgres.tx))
    const { store, schema } = IpfsStore.open(dataDir, (bytes) => log?.info({ bytes }, 'upgrading ipfs.db to its rowid layout (once; about half a minute per GB)'))
    if (schema.migrated) log?.info({ ...schema.migrated, layout: schema.version }, 'ipfs.db upgraded to its rowid layout')
    if (schema.error) log?.warn({ layout: schema.version, error: schema.error }, 'ipfs.db upgrade failed; it keeps working on its old layout and is upgraded at the next start')
    return new IpfsNode(store)
  }

  /** Helia with UnixFS and CAR over our stores, created on first use. */
  private tools() {
    return (this.heliaTools ??= (async () => {
      const [{ createHeliaLight }, { unixfs }, { car }] = await Promise.all([import('helia'), import('@helia/unixfs'), import('@helia/car')])
      const helia = await createHeliaLight({ blockstore: this.repo.blockstore(), datastore: this.repo.datastore() }).start() as Helia
      return { helia, fs: unixfs(helia), car: car(helia) }
    })())
  }

  /**
   * Imports bytes as a UnixFS file and pins it; returns the CIDv1 string. The import runs in
   * memory (concurrent imports never wait for each other: a 10 MiB upload does not hold up a task's
   * stage 5), then its blocks and pin are written in one transaction, shared with concurrent adds.
   */
  async addBytes(bytes: Uint8Array): Promise<string> {
    const { cid, stored } = await this.put(bytes)
    await stored
    return cid
  }

  async addJson(value: unknown): Promise<string> {
    return this.addBytes(new TextEncoder().encode(JSON.stringify(value)))
  }

  /**
   * Like addJson, but answers the CID as soon as it is known, synchronously for a document of one
   * block (1 MiB at most: every task document but one carrying a huge output); `stored` resolves
   * once the blocks are committed.
   */
  putJson(value: unknown): { cid: string; stored: Promise<void> } | Promise<{ cid: string; stored: Promise<void> }> {
    const bytes = new TextEncoder().encode(JSON.stringify(value))
    const block = rawBlock(bytes)
    return block ? this.store(alone(block)) : this.put(bytes)
  }

  private async put(bytes: Uint8Array): Promise<{ cid: string; stored: Promise<void> }> {
    return this.store(await importToMemory(bytes))
  }

  /** Writes an import's blocks (the root pinned), in a commit shared with concurrent adds. */
  private store({ cid, blocks }: { cid: CID; blocks: Map<string, { cid: CID; data: Uint8Array }> }): { cid: string; stored: Promise<void> } {
    const root = cid.toString()
    const stored = this.group.run(() => { // concurrent adds (two per task) share one commit
      const now = Date.now()
      for (const [key, b] of blocks) this.repo.putBlock(b, key === root ? now : null)
    })
    return { cid: root, stored }
  }

  has(cid: CID): boolean { return this.repo.has(cid) }

  /** The whole file content behind a UnixFS CID (offline: never fetches). */
  async cat(cid: CID, maxBytes = 64 * 1024 * 1024): Promise<Uint8Array> {
    if (cid.code === RAW_CODEC) { // one raw block is the whole file
      const data = this.block(cid)
      if (!data) throw new Error(`block ${cid} not found`)
      if (data.byteLength > maxBytes) throw new RangeError('content too large')
      return data
    }
    const parts: Uint8Array[] = []
    let size = 0
    const { fs } = await this.tools()
    for await (const p of fs.cat(cid, { offline: true })) {
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
    return this.repo.block(cid)
  }

  carStream(cid: CID): ReadableStream<Uint8Array> {
    let it: AsyncIterator<Uint8Array> | null = null
    const tools = this.tools()
    return new ReadableStream({
      async pull(c) {
        it ??= (await tools).car.export(cid, { offline: true })[Symbol.asyncIterator]()
        const n = await it.next()
        if (n.done) c.close(); else c.enqueue(n.value)
      },
      cancel() { void it?.return?.(undefined) },
    })
  }

  /** The serving connection to ipfs.db, for the checkpointer (src/db/checkpointer.ts), which sets its threshold. */
  get connection(): Database | null { return this.repo.connection }

  healthy(): boolean { return this.repo.healthy() }

  /** The storage monitor's probe: a tiny committed write on ipfs.db (throws while the disk is full). */
  probeWrite(): void { this.repo.probe() }

  async stop(): Promise<void> {
    if (this.heliaTools) await (await this.heliaTools).helia.stop()
    this.repo.close()
  }
}

export function parseCid(s: string): CID | null {
  try { return CID.parse(s) } catch { return null }
}
