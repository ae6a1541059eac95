// Code and docs cite docs/ in this repository, never a file outside it (issue 31, item 5). The
// interface TaskGate implements was specified elsewhere; what the code relies on is written down
// in docs/ in the project's own words, and comments point there. This test fails when a file under
// src/, test/, bench/, scripts/, ui/, docs/, sdk/ or examples/ (or the README) names one of the outside documents,
// when a cited docs/<page>.md does not exist, or when a quoted section of a cited page
// (`docs/security.md, "A full disk"`) is not among that page's headings. It prints what it finds.
//
// Not scanned: migrations/*.sql (their sha256 is recorded in every database that applied them, so
// they are never edited), node_modules (test/interop has its own), the vendored Scalar bundle in
// src/system/docs/scalar, and this file, which has to spell the names it looks for.
import { expect, test } from 'bun:test'
import { Glob } from 'bun'
import { existsSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'

const ROOT = join(import.meta.dir, '../..')
const DIRS = ['src', 'test', 'bench', 'scripts', 'ui', 'docs', 'sdk', 'examples']
const SELF = relative(ROOT, import.meta.path)
const skipped = (path: string) =>
  path === SELF || path.split('/').includes('node_modules') || path.startsWith('src/system/docs/scalar/') ||
  (path.startsWith('migrations/') && path.endsWith('.sql'))

/** Documents that live outside the repository, and paths that lead out of it. */
const OUTSIDE: [string, RegExp][] = [
  ['decisions.md', /decisions\.md/i],
  ['interface.md', /interface\.md/i],
  ['anchor-api', /anchor-api/i],
  ['stack-notes', /stack-notes/i],
  ['style.md', /(?<![\w-])style\.md/i],
  ['../shared', /\.\.\/shared\b/],
  ['shared/spec', /shared\/spec\b/],
  ['shared/reference', /shared\/reference\b/],
]

interface Hit { where: string; text: string }

function files(): string[] {
  const out = existsSync(join(ROOT, 'README.md')) ? ['README.md'] : []
  for (const dir of DIRS) {
    if (!existsSync(join(ROOT, dir))) continue
    for (const f of new Glob('**/*').scanSync({ cwd: join(ROOT, dir), onlyFiles: true, dot: true })) {
      const path = `${dir}/${f}`
      if (!skipped(path)) out.push(path)
    }
  }
  return out.sort()
}

const lines = (path: string) => readFileSync(join(ROOT, path), 'utf8').split('\n')

/** The headings of a docs page, and its bold lead-ins (`**What the schemas cannot say.**`), lower case. */
function sections(page: string): string[] {
  const text = readFileSync(join(ROOT, 'docs', `${page}.md`), 'utf8')
  const headings = [...text.matchAll(/^#+\s+(.+)$/gm)].map((m) => m[1]!)
  const leads = [...text.matchAll(/\*\*([^*\n]+)\*\*/g)].map((m) => m[1]!)
  return [...headings, ...leads].map((s) => s.toLowerCase())
}

test('nothing cites a file outside the repository; every cited docs page and quoted section exists', () => {
  const all = files()
  const outside: Hit[] = []
  const missingPages: Hit[] = []
  const missingSections: Hit[] = []
  const cited = new Set<string>()
  let citations = 0
  for (const path of all) {
    lines(path).forEach((line, i) => {
      const where = `${path}:${i + 1}`
      for (const [name, re] of OUTSIDE) if (re.test(line)) outside.push({ where, text: `${name}: ${line.trim().slice(0, 160)}` })
      // docs/<page>.md, optionally followed by a quoted section: `, "Name"`, ` ("Name"`, ` "Name"`
      for (const m of line.matchAll(/(?<![\w/.-])docs\/([\w-]+)\.md(?:,? \(?"([^"]+)")?/g)) {
        const page = m[1]!
        citations++
        cited.add(page)
        if (!existsSync(join(ROOT, 'docs', `${page}.md`))) { missingPages.push({ where, text: `docs/${page}.md` }); continue }
        const section = m[2]
        if (section && !sections(page).some((s) => s.includes(section.toLowerCase()))) {
          missingSections.push({ where, text: `docs/${page}.md, "${section}"` })
        }
      }
    })
  }
  console.log(`scanned ${all.length} files; ${citations} docs/ citations of ${cited.size} pages (${[...cited].sort().join(', ')})`)
  for (const [title, hits] of [['outside the repository', outside], ['missing docs pages', missingPages], ['missing sections', missingSections]] as const) {
    if (hits.length) console.log(`${title}:\n${hits.map((h) => `  ${h.where}  ${h.text}`).join('\n')}`)
  }
  expect(all.length).toBeGreaterThan(100)
  expect(citations).toBeGreaterThan(50)
  expect(outside).toEqual([])
  expect(missingPages).toEqual([])
  expect(missingSections).toEqual([])
})

test('links between docs pages lead to pages that exist', () => {
  const broken: Hit[] = []
  for (const path of files().filter((p) => p.startsWith('docs/') && p.endsWith('.md'))) {
    lines(path).forEach((line, i) => {
      for (const m of line.matchAll(/\]\(([\w-]+\.md)(?:#[\w-]*)?\)/g)) {
        if (!existsSync(join(ROOT, 'docs', m[1]!))) broken.push({ where: `${path}:${i + 1}`, text: m[1]! })
      }
    })
  }
  if (broken.length) console.log(`broken links:\n${broken.map((h) => `  ${h.where}  ${h.text}`).join('\n')}`)
  expect(broken).toEqual([])
})
