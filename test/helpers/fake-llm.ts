// A fake LLM provider: a real HTTP server on loopback speaking the OpenAI chat-completions
// protocol (POST /v1/chat/completions, Authorization: Bearer <key>) and the Anthropic messages
// protocol (POST /v1/messages, x-api-key + anthropic-version). Behaviour is scripted per key;
// every request is recorded (key, headers, body) whether or not it is answered. A request with
// `stream: true` is answered with the protocol's server-sent events (content in `chunks`).

export interface Gate { promise: Promise<void>; release: () => void }

/** A promise the test resolves when it wants a held request to go on. */
export function gate(): Gate {
  let release!: () => void
  const promise = new Promise<void>((r) => { release = r })
  return { promise, release }
}

export interface Behaviour {
  /** HTTP status to answer with; 200 (default) answers with a completion. */
  status?: number
  /** Retry-After header value (seconds) for error answers. */
  retryAfter?: string
  /** The assistant text of a 200 answer. */
  content?: string
  /** Hold the answer this long (ms) ... */
  delayMs?: number
  /** ... or until this gate is released (whichever comes first when both are set). */
  gate?: Gate
  /** Streamed answers: the content's pieces (default: the content split after each space). */
  chunks?: string[]
  /** Streamed answers: after the first piece, hold the rest until this gate is released. */
  streamGate?: Gate
  /** Streamed answers: milliseconds between pieces. */
  chunkDelayMs?: number
  /** Streamed answers: break off after this many pieces (an error event, then the end). */
  failAfter?: number
}

export interface RecordedRequest {
  n: number
  protocol: 'openai' | 'anthropic'
  path: string
  key: string | null
  headers: Record<string, string>
  body: any
  /** set when the client went away before the answer (e.g. its timeout fired) */
  aborted: boolean
  answeredWith: number | null
}

export class FakeLLM {
  readonly requests: RecordedRequest[] = []
  private server!: ReturnType<typeof Bun.serve>
  private defaults = new Map<string, Behaviour>()
  private queues = new Map<string, Behaviour[]>()
  private modelQueues = new Map<string, Behaviour[]>()
  private waiters: { pred: (r: RecordedRequest) => boolean; resolve: (r: RecordedRequest) => void }[] = []

  static async start(): Promise<FakeLLM> {
    const f = new FakeLLM()
    f.server = Bun.serve({ port: 0, hostname: '127.0.0.1', idleTimeout: 30, fetch: (req) => f.handle(req) })
    return f
  }

  get url(): string { return `http://127.0.0.1:${this.server.port}` }
  /** What a provider's baseUrl should be. */
  get baseUrl(): string { return `${this.url}/v1` }

  /** Default behaviour of a key (a key without one answers 401 like a real API, whatever else is scripted). */
  set(key: string, b: Behaviour): this { this.defaults.set(key, b); return this }
  /** One-shot behaviours for the next requests of a key, before its default applies again (the key needs a default). */
  next(key: string, ...bs: Behaviour[]): this { this.queues.set(key, [...(this.queues.get(key) ?? []), ...bs]); return this }

  /** One-shot behaviours for the next requests for a model, whichever key they carry (before any key's own script). */
  nextForModel(model: string, ...bs: Behaviour[]): this { this.modelQueues.set(model, [...(this.modelQueues.get(model) ?? []), ...bs]); return this }

  requestsFor(key: string): RecordedRequest[] { return this.requests.filter((r) => r.key === key) }
  requestsForModel(model: string): RecordedRequest[] { return this.requests.filter((r) => r.body?.model === model) }

  /** Resolves with the first recorded request (past or future) matching `pred`; rejects after `ms`. */
  waitForRequest(pred: (r: RecordedRequest) => boolean, ms = 5000): Promise<RecordedRequest> {
    const hit = this.requests.find(pred)
    if (hit) return Promise.resolve(hit)
    return new Promise((resolve, reject) => {
      const w = { pred, resolve: (r: RecordedRequest) => { clearTimeout(t); resolve(r) } }
      const t = setTimeout(() => { this.waiters = this.waiters.filter((x) => x !== w); reject(new Error(`fake LLM: no matching request within ${ms} ms`)) }, ms)
      this.waiters.push(w)
    })
  }

  stop(): void { this.server?.stop(true) }

