// Identifiers: sortable ids order by creation time and stay unguessable.
import { describe, expect, test } from 'bun:test'
import bs58 from 'bs58'
import { newSortableId } from '../../src/lib/ids'

describe('newSortableId', () => {
  test('sorts by the millisecond it was made, across decades', () => {
    const times = [Date.UTC(2020, 0, 1), Date.UTC(2026, 10, 23, 12, 0, 0, 1), Date.UTC(2026, 10, 23, 12, 0, 0, 2), Date.UTC(2099, 0, 1)]
    const ids = times.map((t) => newSortableId('task', t))
    expect([...ids].sort()).toEqual(ids)
    expect(new Set(ids.map((i) => i.length)).size).toBe(1) // same length, so string order is number order
  })

  test('carries the time in its first six bytes and 80 random bits after', () => {
    const t = Date.UTC(2026, 10, 23, 21, 0, 0, 123)
    const a = newSortableId('task', t), b = newSortableId('task', t)
    expect(a).not.toBe(b)
    const bytes = bs58.decode(a.slice('task_'.length))
    expect(bytes.length).toBe(16)
    expect(bytes.slice(0, 6).reduce((n, x) => n * 256 + x, 0)).toBe(t)
    expect(a.startsWith('task_')).toBe(true)
  })
})
