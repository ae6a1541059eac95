// The direct path for one-chunk content gives the same CID and block as the UnixFS importer.
import { describe, expect, test } from 'bun:test'
import { importToMemory, importWithImporter } from '../../src/ipfs/node'

const bytesOf = (n: number) => new Uint8Array(n).map((_, i) => (i * 31 + 7) % 256)

describe('importToMemory', () => {
  for (const n of [1, 2, 100, 4096, 262_144, 1_048_575, 1_048_576]) {
    test(`${n} bytes: the same CID and block as the importer`, async () => {
      const bytes = bytesOf(n)
      const fast = await importToMemory(bytes)
      const ref = await importWithImporter(bytes)
      expect(fast.cid.toString()).toBe(ref.cid.toString())
      expect([...fast.blocks.keys()]).toEqual([...ref.blocks.keys()])
      expect(Buffer.from(fast.blocks.get(fast.cid.toString())!.data).equals(Buffer.from(ref.blocks.get(ref.cid.toString())!.data))).toBe(true)
    })
  }

  test('a JSON task document: the same CID', async () => {
    const doc = new TextEncoder().encode(JSON.stringify({ type: 'taskgate.task/v1', taskId: 'tsk_1', promptHash: '0x' + 'ab'.repeat(32), output: 'é✓'.repeat(1000) }))
    expect((await importToMemory(doc)).cid.toString()).toBe((await importWithImporter(doc)).cid.toString())
  })

  test('beyond one chunk and the empty file go through the importer (a dag-pb root)', async () => {
    const big = await importToMemory(bytesOf(1_048_577))
    expect(big.cid.code).toBe(0x70)
    expect(big.blocks.size).toBe(3)
    expect((await importToMemory(new Uint8Array(0))).cid.toString()).toBe((await importWithImporter(new Uint8Array(0))).cid.toString())
  })
})

describe('IpfsNode.putJson', () => {
  test('a one-block document: its CID at once (no promise), the same as addJson; a larger one: a promise, the importer’s CID, stored', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const { join } = await import('node:path')
    const { IpfsNode } = await import('../../src/ipfs/node')
    const dir = mkdtempSync(join(tmpdir(), 'tg-putjson-'))
    const node = await IpfsNode.open(dir)
    try {
      const small = { type: 'taskgate.task/v1', taskId: 'tsk_1', output: 'é✓'.repeat(100) }
      const now = node.putJson(small)
      expect(now).not.toBeInstanceOf(Promise)
      const { cid, stored } = now as { cid: string; stored: Promise<void> }
      await stored
      expect(cid).toBe(await node.addJson(small))
      const big = { type: 'taskgate.task/v1', taskId: 'tsk_2', output: 'x'.repeat(1_100_000) }
      const later = node.putJson(big)
      expect(later).toBeInstanceOf(Promise)
      const put = await later
      await put.stored
      expect(put.cid).toBe((await importWithImporter(new TextEncoder().encode(JSON.stringify(big)))).cid.toString())
      expect(put.cid.startsWith('bafybei')).toBe(true) // a dag-pb root over several raw blocks
    } finally {
      await node.stop()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
