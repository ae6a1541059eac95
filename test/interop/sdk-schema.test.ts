// sdk/src/schema.d.ts is what openapi-typescript (optional interop group) generates from the
// /openapi.json that this checkout's server (or TASKGATE_TEST_BIN) serves with default settings:
// a route, field or status changed without `bun sdk/scripts/generate.ts` fails here.
import { expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { renderSchema, SCHEMA_PATH, serveDocument } from '../../sdk/scripts/generate'
import { cliCommand } from '../helpers/server'

test('sdk/src/schema.d.ts is up to date with the served /openapi.json', async () => {
  const doc = await serveDocument(cliCommand([])) as { openapi: string; info: { version: string } }
  expect(doc.openapi).toBe('3.2.0')
  const fresh = await renderSchema(doc)
  expect(fresh).toContain('"/v1/chat/completions"')
  const committed = readFileSync(SCHEMA_PATH, 'utf8')
  if (committed !== fresh) {
    const a = committed.split('\n')
    const b = fresh.split('\n')
    const i = a.findIndex((line, n) => line !== b[n])
    throw new Error(`sdk/src/schema.d.ts is stale (first difference at line ${i + 1}: ${JSON.stringify(a[i])} vs ${JSON.stringify(b[i])}); run: bun sdk/scripts/generate.ts`)
  }
}, 60_000)
