// Response headers for server-sent event streams (no buffering by proxies, no caching).
export const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-accel-buffering': 'no' }
