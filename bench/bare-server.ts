// Baseline for the benchmark: the smallest possible Bun.serve hello-world. bench/run.ts starts it
// as a separate process with the same bun binary and compares every TaskGate route against it.
// Usage: bun run bench/bare-server.ts <port>
const port = Number(process.argv[2] ?? process.env.PORT ?? 0)
const server = Bun.serve({
  hostname: '127.0.0.1',
  port,
  fetch: () => new Response('Hello, world!'),
})
process.stdout.write(`bare server listening on http://127.0.0.1:${server.port}\n`)
const stop = () => { server.stop(true); process.exit(0) }
process.once('SIGTERM', stop)
process.once('SIGINT', stop)

export {}
