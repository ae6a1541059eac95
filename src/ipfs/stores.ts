// Helia's block and key/value stores on one SQLite file (<dataDir>/ipfs.db), separate from the
// app database so large block writes never hold the app's write lock.
import type { Database, Statement } from 'bun:sqlite'
import { BaseBlockstore } from 'blockstore-core/base'
import { NotFoundError } from 'interface-store'
import { BaseDatastore } from 'datastore-core/base'
import { Key, type KeyQuery, type Pair as KvPair, type Query } from 'interface-datastore'
import type { Pair } from 'interface-blockstore'
import { CID } from 'multiformats/cid'
import { decodeBlock } from './block-codec'

async function toBytes(v: Uint8Array | Iterable<Uint8Array> | AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  if (v instanceof Uint8Array) return v
  const parts: Uint8Array[] = []
  for await (const p of v as AsyncIterable<Uint8Array>) parts.push(p)
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts)
}

/**
 * ipfs.db's layout, versioned by `PRAGMA user_version`.
 *
 * 1: blocks are rows of a rowid table (appended in insert order) with a unique index on the
 * multihash; pins likewise, indexed by CID. Layout 0 kept blocks in a WITHOUT ROWID table keyed by
 * the multihash: a random key, so every put landed on a random leaf, and rows over ~1 KB (every
 * task document and receipt) spilled into an overflow page each — twice the file size and twice
 * the insert time at 200,000 tasks (docs/performance.md, Pipeline).
 *
 * 2: a pin is the root block's `pinned_at` (NULL for a block that is not a pinned root), written by
 * the same statement as the block. The pins table, indexed by a random CID, was half of ipfs.db's
 * writes per task (two rows and two random index leaves; docs/performance.md, Checkpoints). Pins
 * written before stay in `ipfs_pins`, which a store upgraded from layout 0 or 1 keeps and nothing
 * writes any more: a block is pinned if it has `pinned_at` or its CID is in that table.
 *
 * 3: a block's `enc` says how `data` holds it: NULL as it is, 1 a pipeline document with what every
 * receipt and task document repeats written once (src/ipfs/block-codec.ts; 0.5 KB instead of 1.7
 * KB a receipt). Blocks written before stay as they are.
 *
 * Every statement of the stores works on every layout; the node picks its put statement by layout
 * (an upgrade that failed leaves the old one working).
 */
export const IPFS_SCHEMA_VERSION = 3

export type IpfsSchemaResult = { version: number; migrated?: { blocks: number; pins: number; ms: number }; error?: string }

const CREATE = [
  'CREATE TABLE IF NOT EXISTS ipfs_blocks (id INTEGER PRIMARY KEY, mh BLOB NOT NULL, cid BLOB NOT NULL, data BLOB NOT NULL, pinned_at INTEGER, enc INTEGER)',
  'CREATE UNIQUE INDEX IF NOT EXISTS ipfs_blocks_mh ON ipfs_blocks (mh)',
  // Helia's key/value store: a handful of rows, never on the task path.
  'CREATE TABLE IF NOT EXISTS ipfs_kv (k TEXT PRIMARY KEY, v BLOB NOT NULL) WITHOUT ROWID',
]
/** Layout 1's pins table, kept (and no longer written) by a store upgraded from layout 0 with pins. */
const LEGACY_PINS = [
  'CREATE TABLE IF NOT EXISTS ipfs_pins (id INTEGER PRIMARY KEY, cid TEXT NOT NULL, created_at INTEGER NOT NULL)',
  'CREATE UNIQUE INDEX IF NOT EXISTS ipfs_pins_cid ON ipfs_pins (cid)',
]

/** What an upgrade copies from each layout-0 table. */
const COPIED_COLUMNS = { ipfs_blocks: 'mh, cid, data', ipfs_pins: 'cid, created_at' } as const

/**
 * Creates or upgrades ipfs.db's tables. Upgrading layout 0 copies every block and pin in one
 * transaction (it needs the free disk space of one more copy; ~50 s for 400,000 blocks here); if it
 * fails — a full disk — nothing changed, the stores keep working on layout 0, and the next start
 * tries again. The old pages become free pages of the file, reused by later writes. Layouts 1 to 3
 * add columns: no copy.
 */
export function initIpfsSchema(db: Database, onUpgrade?: (bytes: number) => void): IpfsSchemaResult {
  const versionOf = () => (db.query('PRAGMA user_version').get() as { user_version: number }).user_version
  const version = versionOf()
  if (version >= IPFS_SCHEMA_VERSION) return { version }
  const exists = (name: string) => db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1").get(name) != null
  const started = performance.now()
  const copied = { ipfs_blocks: 0, ipfs_pins: 0 }
  let old: (keyof typeof COPIED_COLUMNS)[] = []
  try {
    db.transaction(() => {
      const from = versionOf()
      if (from >= IPFS_SCHEMA_VERSION) return // another process on this data dir upgraded it meanwhile
      if (from >= 1) {
        if (from === 1) db.run('ALTER TABLE ipfs_blocks ADD COLUMN pinned_at INTEGER')
        db.run('ALTER TABLE ipfs_blocks ADD COLUMN enc INTEGER')
      } else {
        old = (['ipfs_blocks', 'ipfs_pins'] as const).filter(exists) // layout 0 (the pins table came later than the blocks)
        if (old.length) onUpgrade?.((db.query('SELECT page_count * page_size AS n FROM pragma_page_count(), pragma_page_size()').get() as { n: number }).n)
        for (const t of old) db.run(`ALTER TABLE ${t} RENAME TO ${t}_v0`)
        for (const sql of CREATE) db.run(sql)
        if (old.includes('ipfs_pins')) for (const sql of LEGACY_PINS) db.run(sql)
        for (const t of old) {
          copied[t] = db.run(`INSERT INTO ${t} (${COPIED_COLUMNS[t]}) SELECT ${COPIED_COLUMNS[t]} FROM ${t}_v0`).changes
          db.run(`DROP TABLE ${t}_v0`)
        }
      }
      db.run(`PRAGMA user_version = ${IPFS_SCHEMA_VERSION}`)
    }).immediate()
    if (!old.length) return { version: IPFS_SCHEMA_VERSION }
    return { version: IPFS_SCHEMA_VERSION, migrated: { blocks: copied.ipfs_blocks, pins: copied.ipfs_pins, ms: Math.round(performance.now() - started) } }
  } catch (err) {
    if (!exists('ipfs_blocks')) throw err // a new ipfs.db that cannot be created: nothing to fall back to
    return { version, error: err instanceof Error ? err.message : String(err) }
  }
}

