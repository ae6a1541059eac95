// The tips of the agents' state-root chains, including links not committed yet.
//
// Stage 6 extends an agent's chain and stages 7–8 sign the new root before anything commits, so
// that stages 4–8 of a task commit together (one commit per task instead of three). Several tasks of
// one agent are in flight at once: each extends the tip the previous one left, in memory. At commit
// the task checks that the committed root is still the one it extended (ChainMoved otherwise), so
// the committed chain has exactly one link per task whatever order commits land in, and a crash
// before the commit leaves nothing to undo: the task runs stages 4–8 again from the committed root.
import type { Hex } from 'viem'
import { nextStateRoot } from './fingerprint'

/** The agent's committed state root is not the one a task extended: run its stages again. */
export class ChainMoved extends Error {
  constructor(readonly agentId: string) { super(`the state root of agent ${agentId} moved while the task was in flight`) }
}

interface Tip { root: Hex | null; tasks: Set<string> }

/** How many idle agents' committed roots are kept (all dropped when full: they are read again). */
const SETTLED_MAX = 10_000

export class ChainTips {
  private tips = new Map<string, Tip>()
  /**
   * The committed root of agents with no task in flight, as their last task committed it, so the
   * next task of the agent extends it without reading the agent. Never trusted blindly: the commit
   * still checks the committed root (ChainMoved), and a link that fails to commit drops the entry.
   */
  private settled = new Map<string, Hex>()

  /**
   * Extends the agent's chain by a task's leaf from the newest root: the last uncommitted link of
   * a task in flight, or else the committed root. Returns the root extended and the new one.
   */
  extend(agentId: string, taskId: string, leaf: Hex, committedRoot: () => Hex): { prev: Hex; root: Hex } {
    let tip = this.tips.get(agentId)
    if (!tip) this.tips.set(agentId, (tip = { root: null, tasks: new Set() }))
    const prev = tip.root ?? this.settled.get(agentId) ?? committedRoot()
    const root = nextStateRoot(prev, leaf)
    tip.root = root
    tip.tasks.add(taskId)
    return { prev, root }
  }

  /** After a ChainMoved: the next extension starts from the committed root again. */
  reset(agentId: string): void {
    const tip = this.tips.get(agentId)
    if (tip) tip.root = null
    this.settled.delete(agentId)
  }

  /**
   * The task's run is over. A link that did not commit (the task failed or stopped) must not be
   * extended further: the next extension starts from the committed root. The agent's entry goes
   * when no task of it is in flight.
   */
  release(agentId: string, taskId: string, committed: boolean): void {
    const tip = this.tips.get(agentId)
    if (!tip?.tasks.delete(taskId)) return
    this.settled.delete(agentId)
    if (!committed) tip.root = null
    if (tip.tasks.size > 0) return
    this.tips.delete(agentId)
    // Every link extended since the root was last read committed (a failed one clears the root):
    // the newest is the committed root.
    if (tip.root === null) return
    if (this.settled.size >= SETTLED_MAX) this.settled.clear()
    this.settled.set(agentId, tip.root)
  }

  /** Agents with tasks in flight (for tests: nothing may stay behind). */
  get size(): number { return this.tips.size }
}
