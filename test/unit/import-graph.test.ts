// The modules of src/ form no import circle, type imports included (docs/architecture.md, "Layers
// and folders"): a module's imports say what it depends on, and the composition root is the only
// place that sees everything.
import { expect, test } from 'bun:test'
import { Glob } from 'bun'
import { dirname, join, relative, resolve } from 'node:path'
import { existsSync } from 'node:fs'

const SRC = join(import.meta.dir, '../../src')
const IMPORT = /(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?['"](\.{1,2}\/[^'"]+)['"]/g
const DYNAMIC = /import\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g

function resolveImport(from: string, spec: string): string | null {
  const base = resolve(dirname(from), spec)
  for (const p of [base, `${base}.ts`, join(base, 'index.ts')]) if (p.endsWith('.ts') && existsSync(p)) return p
  return null
}

async function graph(): Promise<Map<string, string[]>> {
  const g = new Map<string, string[]>()
  for await (const file of new Glob('**/*.ts').scan(SRC)) {
    const path = join(SRC, file)
    const text = await Bun.file(path).text()
    const deps = new Set<string>()
    for (const re of [IMPORT, DYNAMIC]) for (const m of text.matchAll(re)) { const r = resolveImport(path, m[1]!); if (r) deps.add(r) }
    g.set(path, [...deps])
  }
  return g
}

/** Tarjan's strongly connected components with more than one module (or a module importing itself). */
function circles(g: Map<string, string[]>): string[][] {
  let index = 0
  const idx = new Map<string, number>(), low = new Map<string, number>(), on = new Set<string>(), stack: string[] = [], out: string[][] = []
  const visit = (v: string) => {
    idx.set(v, index); low.set(v, index); index++; stack.push(v); on.add(v)
    for (const w of g.get(v) ?? []) {
      if (!idx.has(w)) { visit(w); low.set(v, Math.min(low.get(v)!, low.get(w)!)) } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!))
    }
    if (low.get(v) === idx.get(v)) {
      const c: string[] = []
      let w: string
      do { w = stack.pop()!; on.delete(w); c.push(w) } while (w !== v)
      if (c.length > 1 || (g.get(v) ?? []).includes(v)) out.push(c.map((p) => relative(SRC, p)).sort())
    }
  }
  for (const v of g.keys()) if (!idx.has(v)) visit(v)
  return out
}

test('the import graph finds the imports it should (a check of the check)', async () => {
  const g = await graph()
  expect(g.size).toBeGreaterThan(100)
  expect(g.get(join(SRC, 'server.ts'))).toContain(join(SRC, 'services.ts'))
  expect(circles(new Map([['a', ['b']], ['b', ['a']], ['c', ['a']]]))).toHaveLength(1)
})

test('no import circle in src/, type imports included', async () => {
  expect(circles(await graph())).toEqual([])
})