  private async handle(req: Request): Promise<Response> {
    const path = new URL(req.url).pathname
    const protocol = path === '/v1/chat/completions' ? 'openai' : path === '/v1/messages' ? 'anthropic' : null
    if (req.method !== 'POST' || !protocol) return Response.json({ error: { message: `no route ${req.method} ${path}` } }, { status: 404 })
    const headers: Record<string, string> = {}
    req.headers.forEach((v, k) => { headers[k] = v })
    const key = protocol === 'openai' ? (headers.authorization?.match(/^Bearer (.+)$/)?.[1] ?? null) : (headers['x-api-key'] ?? null)
    const body = await req.json().catch(() => null)
    const rec: RecordedRequest = { n: this.requests.length + 1, protocol, path, key, headers, body, aborted: false, answeredWith: null }
    this.requests.push(rec)
    for (const w of [...this.waiters]) if (w.pred(rec)) { this.waiters = this.waiters.filter((x) => x !== w); w.resolve(rec) }

    const known = key !== null && this.defaults.has(key)
    const b = (known && (this.modelQueues.get(body?.model)?.shift() ?? this.queues.get(key)?.shift() ?? this.defaults.get(key))) || null
    if (b?.delayMs !== undefined || b?.gate) {
      const aborted = new Promise<void>((r) => req.signal.addEventListener('abort', () => r(), { once: true }))
      const waits: Promise<void>[] = [aborted]
      if (b.delayMs !== undefined) waits.push(Bun.sleep(b.delayMs))
      if (b.gate) waits.push(b.gate.promise)
      await Promise.race(waits)
      if (req.signal.aborted) { rec.aborted = true; return new Response(null, { status: 499 }) }
    }
    const answer = (status: number, json: unknown, extra: Record<string, string> = {}) => {
      rec.answeredWith = status
      return Response.json(json, { status, headers: extra })
    }
    if (!b) return answer(401, protocol === 'openai'
      ? { error: { message: 'Incorrect API key provided', type: 'invalid_request_error', code: 'invalid_api_key' } }
      : { type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } })
    if (protocol === 'anthropic' && !headers['anthropic-version']) return answer(400, { type: 'error', error: { type: 'invalid_request_error', message: 'anthropic-version header is required' } })
    const status = b.status ?? 200
    if (status !== 200) {
      return answer(status, { error: { message: `scripted ${status}` } }, b.retryAfter !== undefined ? { 'retry-after': b.retryAfter } : {})
    }
    const content = b.content ?? 'fake completion'
    const promptTokens = JSON.stringify(body?.messages ?? '').length
    const completionTokens = content.split(/\s+/).length
    if (body?.stream === true) {
      rec.answeredWith = 200
      return this.stream(protocol, body, b, content, { promptTokens, completionTokens })
    }
    return protocol === 'openai'
      ? answer(200, {
          id: `chatcmpl-${rec.n}`, object: 'chat.completion', created: Math.floor(Date.now() / 1000), model: body?.model ?? 'unknown',
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
          usage: { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens },
        })
      : answer(200, {
          id: `msg_${rec.n}`, type: 'message', role: 'assistant', model: body?.model ?? 'unknown',
          content: [{ type: 'text', text: content }], stop_reason: 'end_turn',
          usage: { input_tokens: promptTokens, output_tokens: completionTokens },
        })
  }

  /** The answer as server-sent events in the protocol's own shape. */
  private stream(protocol: 'openai' | 'anthropic', body: any, b: Behaviour, content: string, usage: { promptTokens: number; completionTokens: number }): Response {
    const pieces = b.chunks ?? content.split(/(?<= )/)
    const model = body?.model ?? 'unknown'
    const enc = new TextEncoder()
    const event = (data: unknown, name?: string) => enc.encode(`${name ? `event: ${name}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`)
    const openai = (delta: Record<string, unknown>, finish: string | null = null) => event({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model, choices: [{ index: 0, delta, finish_reason: finish }] })
    const anthropic = (data: Record<string, unknown>) => event(data, data.type as string)
    return new Response(new ReadableStream<Uint8Array>({
      start: async (c) => {
        if (protocol === 'anthropic') {
          c.enqueue(anthropic({ type: 'message_start', message: { id: 'msg_fake', type: 'message', role: 'assistant', model, content: [], usage: { input_tokens: usage.promptTokens, output_tokens: 1 } } }))
          c.enqueue(anthropic({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }))
        } else c.enqueue(openai({ role: 'assistant', content: '' }))
        for (const [i, piece] of pieces.entries()) {
          if (b.failAfter !== undefined && i === b.failAfter) {
            c.enqueue(protocol === 'openai' ? event({ error: { message: 'scripted stream failure' } }) : anthropic({ type: 'error', error: { type: 'overloaded_error', message: 'scripted stream failure' } }))
            c.close()
            return
          }
          if (i === 1 && b.streamGate) await b.streamGate.promise
          if (i > 0 && b.chunkDelayMs) await Bun.sleep(b.chunkDelayMs)
          c.enqueue(protocol === 'openai' ? openai({ content: piece }) : anthropic({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: piece } }))
        }
        if (protocol === 'openai') {
          c.enqueue(openai({}, 'stop'))
          if (body?.stream_options?.include_usage) c.enqueue(event({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 0, model, choices: [], usage: { prompt_tokens: usage.promptTokens, completion_tokens: usage.completionTokens, total_tokens: usage.promptTokens + usage.completionTokens } }))
          c.enqueue(event('[DONE]'))
        } else {
          c.enqueue(anthropic({ type: 'content_block_stop', index: 0 }))
          c.enqueue(anthropic({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: usage.completionTokens } }))
          c.enqueue(anthropic({ type: 'message_stop' }))
        }
        c.close()
      },
    }), { headers: { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } })
  }
}
