// A loopback stand-in for an OpenAI-compatible provider that answers at once, so bench/run.ts can
// measure what the gateway adds around a provider call. It records its own handling time per
// whole chat completion (from the moment its fetch handler runs to the Response being built: JSON
// parse of the request + building the reply; HTTP parsing and socket I/O are not included).
//
//   bun run bench/fake-openai.ts <port> [--chunks N] [--spacing-ms MS]
//
//   POST /v1/chat/completions   → a fixed chat.completion ("positive: the text is upbeat");
//                                 with `stream: true`, server-sent `chat.completion.chunk` events:
//                                 N content chunks (default 5), the first at once, each next one
//                                 MS later (default 10), scheduled from the request's start so
//                                 timer lateness does not add up; then the finish chunk, a usage
//                                 chunk when `stream_options.include_usage` asks for it, and
//                                 `data: [DONE]`. Content chunk i is STREAM_PIECES[i % 5].
//   GET  /stats                 → { requests, streams, handlingUs: { p50, p99, mean, max } } since the last reset
//   GET  /stats/last-stream     → { sentMs }: when each content chunk of the latest stream was
//                                 enqueued, in ms from its request (what a client's received
//                                 spacing is compared with: the timers' own lateness is not the
//                                 gateway's)
//   POST /stats/reset           → clears the counters
const args = process.argv.slice(2)
const flag = (name: string, dflt: number) => {
  const i = args.indexOf(name)
  const v = i >= 0 ? Number(args[i + 1]) : dflt
  if (!Number.isFinite(v) || v < 0) throw new Error(`${name} needs a number`)
  return v
}
const port = Number(args[0] && !args[0].startsWith('--') ? args[0] : process.env.PORT ?? 0)
const chunks = Math.max(1, Math.round(flag('--chunks', 5)))
const spacingMs = flag('--spacing-ms', 10)

/** The content pieces of a stream, in order (a stream of N chunks repeats them); five make the whole answer's text. */
const STREAM_PIECES = ['positive', ':', ' the text', ' is', ' upbeat']

let samplesUs: number[] = []
let seq = 0
let streams = 0
let lastSentMs: number[] = []

const pct = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : NaN)
const encoder = new TextEncoder()

function streamed(model: string, includeUsage: boolean): Response {
  const t0 = performance.now()
  const id = `chatcmpl-fake-${++seq}`
  const created = Math.floor(Date.now() / 1000)
  const chunk = (delta: Record<string, unknown>, finish: string | null) =>
    `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
  streams++
  const sentMs: number[] = []
  lastSentMs = sentMs
  let timer: ReturnType<typeof setTimeout> | null = null
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      let i = 0
      const send = () => {
        timer = null
        try {
          const piece = STREAM_PIECES[i % STREAM_PIECES.length]!
          let text = chunk(i === 0 ? { role: 'assistant', content: piece } : { content: piece }, null)
          i++
          sentMs.push(performance.now() - t0)
          if (i === chunks) {
            text += chunk({}, 'stop')
            if (includeUsage) text += `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: { prompt_tokens: 10, completion_tokens: chunks, total_tokens: 10 + chunks } })}\n\n`
            text += 'data: [DONE]\n\n'
            controller.enqueue(encoder.encode(text))
            controller.close()
            return
          }
          controller.enqueue(encoder.encode(text))
          timer = setTimeout(send, Math.max(0, t0 + i * spacingMs - performance.now()))
        } catch { /* the client left */ }
      }
      send()
    },
    cancel() { if (timer) clearTimeout(timer) },
  })
  return new Response(body, { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } })
}

const server = Bun.serve({
  hostname: '127.0.0.1',
  port,
  idleTimeout: 30,
  async fetch(req) {
    const url = new URL(req.url)
    if (req.method === 'POST' && url.pathname === '/v1/chat/completions') {
      const t0 = performance.now()
      const body = (await req.json().catch(() => null)) as { model?: unknown; stream?: unknown; stream_options?: { include_usage?: unknown } } | null
      const model = typeof body?.model === 'string' ? body.model : 'fake-gpt'
      if (body?.stream === true) return streamed(model, body.stream_options?.include_usage === true)
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
      return Response.json({ requests: s.length, streams, handlingUs: { p50: pct(s, 50), p99: pct(s, 99), mean, max: s.length ? s[s.length - 1] : NaN } })
    }
    if (req.method === 'GET' && url.pathname === '/stats/last-stream') return Response.json({ sentMs: lastSentMs })
    if (req.method === 'POST' && url.pathname === '/stats/reset') { samplesUs = []; streams = 0; return new Response(null, { status: 204 }) }
    if (url.pathname === '/') return new Response('fake openai')
    return Response.json({ error: { message: `no route ${req.method} ${url.pathname}`, type: 'invalid_request_error' } }, { status: 404 })
  },
})
process.stdout.write(`fake openai listening on http://127.0.0.1:${server.port} (streams: ${chunks} chunks, ${spacingMs} ms apart)\n`)
const stop = () => { server.stop(true); process.exit(0) }
process.once('SIGTERM', stop)
process.once('SIGINT', stop)

export {}
