// ipfs.db (<dataDir>/ipfs.db), separate from the app database so large block writes never hold the
// app's write lock: its layout, the node's block writes and reads (IpfsStore), and Helia's block and
// key/value stores over it. The only module with SQL on the blocks. In PostgreSQL mode the same
// tables live in the shared database (migrations/pg/0003_ipfs_blocks.sql, layout 3), so that every
// replica serves every CID; the statements are the same.
import { Database } from 'bun:sqlite'
import { and, eq, gte, lt, sql } from 'drizzle-orm'
import { drizzle, type BunSQLiteDatabase } from 'drizzle-orm/bun-sqlite'
import { customType, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
import { BaseBlockstore } from 'blockstore-core/base'
import { NotFoundError } from 'interface-store'
import { BaseDatastore } from 'datastore-core/base'
import { Key, type KeyQuery, type Pair as KvPair, type Query } from 'interface-datastore'
import type { Pair } from 'interface-blockstore'
import { CID } from 'multiformats/cid'
import { join } from 'node:path'
import { WAL_AUTOCHECKPOINT_PAGES } from '../db/checkpointer'
import { databaseAnswers, truncateWal } from '../db'
import { prepareSql, preparedOnUse } from '../db/sql'
import { isPostgres } from '../db/dialect'
import { SqliteTransactor, type Transactor } from '../db/transactor'
import type { Db } from '../db'
import { decodeBlock, encodeBlock } from './block-codec'

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
 * Every statement of the stores works on every layout; IpfsStore picks its put statement by layout
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

/** Bytes as bun:sqlite reads and writes them (Uint8Array), without a copy. */
const bytes = customType<{ data: Uint8Array; driverData: Uint8Array }>({ dataType: () => 'blob' })
/** ipfs.db's tables for the query builder (created by initIpfsSchema, not by drizzle-kit). */
const blocks = sqliteTable('ipfs_blocks', { id: integer('id').primaryKey(), mh: bytes('mh').notNull(), cid: bytes('cid').notNull(), data: bytes('data').notNull(), pinnedAt: integer('pinned_at'), enc: integer('enc') })
const kv = sqliteTable('ipfs_kv', { k: text('k').primaryKey(), v: bytes('v').notNull() })
const legacyPins = sqliteTable('ipfs_pins', { id: integer('id').primaryKey(), cid: text('cid').notNull(), createdAt: integer('created_at').notNull() })
type IpfsDb = BunSQLiteDatabase & { $client: Database }

const p = sql.placeholder
/** What a statement reads of a block's stored form: `enc` from layout 3 on (src/ipfs/block-codec.ts). */
const encOf = (layout: number) => (layout >= 3 ? blocks.enc : sql<number | null>`NULL`)

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

export class SqliteBlockstore extends BaseBlockstore {
  private q
  constructor(db: IpfsDb, layout: number) {
    super()
    const byMh = eq(blocks.mh, p('mh'))
    this.q = preparedOnUse({
      put: () => db.insert(blocks).values({ mh: p('mh'), cid: p('cid'), data: p('data') }).onConflictDoNothing().prepare(),
      get: () => db.select({ data: blocks.data, enc: encOf(layout) }).from(blocks).where(byMh).prepare(),
      has: () => db.select({ x: sql<number>`1` }).from(blocks).where(byMh).prepare(),
      del: () => db.delete(blocks).where(byMh).prepare(),
      // Streamed: every block of the store.
      all: () => prepareSql<{ cid: Uint8Array; data: Uint8Array; enc: number | null }>(db as never,
        sql`SELECT ${sql.identifier('cid')}, ${sql.identifier('data')}, ${layout >= 3 ? sql.identifier('enc') : sql`NULL`} AS ${sql.identifier('enc')} FROM ${blocks}`),
    })
  }

  override async put(cid: CID, val: Uint8Array | Iterable<Uint8Array> | AsyncIterable<Uint8Array>): Promise<CID> {
    this.q.put.run({ mh: cid.multihash.bytes, cid: cid.bytes, data: await toBytes(val) })
    return cid
  }

  override *get(cid: CID): Generator<Uint8Array> {
    const row = this.q.get.get({ mh: cid.multihash.bytes })
    if (!row) throw new NotFoundError(`block ${cid} not found`)
    yield decodeBlock(row.data, row.enc)
  }

  override has(cid: CID): boolean { return this.q.has.get({ mh: cid.multihash.bytes }) !== undefined }
  override delete(cid: CID): void { this.q.del.run({ mh: cid.multihash.bytes }) }

  override *getAll(): Generator<Pair> {
    for (const r of this.q.all.iterate()) {
      const data = decodeBlock(r.data, r.enc)
      yield { cid: CID.decode(r.cid), bytes: (function* () { yield data })() }
    }
  }
}

export class SqliteDatastore extends BaseDatastore {
  private q
  constructor(db: IpfsDb) {
    super()
    const byKey = eq(kv.k, p('k'))
    this.q = preparedOnUse({
      put: () => db.insert(kv).values({ k: p('k'), v: p('v') }).onConflictDoUpdate({ target: kv.k, set: { v: sql`excluded.v` } }).prepare(),
      get: () => db.select({ v: kv.v }).from(kv).where(byKey).prepare(),
      has: () => db.select({ x: sql<number>`1` }).from(kv).where(byKey).prepare(),
      del: () => db.delete(kv).where(byKey).prepare(),
      prefix: () => db.select({ k: kv.k, v: kv.v }).from(kv)
        .where(isPostgres(db as never) ? sql`starts_with(${kv.k}, ${p('prefix')})` : and(gte(kv.k, p('prefix')), lt(kv.k, sql`${p('prefix')} || x'ff'`))).orderBy(kv.k).prepare(),
    })
  }

  override put(key: Key, val: Uint8Array): Key { this.q.put.run({ k: key.toString(), v: val }); return key }
  override get(key: Key): Uint8Array {
    const row = this.q.get.get({ k: key.toString() })
    if (!row) throw new NotFoundError(`key ${key} not found`)
    return row.v
  }
  override has(key: Key): boolean { return this.q.has.get({ k: key.toString() }) !== undefined }
  override delete(key: Key): void { this.q.del.run({ k: key.toString() }) }

  override *_all(q: Query): Generator<KvPair> {
    for (const r of this.q.prefix.all({ prefix: q.prefix ?? '' })) yield { key: new Key(r.k), value: r.v }
  }
  override *_allKeys(q: KeyQuery): Generator<Key> {
    for (const r of this.q.prefix.all({ prefix: q.prefix ?? '' })) yield new Key(r.k)
  }
}

/**
 * ipfs.db as the node uses it: opened and brought to the current layout, the node's block writes
 * (a root's pin with it) and reads, and Helia's stores over the same connection.
 */
export class IpfsStore {
  /** Stores one block; `pinnedAt` (the root's) pins it, null stores it unpinned. */
  readonly putBlock: (b: { cid: CID; data: Uint8Array }, pinnedAt: number | null) => void
  private db: IpfsDb
  private q

  /** `conn`: ipfs.db's connection, null in PostgreSQL mode (the blocks are in `db`, the shared database). */
  private constructor(db: IpfsDb, private conn: Database | null, private layout: number, readonly tx: Transactor) {
    this.db = db
    if (layout >= 3) {
      // The block in its stored form (src/ipfs/block-codec.ts) and its pin in one row: a root stored
      // again unpinned (or pinned before) keeps its first pin time.
      const put = db.insert(blocks).values({ mh: p('mh'), cid: p('cid'), data: p('data'), pinnedAt: p('pinnedAt'), enc: p('enc') })
        .onConflictDoUpdate({ target: blocks.mh, set: { pinnedAt: sql`excluded.pinned_at` }, setWhere: sql`${blocks.pinnedAt} IS NULL AND excluded.pinned_at IS NOT NULL` }).prepare()
      this.putBlock = (b, pinnedAt) => { const stored = encodeBlock(b.data); put.run({ mh: b.cid.multihash.bytes, cid: b.cid.bytes, data: stored.data, pinnedAt, enc: stored.enc }) }
    } else if (layout >= 2) { // a store whose upgrade to layout 3 failed
      // The block and its pin in one row: a root stored again unpinned (or pinned before) keeps its first pin time.
      const put = db.insert(blocks).values({ mh: p('mh'), cid: p('cid'), data: p('data'), pinnedAt: p('pinnedAt') })
        .onConflictDoUpdate({ target: blocks.mh, set: { pinnedAt: sql`excluded.pinned_at` }, setWhere: sql`${blocks.pinnedAt} IS NULL AND excluded.pinned_at IS NOT NULL` }).prepare()
      this.putBlock = (b, pinnedAt) => { put.run({ mh: b.cid.multihash.bytes, cid: b.cid.bytes, data: b.data, pinnedAt }) }
    } else { // a store whose upgrade failed: its pins table
      const put = db.insert(blocks).values({ mh: p('mh'), cid: p('cid'), data: p('data') }).onConflictDoNothing().prepare()
      const pin = db.insert(legacyPins).values({ cid: p('cid'), createdAt: p('createdAt') }).onConflictDoNothing().prepare()
      this.putBlock = (b, pinnedAt) => {
        put.run({ mh: b.cid.multihash.bytes, cid: b.cid.bytes, data: b.data })
        if (pinnedAt !== null) pin.run({ cid: b.cid.toString(), createdAt: pinnedAt })
      }
    }
    this.q = preparedOnUse({
      has: () => db.select({ x: sql<number>`1` }).from(blocks).where(eq(blocks.mh, p('mh'))).prepare(),
      data: () => db.select({ data: blocks.data, enc: encOf(layout) }).from(blocks).where(eq(blocks.mh, p('mh'))).prepare(),
    })
  }

  /** Opens ipfs.db in `dataDir` and creates or upgrades its layout (`schema` says how it went; initIpfsSchema). */
  static open(dataDir: string, onUpgrade?: (bytes: number) => void): { store: IpfsStore; schema: IpfsSchemaResult } {
    const conn = new Database(join(dataDir, 'ipfs.db'), { create: true, strict: true })
    conn.run('PRAGMA journal_mode = WAL')
    conn.run('PRAGMA synchronous = NORMAL')
    conn.run('PRAGMA busy_timeout = 5000')
    conn.run(`PRAGMA wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES.alone}`) // as taskgate.db (src/db/checkpointer.ts)
    const schema = initIpfsSchema(conn, onUpgrade)
    return { store: new IpfsStore(drizzle({ client: conn }), conn, schema.version, new SqliteTransactor(conn)), schema }
  }

  /** The blocks in the service's PostgreSQL database (its migrations made the tables), written in its transactions. */
  static onPostgres(db: Db, tx: Transactor): IpfsStore {
    return new IpfsStore(db as unknown as IpfsDb, null, IPFS_SCHEMA_VERSION, tx)
  }

  has(cid: CID): boolean { return this.q.has.get({ mh: cid.multihash.bytes }) !== undefined }
  /** The raw bytes of one block. */
  block(cid: CID): Uint8Array | null {
    const row = this.q.data.get({ mh: cid.multihash.bytes })
    return row ? decodeBlock(row.data, row.enc) : null
  }

  /** ipfs.db's connection, for the checkpointer (src/db/checkpointer.ts), which sets its threshold; null in PostgreSQL mode. */
  get connection(): Database | null { return this.conn }

  blockstore(): SqliteBlockstore { return new SqliteBlockstore(this.db, this.layout) }
  datastore(): SqliteDatastore { return new SqliteDatastore(this.db) }

  /** Whether ipfs.db answers a trivial query; never throws. In PostgreSQL mode the database's own check covers the blocks. */
  healthy(): boolean { return this.conn ? databaseAnswers(this.conn) : true }

  /** The storage monitor's probe: a tiny committed write (throws while the disk is full); nothing in PostgreSQL mode. */
  probe(): void { if (this.conn) storageProbe(this.conn) }

  /** Checkpoints the log into the file (a full disk leaves it, replayed at the next start) and closes; in PostgreSQL mode the service closes the database. */
  close(): void {
    if (!this.conn) return
    truncateWal(this.conn)
    this.conn.close()
  }
}
