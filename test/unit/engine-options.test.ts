// src/lib/engine-options.ts: which JavaScriptCore options `serve` adds to its environment.
import { expect, test } from 'bun:test'
import { ConfigError } from '../../src/config'
import { engineEnv } from '../../src/lib/engine-options'

test('the heap may grow to 1.5x by default; TASKGATE_HEAP_GROWTH sets the ratio, "engine" keeps the engine\'s own', () => {
  expect(engineEnv({})).toEqual({ BUN_JSC_heapGrowthMaxIncrease: '0.5' })
  expect(engineEnv({ TASKGATE_HEAP_GROWTH: '' })).toEqual({ BUN_JSC_heapGrowthMaxIncrease: '0.5' })
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
