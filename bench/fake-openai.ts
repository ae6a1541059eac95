// A loopback stand-in for an OpenAI-compatible provider that answers at once, so bench/run.ts can
// measure what the gateway adds around a provider call. It records its own handling time per
// chat completion (from the moment its fetch handler runs to the Response being built: JSON parse
// of the request + building the reply; HTTP parsing and socket I/O are not included).
//
//   bun run bench/fake-openai.ts <port>
//
//   POST /v1/chat/completions   → a fixed chat.completion ("positive: the text is upbeat")
//   GET  /stats                 → { requests, handlingUs: { p50, p99, mean, max } } since the last reset
//   POST /stats/reset           → clears the counters
const port = Number(process.argv[2] ?? process.env.PORT ?? 0)

let samplesUs: number[] = []
let seq = 0

const pct = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : NaN)

const server = Bun.serve({
  hostname: '127.0.0.1',
  port,
  async fetch(req) {
    const url = new URL(req.url)
    if (req.method === 'POST' && url.pathname === '/v1/chat/completions') {
      const t0 = performance.now()
      const body = (await req.json().catch(() => null)) as { model?: unknown } | null
      const model = typeof body?.model === 'string' ? body.model : 'fake-gpt'
      const res = Response.json({
        id: `chatcmpl-fake-${++seq}`,
        object: 'chat.completion',
        created: Math.floor(Date.now() / 1000),
        model,
        choices: [{ index: 0, message: { role: 'assistant', content: 'positive: the text is upbeat' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      })
      samplesUs.push((performance.now() - t0) * 1000)
      return res
    }
    if (req.method === 'GET' && url.pathname === '/stats') {
      const s = [...samplesUs].sort((a, b) => a - b)
      const mean = s.length ? s.reduce((a, b) => a + b, 0) / s.length : NaN
      return Response.json({ requests: s.length, handlingUs: { p50: pct(s, 50), p99: pct(s, 99), mean, max: s.length ? s[s.length - 1] : NaN } })
    }
    if (req.method === 'POST' && url.pathname === '/stats/reset') { samplesUs = []; return new Response(null, { status: 204 }) }
    if (url.pathname === '/') return new Response('fake openai')
    return Response.json({ error: { message: `no route ${req.method} ${url.pathname}`, type: 'invalid_request_error' } }, { status: 404 })
  },
})
process.stdout.write(`fake openai listening on http://127.0.0.1:${server.port}\n`)
const stop = () => { server.stop(true); process.exit(0) }
process.once('SIGTERM', stop)
process.once('SIGINT', stop)

export {}
