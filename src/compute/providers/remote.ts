// HTTP clients for OpenAI-compatible chat completions and the Anthropic messages API.
import { ProviderError, type CompletionRequest, type CompletionResult } from '../types'

export type RemoteKind = 'openai' | 'anthropic'

const DEFAULT_BASE: Record<RemoteKind, string> = { openai: 'https://api.openai.com/v1', anthropic: 'https://api.anthropic.com/v1' }

/** `abort`: ends the call early (a call started for a task whose admission did not commit, ComputeService.start). */
export async function remoteComplete(kind: RemoteKind, baseUrl: string | null, secret: string, req: CompletionRequest, timeoutMs: number, abort?: AbortSignal): Promise<CompletionResult> {
  const base = (baseUrl || DEFAULT_BASE[kind]).replace(/\/+$/, '')
  const signal = abort ? AbortSignal.any([AbortSignal.timeout(timeoutMs), abort]) : AbortSignal.timeout(timeoutMs)
  const t0 = performance.now()
  let res: Response
  try {
    res = kind === 'openai'
      ? await fetch(`${base}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
          body: JSON.stringify({ model: req.model, messages: req.messages, max_tokens: req.maxTokens ?? 1024 }),
          signal,
        })
      : await fetch(`${base}/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': secret, 'anthropic-version': '2023-06-01' },
          body: JSON.stringify({
            model: req.model, max_tokens: req.maxTokens ?? 1024,
            system: req.messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n') || undefined,
            messages: req.messages.filter((m) => m.role !== 'system'),
          }),
          signal,
        })
  } catch (e) {
    const timedOut = (e as Error).name === 'TimeoutError'
    throw new ProviderError(timedOut ? `provider timed out after ${timeoutMs} ms` : 'provider unreachable', true)
  }
  if (!res.ok) {
    const retryAfter = Number(res.headers.get('retry-after'))
    await res.body?.cancel().catch(() => {})
    throw new ProviderError(`provider answered ${res.status}`, res.status === 429 || res.status >= 500, res.status, Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter * 1000 : undefined)
  }
  const body = (await res.json().catch(() => null)) as any
  const output = kind === 'openai'
    ? body?.choices?.[0]?.message?.content
    : Array.isArray(body?.content) ? body.content.filter((c: any) => c?.type === 'text').map((c: any) => c.text).join('') : undefined
  if (typeof output !== 'string') throw new ProviderError('provider answered without text content', true, res.status)
  const usage = kind === 'openai'
    ? { promptTokens: body?.usage?.prompt_tokens ?? 0, completionTokens: body?.usage?.completion_tokens ?? 0 }
    : { promptTokens: body?.usage?.input_tokens ?? 0, completionTokens: body?.usage?.output_tokens ?? 0 }
  return { output, model: typeof body?.model === 'string' ? body.model : req.model, provider: kind, usage, latencyMs: performance.now() - t0 }
}
