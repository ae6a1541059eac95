// Debian's Chromium for the browser tests (playwright-core, never a downloaded browser). A file
// without it skips its tests with a warning; CI installs it (.ci/run).
import { existsSync } from 'node:fs'

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** Whether Chromium is there; says so once when it is not (`what`: the tests that are skipped). */
export function chromiumFor(what: string): boolean {
  const ok = existsSync(CHROMIUM)
  if (!ok) console.warn(`${what} skipped: no Chromium at ${CHROMIUM}`)
  return ok
}
