// HTTP clients for OpenAI-compatible chat completions and the Anthropic messages API, whole or
// streamed (server-sent events, parsed by eventsource-parser).
import { createParser } from 'eventsource-parser'
import { ProviderError, type CompletionRequest, type CompletionResult } from '../types'

export type RemoteKind = 'openai' | 'anthropic'

const DEFAULT_BASE: Record<RemoteKind, string> = { openai: 'https://api.openai.com/v1', anthropic: 'https://api.anthropic.com/v1' }

type Usage = CompletionResult['usage']

/** The request body in the provider's dialect; `stream` asks for server-sent events (with usage). */
function requestBody(kind: RemoteKind, req: CompletionRequest, stream: boolean): Record<string, unknown> {
  const sampling = { temperature: req.temperature, top_p: req.topP }
  if (kind === 'openai') {
    return {
      model: req.model, messages: req.messages, max_tokens: req.maxTokens ?? 1024, ...sampling, stop: req.stop,
      ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
    }
  }
  return {
    model: req.model, max_tokens: req.maxTokens ?? 1024, ...sampling, stop_sequences: req.stop,
    system: req.messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n') || undefined,
    messages: req.messages.filter((m) => m.role !== 'system'),
    ...(stream ? { stream: true } : {}),
  }
}

/**
 * One call to the provider. `abort` ends it early (a call started for a task whose admission did
 * not commit, ComputeService.start). With `req.onDelta` the provider streams and each piece of text
 * is handed on as it arrives; the result still holds the whole output.
 */
export async function remoteComplete(kind: RemoteKind, baseUrl: string | null, secret: string, req: CompletionRequest, timeoutMs: number, abort?: AbortSignal): Promise<CompletionResult> {
  const base = (baseUrl || DEFAULT_BASE[kind]).replace(/\/+$/, '')
  const signal = abort ? AbortSignal.any([AbortSignal.timeout(timeoutMs), abort]) : AbortSignal.timeout(timeoutMs)
  const stream = req.onDelta !== undefined
  const t0 = performance.now()
  const headers: Record<string, string> = kind === 'openai'
    ? { 'content-type': 'application/json', authorization: `Bearer ${secret}` }
    : { 'content-type': 'application/json', 'x-api-key': secret, 'anthropic-version': '2023-06-01' }
  let res: Response
  try {
    res = await fetch(`${base}/${kind === 'openai' ? 'chat/completions' : 'messages'}`, { method: 'POST', headers, body: JSON.stringify(requestBody(kind, req, stream)), signal })
  } catch (e) {
    throw unreachable(e, timeoutMs)
  }
  if (!res.ok) {
    const retryAfter = Number(res.headers.get('retry-after'))
    await res.body?.cancel().catch(() => {})
    throw new ProviderError(`provider answered ${res.status}`, res.status === 429 || res.status >= 500, res.status, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined)
  }
  const answer = stream && (res.headers.get('content-type') ?? '').startsWith('text/event-stream')
    ? await readStream(kind, res, req.onDelta!, timeoutMs)
    : await readWhole(kind, res, req.onDelta)
  return { ...answer, model: answer.model ?? req.model, provider: kind, latencyMs: performance.now() - t0 }
}

const unreachable = (e: unknown, timeoutMs: number, streamed = false) =>
  new ProviderError((e as Error).name === 'TimeoutError' ? `provider timed out after ${timeoutMs} ms` : 'provider unreachable', !streamed, undefined, undefined, streamed)

