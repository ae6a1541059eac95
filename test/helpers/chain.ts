// Checks an agent's state-root chain link by link on the database: in the order the links were
// committed (stage 6 events), root_i = keccak256(root_{i-1} ‖ leaf_i) from the zero root, every
// receipt signs its task's root, and the agent's root is the last link.
import type { Database } from 'bun:sqlite'
import { expect } from 'bun:test'
import { concat, keccak256, type Hex } from 'viem'

export function expectUnbrokenChain(db: Database, agentId: string): number {
  const links = db.query(`SELECT t.id, t.state_root AS root, t.receipt, e.detail FROM task_events e JOIN tasks t ON t.id = e.task_id
    WHERE e.stage = 6 AND e.status = 'done' AND t.agent_id = ?1 ORDER BY e.id`).all(agentId) as { id: string; root: Hex; receipt: string | null; detail: string }[]
  let prev: Hex = `0x${'0'.repeat(64)}`
  for (const l of links) {
    const leaf = (JSON.parse(l.detail) as { leaf: Hex }).leaf
    expect({ task: l.id, root: l.root }).toEqual({ task: l.id, root: keccak256(concat([prev, leaf])) })
    if (l.receipt) expect((JSON.parse(l.receipt) as { payload: { message: { stateRoot: Hex } } }).payload.message.stateRoot).toBe(l.root)
    prev = l.root
  }
  expect((db.query('SELECT state_root AS r FROM agents WHERE id = ?1').get(agentId) as { r: Hex }).r).toBe(prev)
  return links.length
}