/**
 * The storage monitor's probe on ipfs.db: a tiny committed write (throws while the disk is full).
 * Its table is created on first use, inside the probe, so a server whose ipfs.db predates it still
 * opens on a full disk.
 */
export function storageProbe(db: Database): void {
  db.transaction(() => {
    db.run('CREATE TABLE IF NOT EXISTS ipfs_meta (k TEXT PRIMARY KEY, v TEXT NOT NULL) WITHOUT ROWID')
    db.query("INSERT INTO ipfs_meta (k, v) VALUES ('storage.probe', ?1) ON CONFLICT(k) DO UPDATE SET v = excluded.v").run(new Date().toISOString())
  }).immediate()
}

/** What a statement reads of a block's stored form: `enc` from layout 3 on (src/ipfs/block-codec.ts). */
export const encColumn = (layout: number) => (layout >= 3 ? 'enc' : 'NULL AS enc')

export class SqliteBlockstore extends BaseBlockstore {
  private q: Record<'put' | 'get' | 'has' | 'del' | 'all', Statement>
  constructor(db: Database, layout: number) {
    super()
    this.q = {
      put: db.prepare('INSERT OR IGNORE INTO ipfs_blocks (mh, cid, data) VALUES (?1, ?2, ?3)'),
      get: db.prepare(`SELECT data, ${encColumn(layout)} FROM ipfs_blocks WHERE mh = ?1`),
      has: db.prepare('SELECT 1 AS x FROM ipfs_blocks WHERE mh = ?1'),
      del: db.prepare('DELETE FROM ipfs_blocks WHERE mh = ?1'),
      all: db.prepare(`SELECT cid, data, ${encColumn(layout)} FROM ipfs_blocks`),
    }
  }

  override async put(cid: CID, val: Uint8Array | Iterable<Uint8Array> | AsyncIterable<Uint8Array>): Promise<CID> {
    this.q.put.run(cid.multihash.bytes, cid.bytes, await toBytes(val))
    return cid
  }

  override *get(cid: CID): Generator<Uint8Array> {
    const row = this.q.get.get(cid.multihash.bytes) as { data: Uint8Array; enc: number | null } | null
    if (!row) throw new NotFoundError(`block ${cid} not found`)
    yield decodeBlock(row.data, row.enc)
  }

  override has(cid: CID): boolean { return this.q.has.get(cid.multihash.bytes) != null }
  override delete(cid: CID): void { this.q.del.run(cid.multihash.bytes) }

  override *getAll(): Generator<Pair> {
    for (const r of this.q.all.iterate() as Iterable<{ cid: Uint8Array; data: Uint8Array; enc: number | null }>) {
      const data = decodeBlock(r.data, r.enc)
      yield { cid: CID.decode(r.cid), bytes: (function* () { yield data })() }
    }
  }
}

export class SqliteDatastore extends BaseDatastore {
  private q: Record<'put' | 'get' | 'has' | 'del' | 'prefix', Statement>
  constructor(db: Database) {
    super()
    this.q = {
      put: db.prepare('INSERT INTO ipfs_kv (k, v) VALUES (?1, ?2) ON CONFLICT(k) DO UPDATE SET v = excluded.v'),
      get: db.prepare('SELECT v FROM ipfs_kv WHERE k = ?1'),
      has: db.prepare('SELECT 1 AS x FROM ipfs_kv WHERE k = ?1'),
      del: db.prepare('DELETE FROM ipfs_kv WHERE k = ?1'),
      prefix: db.prepare("SELECT k, v FROM ipfs_kv WHERE k >= ?1 AND k < ?1 || x'ff' ORDER BY k"),
    }
  }

  override put(key: Key, val: Uint8Array): Key { this.q.put.run(key.toString(), val); return key }
  override get(key: Key): Uint8Array {
    const row = this.q.get.get(key.toString()) as { v: Uint8Array } | null
    if (!row) throw new NotFoundError(`key ${key} not found`)
    return row.v
  }
  override has(key: Key): boolean { return this.q.has.get(key.toString()) != null }
  override delete(key: Key): void { this.q.del.run(key.toString()) }

  override *_all(q: Query): Generator<KvPair> {
    for (const r of this.q.prefix.iterate(q.prefix ?? '') as Iterable<{ k: string; v: Uint8Array }>) yield { key: new Key(r.k), value: r.v }
  }
  override *_allKeys(q: KeyQuery): Generator<Key> {
    for (const r of this.q.prefix.iterate(q.prefix ?? '') as Iterable<{ k: string }>) yield new Key(r.k)
  }
}
