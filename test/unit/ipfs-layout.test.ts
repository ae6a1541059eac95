// ipfs.db's layouts: a new store is created in layout 1 (rowid tables), a layout-0 store (WITHOUT
// ROWID tables keyed by the multihash) is upgraded in place with every block and pin, and an upgrade
// that fails (a full disk) changes nothing and leaves a store that still works.
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
    expect(tableSql(db, 'ipfs_pins')).not.toContain('WITHOUT ROWID')
    expect(db.query('SELECT cid FROM ipfs_pins').all()).toEqual([{ cid }])
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
    expect(db.query('SELECT hex(v) AS v FROM ipfs_kv WHERE k = ?1').get('/helia/datastore/x')).toEqual({ v: '010203' })
    db.close()

    logged.length = 0
    await (await IpfsNode.open(dir, log as never)).stop()
    expect(logged).toEqual([]) // nothing left to upgrade
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
