export interface ChatMessage { role: 'system' | 'user' | 'assistant'; content: string }

/** Sampling parameters a door passes on to the provider (docs/doors.md); absent ones take the provider's defaults. */
export interface SamplingParams { maxTokens?: number; temperature?: number; topP?: number; stop?: string[] }

export interface CompletionRequest extends SamplingParams {
  model: string; messages: ChatMessage[]; taskType?: string
  /**
   * Streams the completion: each piece of text is handed here as the provider sends it (a door's
   * stream, docs/doors.md, "Streaming"). In memory only: never stored with a queued job.
   */
  onDelta?: (text: string) => void
}

export interface CompletionResult {
  output: string; model: string; provider: string; usage: { promptTokens: number; completionTokens: number }; latencyMs: number; keyId?: string
  /** Running the request again gives the same output at no cost (the builtin provider): nothing is lost if it is not committed before the next stages. */
  repeatable?: boolean
}

/**
 * A failed provider call: `retryable` errors (429, 5xx, timeouts) put the key in cooldown and try
 * another key. `streamed`: part of the output already went to the client, so no other key may
 * start it again.
 */
export class ProviderError extends Error {
  constructor(message: string, public retryable: boolean, public status?: number, public retryAfterMs?: number, public streamed = false) { super(message) }
}
