// The JavaScript engine's options `taskgate serve` runs with. JavaScriptCore reads its options
// from the environment (BUN_JSC_<name>) once, as the process starts, so `serve` replaces itself
// (execve: the same process id, arguments, file descriptors) with the same program and the options
// added to its environment, before it opens anything. Options already in the environment win, and
// nothing is replaced when there is nothing to add (or where execve does not exist: Windows).
//
// The one option: on machines with 16 GB of RAM or more, JavaScriptCore's "aggressive" heap growth
// lets the heap grow to 3× its size after a collection before the next full one (heapGrowthMaxIncrease
// 2); for a gateway whose live heap is ~15–20 MB that is what made the peak RSS under load ~190–200
// MB. TASKGATE_HEAP_GROWTH (default 1.75) sets that ratio; `engine` keeps the engine's default.
// The price is more full collections. 1.5× was tried first: there the engine follows nearly every
// eden collection with a full one (its rule: an eden below a third of the heap), ~70 full
// collections a second under load, ~13 % more CPU per task than at 1.75× for 2–5 MB less peak RSS.
// Smaller machines use the engine's other growth rule (2×, 1.5×, 1.24× by the share of RAM in use),
// which this option does not change. Measured in docs/performance.md ("Memory").

import { ConfigError } from '../config'
import { embeddedPath } from './worker-url'

export const HEAP_GROWTH_ENV = 'TASKGATE_HEAP_GROWTH'
export const HEAP_GROWTH_DOC = 'On machines with 16 GB of RAM or more: how far the JavaScript heap may grow after a collection before the next full one (default 1.75; "engine": the engine\'s own, 3x). Environment only: `serve` applies it by replacing itself at start.'
const DEFAULT_HEAP_GROWTH = 1.75
const MARK = 'TASKGATE_ENGINE_OPTIONS' // set in the replaced process: never replace twice

/** The BUN_JSC_* variables to add for this environment; throws on a malformed TASKGATE_HEAP_GROWTH. */
export function engineEnv(env: Record<string, string | undefined>): Record<string, string> {
  const raw = env[HEAP_GROWTH_ENV]?.trim() || String(DEFAULT_HEAP_GROWTH)
  if (raw === 'engine') return {}
  const growth = Number(raw)
  if (!Number.isFinite(growth) || growth < 1.1 || growth > 3) throw new ConfigError(`${HEAP_GROWTH_ENV} must be a number from 1.1 to 3, or "engine" (got "${raw}")`)
  const add: Record<string, string> = {}
  if (env.BUN_JSC_heapGrowthMaxIncrease === undefined) add.BUN_JSC_heapGrowthMaxIncrease = String(Math.round((growth - 1) * 1000) / 1000)
  return add
}

/** What applyEngineOptions uses of `process` (a parameter for the tests). */
export type ProcessLike = Pick<typeof process, 'env' | 'argv' | 'execArgv' | 'execPath' | 'platform'> & {
  execve?: (file: string, args: string[], env: Record<string, string | undefined>) => void
  stderr: { write(s: string): unknown }
}

/** Replaces this process with itself and the engine options added, when there are any to add. Returns otherwise (also when execve fails). */
export function applyEngineOptions(p: ProcessLike = process): void {
  if (p.env[MARK] || typeof p.execve !== 'function' || p.platform === 'win32') return
  const add = engineEnv(p.env)
  if (Object.keys(add).length === 0) return
  // In the compiled binary argv[1] is the embedded entry point (/$bunfs/root/…), not an argument.
  const compiled = embeddedPath(p.argv[1] ?? '')
  const args = compiled ? p.argv.slice(2) : [...p.execArgv, ...p.argv.slice(1)]
  try {
    p.execve(p.execPath, [p.execPath, ...args], { ...p.env, ...add, [MARK]: '1' })
  } catch (e) {
    // Not replaced (the executable cannot be run again: permissions, a sandbox): serve as it is.
    p.stderr.write(`warning: could not restart with the engine options ${Object.entries(add).map(([k, v]) => `${k}=${v}`).join(' ')} (${(e as Error).message}); serving with the engine's defaults\n`)
  }
}
