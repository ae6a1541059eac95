// src/lib/engine-options.ts: which JavaScriptCore options `serve` adds to its environment.
import { describe, expect, test } from 'bun:test'
import { ConfigError } from '../../src/config'
import { applyEngineOptions, engineEnv, type ProcessLike } from '../../src/lib/engine-options'

test('the heap may grow to 1.75x by default; TASKGATE_HEAP_GROWTH sets the ratio, "engine" keeps the engine\'s own', () => {
  expect(engineEnv({})).toEqual({ BUN_JSC_heapGrowthMaxIncrease: '0.75' })
  expect(engineEnv({ TASKGATE_HEAP_GROWTH: '' })).toEqual({ BUN_JSC_heapGrowthMaxIncrease: '0.75' })
  expect(engineEnv({ TASKGATE_HEAP_GROWTH: '2' })).toEqual({ BUN_JSC_heapGrowthMaxIncrease: '1' })
  expect(engineEnv({ TASKGATE_HEAP_GROWTH: ' 1.25 ' })).toEqual({ BUN_JSC_heapGrowthMaxIncrease: '0.25' })
  expect(engineEnv({ TASKGATE_HEAP_GROWTH: 'engine' })).toEqual({})
})

test('an option already in the environment wins', () => {
  expect(engineEnv({ BUN_JSC_heapGrowthMaxIncrease: '2' })).toEqual({})
  expect(engineEnv({ BUN_JSC_heapGrowthMaxIncrease: '2', TASKGATE_HEAP_GROWTH: '1.2' })).toEqual({})
})

test('a malformed or out-of-range ratio is a configuration error', () => {
  for (const bad of ['abc', '1', '0.5', '3.5', 'NaN', 'Infinity', '-2']) expect(() => engineEnv({ TASKGATE_HEAP_GROWTH: bad })).toThrow(ConfigError)
})

describe('applyEngineOptions', () => {
  const fake = (over: Partial<ProcessLike> = {}) => {
    const calls: { file: string; args: string[]; env: Record<string, string | undefined> }[] = []
    let err = ''
    const p: ProcessLike = {
      env: {}, argv: ['/usr/bin/bun', '/app/src/main.ts', 'serve', '--port', '8787'], execArgv: ['--smol'], execPath: '/usr/bin/bun', platform: 'linux',
      execve: (file, args, env) => { calls.push({ file, args, env }) },
      stderr: { write: (s: string) => { err += s } },
      ...over,
    }
    return { p, calls, err: () => err }
  }

  test('from source: the same interpreter, its flags, the script and the arguments, with the option and the mark added', () => {
    const f = fake({ env: { HOME: '/root' } })
    applyEngineOptions(f.p)
    expect(f.calls).toEqual([{ file: '/usr/bin/bun', args: ['/usr/bin/bun', '--smol', '/app/src/main.ts', 'serve', '--port', '8787'], env: { HOME: '/root', BUN_JSC_heapGrowthMaxIncrease: '0.75', TASKGATE_ENGINE_OPTIONS: '1' } }])
  })

  test('the compiled binary: the executable and the arguments after its embedded entry point', () => {
    const f = fake({ argv: ['bun', '/$bunfs/root/taskgate', 'serve', '--data-dir', '/data'], execArgv: [], execPath: '/usr/local/bin/taskgate' })
    applyEngineOptions(f.p)
    expect(f.calls.map((c) => c.args)).toEqual([['/usr/local/bin/taskgate', 'serve', '--data-dir', '/data']])
  })

  test('not again once replaced, not with nothing to add, not on Windows', () => {
    for (const over of [{ env: { TASKGATE_ENGINE_OPTIONS: '1' } }, { env: { TASKGATE_HEAP_GROWTH: 'engine' } }, { env: { BUN_JSC_heapGrowthMaxIncrease: '1' } }, { platform: 'win32' as const }, { execve: undefined }]) {
      const f = fake(over)
      applyEngineOptions(f.p)
      expect(f.calls).toEqual([])
    }
  })

  test('an execve that fails is a warning, and serving goes on', () => {
    const f = fake({ execve: () => { throw new Error('EACCES: permission denied') } })
    expect(() => applyEngineOptions(f.p)).not.toThrow()
    expect(f.err()).toContain('could not restart with the engine options BUN_JSC_heapGrowthMaxIncrease=0.75 (EACCES: permission denied)')
  })
})
