// The MCP conformance suite (@modelcontextprotocol/conformance) against /mcp: the server scenarios
// that apply to any MCP server. The others need the fixture tools, prompts and resources of the
// SDK's reference server (tools-call-image, prompts-get-simple, …), which TaskGate does not serve.
// The suite's client sends no credential, so a loopback proxy adds an agent key, leaving every other
// header (Host, Origin) as the suite sent it. The suite needs Node 22's fs.globSync: it runs on Bun.
import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { join } from 'node:path'
import { startServer, type TestServer } from '../helpers/server'

const CLI = join(import.meta.dir, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js')
const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection']

let s: TestServer
let proxy: ReturnType<typeof Bun.serve>

beforeAll(async () => {
  s = await startServer({})
  await s.setupAdmin()
  const { agent } = await s.operatorWithAgent('conformance', ['general'])
  const target = new URL(s.url)
  proxy = Bun.serve({
    port: 0, hostname: '127.0.0.1',
    fetch: (req) => {
      const url = new URL(req.url)
      const headers = new Headers(req.headers)
      headers.set('authorization', `Bearer ${agent.apiKey}`)
      return fetch(`${target.origin}${url.pathname}${url.search}`, { method: req.method, headers, body: req.body, redirect: 'manual' })
    },
  })
}, 30_000)
afterAll(async () => {
  proxy?.stop(true)
  await s?.cleanup()
})

describe('MCP conformance suite, server scenarios', () => {
  for (const scenario of SCENARIOS) {
    test(scenario, async () => {
      const run = Bun.spawn([process.execPath, CLI, 'server', '--url', `http://127.0.0.1:${proxy.port}/mcp`, '--scenario', scenario], { stdout: 'pipe', stderr: 'pipe', env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } })
      const [out, err, code] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited])
      const text = (out + err).replace(/\x1b\[[0-9;]*m/g, '')
      const summary = text.match(/Passed: (\d+)\/(\d+), (\d+) failed/)
      expect(summary, text).not.toBeNull()
      expect(Number(summary![3]), text).toBe(0)
      expect(Number(summary![1])).toBe(Number(summary![2]))
      expect(code, text).toBe(0)
    }, 60_000)
  }
})
