export interface ChatMessage { role: 'system' | 'user' | 'assistant'; content: string }
export interface CompletionRequest { model: string; messages: ChatMessage[]; taskType?: string; maxTokens?: number }
export interface CompletionResult {
  output: string; model: string; provider: string; usage: { promptTokens: number; completionTokens: number }; latencyMs: number; keyId?: string
  /** Running the request again gives the same output at no cost (the builtin provider): nothing is lost if it is not committed before the next stages. */
  repeatable?: boolean
}

/** A failed provider call: `retryable` errors (429, 5xx, timeouts) put the key in cooldown and try another key. */
export class ProviderError extends Error {
  constructor(message: string, public retryable: boolean, public status?: number, public retryAfterMs?: number) { super(message) }
}
