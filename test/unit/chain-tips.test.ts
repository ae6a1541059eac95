// The in-memory tips of agents' state-root chains (src/agents/chain-tips.ts).
import { describe, expect, test } from 'bun:test'
import { keccak256, toHex, type Hex } from 'viem'
import { ChainTips } from '../../src/agents/chain-tips'
import { nextStateRoot, ZERO_ROOT } from '../../src/agents/fingerprint'

const leaf = (n: number): Hex => keccak256(toHex(`leaf ${n}`))

describe('ChainTips', () => {
  test('tasks in flight extend the newest link, not the committed root', () => {
    const tips = new ChainTips()
    let reads = 0
    const committed = () => { reads++; return ZERO_ROOT }
    const a = tips.extend('ag', 't1', leaf(1), committed)
    const b = tips.extend('ag', 't2', leaf(2), committed)
    expect(a).toEqual({ prev: ZERO_ROOT, root: nextStateRoot(ZERO_ROOT, leaf(1)) })
    expect(b).toEqual({ prev: a.root, root: nextStateRoot(a.root, leaf(2)) })
    expect(reads).toBe(1)
    expect(tips.extend('other', 't3', leaf(3), committed).prev).toBe(ZERO_ROOT) // agents are independent
  })

  test('after a link fails to commit, the next task extends the committed root', () => {
    const tips = new ChainTips()
    const committed = () => ZERO_ROOT
    const a = tips.extend('ag', 't1', leaf(1), committed)
    tips.extend('ag', 't2', leaf(2), committed)
    tips.release('ag', 't2', false) // t2 failed after stage 6
    const c = tips.extend('ag', 't3', leaf(3), committed)
    expect(c.prev).toBe(ZERO_ROOT)
    expect(c.prev).not.toBe(a.root)
  })

  test('reset makes the next extension read the committed root', () => {
    const tips = new ChainTips()
    const root1 = nextStateRoot(ZERO_ROOT, leaf(1))
    tips.extend('ag', 't1', leaf(1), () => ZERO_ROOT)
    tips.reset('ag')
    expect(tips.extend('ag', 't2', leaf(2), () => root1).prev).toBe(root1)
  })

  test("an agent's entry goes when its last task in flight is released; unknown releases do nothing", () => {
    const tips = new ChainTips()
    tips.extend('ag', 't1', leaf(1), () => ZERO_ROOT)
    tips.extend('ag', 't2', leaf(2), () => ZERO_ROOT)
    tips.release('ag', 'nope', true)
    tips.release('ag', 't1', true)
    expect(tips.size).toBe(1)
    tips.release('ag', 't2', true)
    expect(tips.size).toBe(0)
  })

  test("an idle agent's next task extends the root its last task committed, without reading it", () => {
    const tips = new ChainTips()
    let reads = 0
    const committed = () => { reads++; return ZERO_ROOT }
    const a = tips.extend('ag', 't1', leaf(1), committed)
    tips.release('ag', 't1', true)
    expect(tips.size).toBe(0)
    const b = tips.extend('ag', 't2', leaf(2), committed)
    expect(b.prev).toBe(a.root)
    expect(reads).toBe(1)
    // A link that does not commit: the root is read again.
    tips.release('ag', 't2', false)
    expect(tips.extend('ag', 't3', leaf(3), committed).prev).toBe(ZERO_ROOT)
    expect(reads).toBe(2)
    // Two in flight, both committed: the newer one is the root kept.
    tips.release('ag', 't3', true)
    const c = tips.extend('ag', 't4', leaf(4), committed)
    const d = tips.extend('ag', 't5', leaf(5), committed)
    expect(c.prev).toBe(nextStateRoot(ZERO_ROOT, leaf(3)))
    tips.release('ag', 't5', true)
    tips.release('ag', 't4', true)
    expect(tips.extend('ag', 't6', leaf(6), committed).prev).toBe(d.root)
    expect(reads).toBe(2)
    tips.reset('ag') // after a ChainMoved
    tips.release('ag', 't6', false)
    expect(tips.extend('ag', 't7', leaf(7), committed).prev).toBe(ZERO_ROOT)
    expect(reads).toBe(3)
  })
})
