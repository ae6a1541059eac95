// Checks an agent's state-root chain link by link on the database: in the order the links were
// committed (each stage 6 event's leaf extends exactly one root), root_i = keccak256(root_{i-1} ‖ leaf_i) from the zero root, every
// receipt signs its task's root, and the agent's root is the last link.
import { expect } from 'bun:test'
import { concat, keccak256, type Hex } from 'viem'
import { TaskRepository } from '../../src/tasks/repository'
import type { TestDb } from './data'

export function expectUnbrokenChain(db: TestDb, agentId: string): number {
  const store = new TaskRepository(db.db) // reads the timeline in any stored form (src/tasks/row-encoding.ts)
  const links = (db.query('SELECT id, state_root AS root, receipt FROM tasks WHERE agent_id = ?1').all(agentId) as { id: string; root: Hex; receipt: string | null }[])
    .flatMap((t) => (store.timeline(t.id) ?? []).filter((e) => e.stage === 6 && e.status === 'done').map((e) => ({ ...t, leaf: e.detail!.leaf as Hex })))
  // The commit order is the chain's own: from the zero root, exactly one link extends the last one.
  let prev: Hex = `0x${'0'.repeat(64)}`
  const left = new Set(links)
  while (left.size > 0) {
    const next = [...left].filter((l) => l.root === keccak256(concat([prev, l.leaf])))
    expect({ extending: prev, links: next.length }).toEqual({ extending: prev, links: 1 })
    const l = next[0]!
    if (l.receipt) expect((JSON.parse(l.receipt) as { payload: { message: { stateRoot: Hex } } }).payload.message.stateRoot).toBe(l.root)
    left.delete(l)
    prev = l.root
  }
  expect((db.query('SELECT state_root AS r FROM agents WHERE id = ?1').get(agentId) as { r: Hex }).r).toBe(prev)
  return links.length
}
