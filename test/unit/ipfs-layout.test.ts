// ipfs.db's layouts: a new store is created in layout 3 (rowid tables, a pin is the root block's
// pinned_at, a pipeline document stored in its encoded form), a layout-0 store (WITHOUT ROWID tables
// keyed by the multihash) is upgraded in place with every block and pin, a layout-1 store gains the
// columns and keeps its pins table, a layout-2 store gains `enc` and reads its blocks as they were,
// and an upgrade that fails changes nothing and leaves a store that still works (and pins) on its
// old layout.
import { Database } from 'bun:sqlite'
import { afterEach, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CID } from 'multiformats/cid'
import { importToMemory, IpfsNode } from '../../src/ipfs/node'
import { initIpfsSchema, IPFS_SCHEMA_VERSION } from '../../src/ipfs/stores'

const dirs: string[] = []
afterEach(() => { for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true }) })
const newDir = () => { const d = mkdtempSync(join(tmpdir(), 'tg-ipfs-')); dirs.push(d); return d }

const userVersion = (db: Database) => (db.query('PRAGMA user_version').get() as { user_version: number }).user_version
const tableSql = (db: Database, name: string) => (db.query("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?1").get(name) as { sql: string } | null)?.sql ?? null
const pinnedAt = (db: Database, cid: string) => (db.query('SELECT pinned_at AS p FROM ipfs_blocks WHERE mh = ?1').get(CID.parse(cid).multihash.bytes) as { p: number | null } | null)?.p ?? null
const tables = (db: Database) => (db.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((r) => r.name)

/** A store as servers before layout 1 wrote it, holding `n` one-block documents (every one pinned) and a two-chunk file. */
async function layoutZero(dir: string, n: number): Promise<{ docs: { cid: string; bytes: Uint8Array }[]; big: { cid: string; bytes: Uint8Array } }> {
  const db = new Database(join(dir, 'ipfs.db'), { create: true, strict: true })
  db.run('PRAGMA journal_mode = WAL')
  db.run('CREATE TABLE ipfs_blocks (mh BLOB PRIMARY KEY, cid BLOB NOT NULL, data BLOB NOT NULL) WITHOUT ROWID')
  db.run('CREATE TABLE ipfs_kv (k TEXT PRIMARY KEY, v BLOB NOT NULL) WITHOUT ROWID')
  db.run('CREATE TABLE ipfs_pins (cid TEXT PRIMARY KEY, created_at INTEGER NOT NULL) WITHOUT ROWID')
  db.query('INSERT INTO ipfs_kv (k, v) VALUES (?1, ?2)').run('/helia/datastore/x', new Uint8Array([1, 2, 3]))
  const put = db.prepare('INSERT OR IGNORE INTO ipfs_blocks (mh, cid, data) VALUES (?1, ?2, ?3)')
  const pin = db.prepare('INSERT INTO ipfs_pins (cid, created_at) VALUES (?1, ?2)')
  const store = async (bytes: Uint8Array, at: number) => {
    const { cid, blocks } = await importToMemory(bytes)
    for (const b of blocks.values()) put.run(b.cid.multihash.bytes, b.cid.bytes, b.data)
    pin.run(cid.toString(), at)
    return { cid: cid.toString(), bytes }
  }
  const docs = []
  for (let i = 0; i < n; i++) docs.push(await store(new TextEncoder().encode(JSON.stringify({ i, text: 'x'.repeat(1200 + i) })), 1_700_000_000_000 + i))
  const big = await store(new Uint8Array(1_048_576 + 5000).map((_, i) => (i * 7) % 251), 1_800_000_000_000)
  db.close()
  return { docs, big }
}

describe('ipfs.db layout', () => {
  test('a new store is created in the rowid layout and works', async () => {
    const dir = newDir()
    const node = await IpfsNode.open(dir)
    const cid = await node.addJson({ hello: 'world' })
    expect(new TextDecoder().decode(await node.cat(CID.parse(cid)))).toBe('{"hello":"world"}')
    await node.stop()
    const db = new Database(join(dir, 'ipfs.db'))
    expect(userVersion(db)).toBe(IPFS_SCHEMA_VERSION)
    expect(tableSql(db, 'ipfs_blocks')).not.toContain('WITHOUT ROWID')
    expect(tables(db)).toEqual(['ipfs_blocks', 'ipfs_kv']) // no pins table: the pin is on the block
    expect(pinnedAt(db, cid)).toBeNumber()
    db.close()
  })

  test('a root is pinned once, by the same statement as its block; the blocks under it are not pinned', async () => {
    const dir = newDir()
    const node = await IpfsNode.open(dir)
    const t0 = Date.now()
    const small = await node.addJson({ n: 1 })
    const big = new Uint8Array(1_048_576 + 10).map((_, i) => i % 199)
    const root = await node.addBytes(big)
    const mark = new Database(join(dir, 'ipfs.db'), { strict: true })
    expect(pinnedAt(mark, small)).toBeGreaterThanOrEqual(t0)
    mark.query('UPDATE ipfs_blocks SET pinned_at = 123 WHERE mh = ?1').run(CID.parse(small).multihash.bytes) // a pin time no add would write
    mark.close()
    expect(await node.addJson({ n: 1 })).toBe(small) // stored again: keeps its first pin
    await node.stop()
    const db = new Database(join(dir, 'ipfs.db'), { readonly: true })
    expect(pinnedAt(db, small)).toBe(123)
    expect(pinnedAt(db, root)).toBeGreaterThanOrEqual(t0)
    const rows = db.query('SELECT pinned_at AS p FROM ipfs_blocks').all() as { p: number | null }[]
    expect(rows).toHaveLength(1 + 3) // the small document; the big file's root and its two leaves
    expect(rows.filter((r) => r.p !== null)).toHaveLength(2) // the two roots only
    db.close()
  })

  test('a layout-0 store is upgraded with every block, pin and key, once', async () => {
    const dir = newDir()
    const { docs, big } = await layoutZero(dir, 50)
    const logged: { msg: string; obj: Record<string, unknown> }[] = []
    const log = { info: (obj: Record<string, unknown>, msg: string) => logged.push({ obj, msg }), warn: (obj: Record<string, unknown>, msg: string) => logged.push({ obj, msg }) }
    const node = await IpfsNode.open(dir, log as never)
    expect(logged.map((l) => l.msg)).toEqual(['upgrading ipfs.db to its rowid layout (once; about half a minute per GB)', 'ipfs.db upgraded to its rowid layout'])
    expect(logged[0]!.obj.bytes).toBeGreaterThan(50 * 1200)
    expect(logged[1]!.obj).toMatchObject({ blocks: 50 + 3, pins: 51, layout: IPFS_SCHEMA_VERSION })
    for (const d of [...docs, big]) expect(Buffer.from(await node.cat(CID.parse(d.cid))).equals(Buffer.from(d.bytes))).toBe(true)
    // the stores' statements on the new tables: a duplicate put is ignored, a new one lands
    const again = await node.addBytes(docs[0]!.bytes)
    expect(again).toBe(docs[0]!.cid)
    const fresh = await node.addJson({ after: 'upgrade' })
    expect(await node.catJson(CID.parse(fresh))).toEqual({ after: 'upgrade' })
    await node.stop()

    const db = new Database(join(dir, 'ipfs.db'))
    expect(userVersion(db)).toBe(IPFS_SCHEMA_VERSION)
    expect(tables(db)).toEqual(['ipfs_blocks', 'ipfs_kv', 'ipfs_pins'])
    expect(tableSql(db, 'ipfs_blocks')).not.toContain('WITHOUT ROWID')
    expect((db.query('SELECT count(*) AS n FROM ipfs_blocks').get() as { n: number }).n).toBe(50 + 3 + 1)
    expect(db.query('SELECT created_at FROM ipfs_pins WHERE cid = ?1').get(docs[7]!.cid)).toEqual({ created_at: 1_700_000_000_007 })
    expect((db.query('SELECT count(*) AS n FROM ipfs_pins').get() as { n: number }).n).toBe(51) // the old pins, kept; none added
    expect(pinnedAt(db, fresh)).toBeNumber() // pinned after the upgrade: on its block
    expect(pinnedAt(db, docs[7]!.cid)).toBeNull() // pinned before: in the pins table only
    expect(db.query('SELECT hex(v) AS v FROM ipfs_kv WHERE k = ?1').get('/helia/datastore/x')).toEqual({ v: '010203' })
    db.close()

    logged.length = 0
    await (await IpfsNode.open(dir, log as never)).stop()
    expect(logged).toEqual([]) // nothing left to upgrade
  })

  test('a layout-1 store gains the pin column and keeps its pins table', async () => {
    const dir = newDir()
    const { docs } = await layoutZero(dir, 5)
    await (await IpfsNode.open(dir)).stop()
    const v1 = new Database(join(dir, 'ipfs.db'), { strict: true }) // back to layout 1, as servers before layout 2 left it
    v1.run('ALTER TABLE ipfs_blocks DROP COLUMN pinned_at')
    v1.run('ALTER TABLE ipfs_blocks DROP COLUMN enc')
    v1.run('PRAGMA user_version = 1')
    v1.close()
    const logged: string[] = []
    const node = await IpfsNode.open(dir, { info: (_: unknown, msg: string) => logged.push(msg), warn: (_: unknown, msg: string) => logged.push(msg) } as never)
    expect(logged).toEqual([]) // a column, no copy: nothing to announce
    const fresh = await node.addJson({ after: 'layout 2' })
    expect(await node.catJson(CID.parse(docs[2]!.cid))).toMatchObject({ i: 2 })
    await node.stop()
    const db = new Database(join(dir, 'ipfs.db'))
    expect(userVersion(db)).toBe(IPFS_SCHEMA_VERSION)
    expect((db.query('SELECT count(*) AS n FROM ipfs_pins').get() as { n: number }).n).toBe(6)
    expect(pinnedAt(db, fresh)).toBeNumber()
    db.close()
  })

  test('a layout-2 store gains the encoding column; its blocks read as they were, new pipeline documents are stored encoded and read back exactly', async () => {
    const dir = newDir()
    const { docs, big } = await layoutZero(dir, 3)
    await (await IpfsNode.open(dir)).stop()
    const v2 = new Database(join(dir, 'ipfs.db'), { strict: true }) // back to layout 2, as servers before layout 3 left it
    v2.run('ALTER TABLE ipfs_blocks DROP COLUMN enc')
    v2.run('PRAGMA user_version = 2')
    // a receipt-like document written raw by layout 2
    const old = { type: 'taskgate.receipt/v1', payload: { message: { taskId: 'task_old', promptHash: `0x${'ab'.repeat(32)}` } } }
    const oldBytes = new TextEncoder().encode(JSON.stringify(old))
    const { cid: oldCid, blocks } = await importToMemory(oldBytes)
    for (const b of blocks.values()) v2.query('INSERT INTO ipfs_blocks (mh, cid, data, pinned_at) VALUES (?1, ?2, ?3, 1)').run(b.cid.multihash.bytes, b.cid.bytes, b.data)
    v2.close()
    const logged: string[] = []
    const node = await IpfsNode.open(dir, { info: (_: unknown, msg: string) => logged.push(msg), warn: (_: unknown, msg: string) => logged.push(msg) } as never)
    expect(logged).toEqual([])
    const doc = { type: 'taskgate.task/v1', taskId: 'task_new', promptHash: `0x${'cd'.repeat(32)}`, outputHash: `0x${'ef'.repeat(32)}`, model: 'builtin', provider: 'builtin' }
    const fresh = await node.addJson(doc)
    const bytes = new TextEncoder().encode(JSON.stringify(doc))
    expect(Buffer.from(node.block(CID.parse(fresh))!).equals(Buffer.from(bytes))).toBe(true)
    expect(Buffer.from(node.block(oldCid)!).equals(Buffer.from(oldBytes))).toBe(true)
    expect(Buffer.from(await node.cat(CID.parse(docs[1]!.cid))).equals(Buffer.from(docs[1]!.bytes))).toBe(true)
    expect(Buffer.from(await node.cat(CID.parse(big.cid))).equals(Buffer.from(big.bytes))).toBe(true) // through Helia's blockstore
    await node.stop()
    const db = new Database(join(dir, 'ipfs.db'))
    expect(userVersion(db)).toBe(IPFS_SCHEMA_VERSION)
    const stored = (cid: CID) => db.query('SELECT length(data) AS n, enc FROM ipfs_blocks WHERE mh = ?1').get(cid.multihash.bytes) as { n: number; enc: number | null }
    expect(stored(CID.parse(fresh)).enc).toBe(1)
    expect(stored(CID.parse(fresh)).n).toBeLessThan(bytes.length / 2)
    expect(stored(oldCid)).toEqual({ n: oldBytes.length, enc: null })
    db.close()
  })

  test('a store whose upgrade to layout 2 fails keeps working and pinning on layout 1', async () => {
    const dir = newDir()
    await layoutZero(dir, 3)
    await (await IpfsNode.open(dir)).stop()
    const v1 = new Database(join(dir, 'ipfs.db'), { strict: true })
    v1.run('PRAGMA user_version = 1') // layout 1 by its number, with a column in the way: adding pinned_at fails
    v1.close()
    const warned: Record<string, unknown>[] = []
    const node = await IpfsNode.open(dir, { info: () => {}, warn: (obj: Record<string, unknown>) => warned.push(obj) } as never)
    expect(warned).toHaveLength(1)
    expect(String(warned[0]!.error)).toMatch(/duplicate column/i)
    const fresh = await node.addJson({ on: 'layout 1' })
    expect(await node.catJson(CID.parse(fresh))).toEqual({ on: 'layout 1' })
    await node.stop()
    const db = new Database(join(dir, 'ipfs.db'))
    expect(userVersion(db)).toBe(1)
    expect(db.query('SELECT cid FROM ipfs_pins WHERE cid = ?1').get(fresh)).toEqual({ cid: fresh }) // pinned the layout-1 way
    expect(pinnedAt(db, fresh)).toBeNull()
    db.close()
  })

  test('an upgrade that runs out of space changes nothing; the old layout keeps working', async () => {
    const dir = newDir()
    const { docs } = await layoutZero(dir, 40)
    const db = new Database(join(dir, 'ipfs.db'), { strict: true })
    const pages = (db.query('PRAGMA page_count').get() as { page_count: number }).page_count
    db.run(`PRAGMA max_page_count = ${pages + 4}`) // room for a few pages, not for a copy of the blocks
    const before = db.query('SELECT hex(mh) AS mh, hex(data) AS data FROM ipfs_blocks ORDER BY mh').all()
    const result = initIpfsSchema(db)
    expect(result.version).toBe(0)
    expect(result.error).toMatch(/full/i)
    expect(userVersion(db)).toBe(0)
    expect(tables(db)).toEqual(['ipfs_blocks', 'ipfs_kv', 'ipfs_pins'])
    expect(tableSql(db, 'ipfs_blocks')).toContain('WITHOUT ROWID')
    expect(db.query('SELECT hex(mh) AS mh, hex(data) AS data FROM ipfs_blocks ORDER BY mh').all()).toEqual(before)
    db.close()

    // the next start (room again) upgrades it
    const node = await IpfsNode.open(dir)
    expect(Buffer.from(await node.cat(CID.parse(docs[3]!.cid))).equals(Buffer.from(docs[3]!.bytes))).toBe(true)
    await node.stop()
    const after = new Database(join(dir, 'ipfs.db'))
    expect(userVersion(after)).toBe(IPFS_SCHEMA_VERSION)
    after.close()
  })
})