/** A whole JSON answer (also what a provider that ignores `stream` sends: handed on as one piece). */
async function readWhole(kind: RemoteKind, res: Response, onDelta?: (text: string) => void): Promise<{ output: string; model?: string; usage: Usage }> {
  const body = (await res.json().catch(() => null)) as any
  const output = kind === 'openai'
    ? body?.choices?.[0]?.message?.content
    : Array.isArray(body?.content) ? body.content.filter((c: any) => c?.type === 'text').map((c: any) => c.text).join('') : undefined
  if (typeof output !== 'string') throw new ProviderError('provider answered without text content', true, res.status)
  if (onDelta && output) onDelta(output)
  const usage = kind === 'openai'
    ? { promptTokens: body?.usage?.prompt_tokens ?? 0, completionTokens: body?.usage?.completion_tokens ?? 0 }
    : { promptTokens: body?.usage?.input_tokens ?? 0, completionTokens: body?.usage?.output_tokens ?? 0 }
  return { output, model: typeof body?.model === 'string' ? body.model : undefined, usage }
}

/**
 * A streamed answer: OpenAI's `chat.completion.chunk` events up to `[DONE]` (usage in the last
 * chunk, `stream_options.include_usage`), or Anthropic's typed events (`content_block_delta` text,
 * usage in `message_start` and `message_delta`, `error`). A failure once text went out is not
 * retryable (ProviderError.streamed).
 */
async function readStream(kind: RemoteKind, res: Response, onDelta: (text: string) => void, timeoutMs: number): Promise<{ output: string; model?: string; usage: Usage }> {
  let output = ''
  let model: string | undefined
  const usage: Usage = { promptTokens: 0, completionTokens: 0 }
  let failure: string | null = null
  let finished = false
  let ended = false // a choice's finish_reason came (some servers omit the closing [DONE])
  const deliver = (text: unknown) => {
    if (typeof text !== 'string' || text === '') return
    output += text
    onDelta(text)
  }
  const parser = createParser({
    onEvent: (ev) => {
      if (finished || failure) return
      if (kind === 'openai' && ev.data === '[DONE]') { finished = true; return }
      let data: any
      try { data = JSON.parse(ev.data) } catch { return }
      if (kind === 'openai') {
        if (data?.error) { failure = String(data.error.message ?? 'provider stream error'); return }
        if (typeof data?.model === 'string') model = data.model
        deliver(data?.choices?.[0]?.delta?.content)
        if (data?.choices?.[0]?.finish_reason) ended = true
        if (data?.usage) { usage.promptTokens = data.usage.prompt_tokens ?? usage.promptTokens; usage.completionTokens = data.usage.completion_tokens ?? usage.completionTokens }
        return
      }
      switch (data?.type) {
        case 'message_start':
          if (typeof data.message?.model === 'string') model = data.message.model
          usage.promptTokens = data.message?.usage?.input_tokens ?? usage.promptTokens
          usage.completionTokens = data.message?.usage?.output_tokens ?? usage.completionTokens
          break
        case 'content_block_delta': if (data.delta?.type === 'text_delta') deliver(data.delta.text); break
        case 'message_delta': usage.completionTokens = data.usage?.output_tokens ?? usage.completionTokens; break
        case 'message_stop': finished = true; break
        case 'error': failure = String(data.error?.message ?? 'provider stream error'); break
      }
    },
  })
  const decoder = new TextDecoder()
  try {
    for await (const bytes of res.body as unknown as AsyncIterable<Uint8Array>) {
      parser.feed(decoder.decode(bytes, { stream: true }))
      if (finished || failure) break
    }
  } catch (e) {
    throw unreachable(e, timeoutMs, output !== '')
  }
  // One turn of the event loop before the pipeline goes on: the last piece, handed on in this
  // turn, is written to the door's socket only when the turn ends, and stages 3–7 that follow
  // run for milliseconds without yielding (docs/doors.md, "Streaming": no buffering of ours).
  if (output !== '') await new Promise((r) => setImmediate(r))
  if (failure) throw new ProviderError(`provider stream failed: ${failure}`, output === '', res.status, undefined, output !== '')
  if (!finished && !ended) throw new ProviderError('provider stream ended early', output === '', res.status, undefined, output !== '')
  return { output, model, usage }
}
