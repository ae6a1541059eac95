// Blocked-pattern matching in linear time (docs/governance.md, "Enforcement";
// docs/security.md, "Limits before patterns"): an Aho–Corasick automaton over
// the lower-cased patterns, run once over the lower-cased prompt. Building costs the patterns'
// total length; matching costs the prompt's length plus nothing per pattern, whatever the
// patterns are (no regular expressions, no per-pattern scan).

export class PatternMatcher {
  /** goto[node] maps a UTF-16 code unit to the next node. */
  private next: Map<number, number>[] = [new Map()]
  private fail: number[] = [0]
  /** The index of a pattern that ends at this node (via the node or its fail chain), or -1. */
  private out: number[] = [-1]

  constructor(readonly patterns: readonly string[]) {
    patterns.forEach((raw, i) => {
      const p = raw.toLowerCase()
      if (p.length === 0) return
      let node = 0
      for (let k = 0; k < p.length; k++) {
        const c = p.charCodeAt(k)
        let child = this.next[node]!.get(c)
        if (child === undefined) {
          child = this.next.length
          this.next.push(new Map()); this.fail.push(0); this.out.push(-1)
          this.next[node]!.set(c, child)
        }
        node = child
      }
      if (this.out[node] === -1) this.out[node] = i
    })
    // Breadth-first: fail links, and each node inherits a match from its fail target.
    const queue: number[] = []
    for (const child of this.next[0]!.values()) queue.push(child)
    for (let h = 0; h < queue.length; h++) {
      const node = queue[h]!
      for (const [c, child] of this.next[node]!) {
        let f = this.fail[node]!
        while (f !== 0 && !this.next[f]!.has(c)) f = this.fail[f]!
        const target = this.next[f]!.get(c)
        this.fail[child] = target !== undefined && target !== child ? target : 0
        if (this.out[child] === -1) this.out[child] = this.out[this.fail[child]!]!
        queue.push(child)
      }
    }
  }

  /** The first blocked pattern found in `text` (case-insensitive), or null. */
  find(text: string): string | null {
    if (this.next.length === 1) return null
    const s = text.toLowerCase()
    let node = 0
    for (let k = 0; k < s.length; k++) {
      const c = s.charCodeAt(k)
      let n = this.next[node]!.get(c)
      while (n === undefined && node !== 0) { node = this.fail[node]!; n = this.next[node]!.get(c) }
      node = n ?? 0
      const hit = this.out[node]!
      if (hit !== -1) return this.patterns[hit]!
    }
    return null
  }
}
