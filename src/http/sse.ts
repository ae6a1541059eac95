// Server-sent event streams: one helper for every stream the service serves (task stage events,
// compute job status). A stream is a ReadableStream with cancel() (no parked generator that
// outlives its client: docs/foundation.md, "Event streams"), a `: ping` comment every pingMs, an
// end when the request's signal aborts, and a periodic re-check of the caller's credential that
// ends the stream once the key is revoked, the token invalidated or the operator suspended.

// Response headers for server-sent event streams (no buffering by proxies, no caching).
export const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' }

/** What ends a stream besides its own last event: the client leaving, or its credential failing. */
export interface StreamGuard {
  signal: AbortSignal
  /** Re-checked every checkMs; false ends the stream. */
  stillValid?: () => boolean
  checkMs?: number
}

export interface SseEvent { id?: number | string; event?: string; data: unknown }

/** The writing side handed to a stream's producer. */
export interface SseSink {
  send(e: SseEvent): void
  comment(text: string): void
  /** Ends the stream (idempotent). */
  close(): void
  readonly closed: boolean
}

export interface EventStreamOptions {
  guard: StreamGuard
  pingMs: number
  /** `retry:` hint for EventSource reconnects (ms). */
  retryMs?: number
  /**
   * Starts producing: replay history, subscribe to live events. Returns the cleanup (unsubscribe),
   * which runs exactly once however the stream ends. May close the sink before returning.
   */
  open(sink: SseSink): (() => void) | void
}

const enc = new TextEncoder()

export function formatEvent(e: SseEvent): string {
  let out = ''
  if (e.id !== undefined) out += `id: ${e.id}\n`
  if (e.event) out += `event: ${e.event}\n`
  const data = typeof e.data === 'string' ? e.data : JSON.stringify(e.data)
  for (const line of data.split('\n')) out += `data: ${line}\n`
  return out + '\n'
}

export function eventStream(o: EventStreamOptions): ReadableStream<Uint8Array> {
  let finish: () => void = () => {}
  return new ReadableStream<Uint8Array>({
    start: (controller) => {
      let closed = false
      let producerCleanup: (() => void) | void
      const timers: ReturnType<typeof setInterval>[] = []
      const write = (text: string) => {
        if (closed) return
        try { controller.enqueue(enc.encode(text)) } catch { finish() } // the consumer is gone
      }
      finish = () => {
        if (closed) return
        closed = true
        for (const t of timers) clearInterval(t)
        o.guard.signal.removeEventListener('abort', finish)
        try { producerCleanup?.() } catch { /* best effort */ }
        producerCleanup = undefined
        try { controller.close() } catch { /* already closed or cancelled */ }
      }
      const sink: SseSink = {
        send: (e) => write(formatEvent(e)),
        comment: (text) => write(`: ${text.replace(/\n/g, ' ')}\n\n`),
        close: () => finish(),
        get closed() { return closed },
      }
      if (o.guard.signal.aborted) { finish(); return }
      o.guard.signal.addEventListener('abort', finish)
      timers.push(setInterval(() => write(': ping\n\n'), o.pingMs))
      const check = o.guard.stillValid
      if (check) {
        timers.push(setInterval(() => {
          let ok = false
          try { ok = check() } catch { ok = false }
          if (!ok) { sink.comment('credential no longer valid'); finish() }
        }, Math.max(50, o.guard.checkMs ?? 2000)))
      }
      if (o.retryMs !== undefined) write(`retry: ${o.retryMs}\n\n`)
      const cleanup = o.open(sink)
      if (closed) { try { cleanup?.() } catch { /* best effort */ } } else producerCleanup = cleanup
    },
    cancel: () => finish(),
  })
}
