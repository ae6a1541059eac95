// Prometheus text exposition: request counter and latency histogram by method, route and status.
const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

interface Series { method: string; route: string; status: number; count: number; sum: number; buckets: number[] }

export class HttpMetrics {
  /** Series by route, then by method and status: looked up per request without building a key string. */
  private byRoute = new Map<string, Map<string, Series>>()
  private readonly started = Date.now()

  observe(method: string, route: string, status: number, seconds: number): void {
    let forRoute = this.byRoute.get(route)
    if (!forRoute) this.byRoute.set(route, (forRoute = new Map()))
    const key = method === 'GET' ? STATUS_KEYS[status] ?? String(status) : `${method} ${status}` // "200", "POST 201"
    let s = forRoute.get(key)
    if (!s) forRoute.set(key, (s = { method, route, status, count: 0, sum: 0, buckets: new Array(BUCKETS.length).fill(0) }))
    s.count++
    s.sum += seconds
    // Only the first bucket that holds it; render() adds them up into Prometheus' cumulative counts.
    let i = 0
    while (i < BUCKETS.length && seconds > BUCKETS[i]!) i++
    if (i < BUCKETS.length) s.buckets[i]!++
  }

  private *series(): Iterable<Series> {
    for (const m of this.byRoute.values()) yield* m.values()
  }

  render(extra: string[] = []): string {
    const out: string[] = [
      '# HELP taskgate_http_requests_total HTTP requests by method, route and status.',
      '# TYPE taskgate_http_requests_total counter',
    ]
    const label = (s: Series) => `method="${esc(s.method)}",route="${esc(s.route)}",status="${s.status}"`
    for (const s of this.series()) out.push(`taskgate_http_requests_total{${label(s)}} ${s.count}`)
    out.push('# HELP taskgate_http_request_duration_seconds HTTP request latency.', '# TYPE taskgate_http_request_duration_seconds histogram')
    for (const s of this.series()) {
      const l = label(s)
      let cumulative = 0
      BUCKETS.forEach((b, i) => { cumulative += s.buckets[i]!; out.push(`taskgate_http_request_duration_seconds_bucket{${l},le="${b}"} ${cumulative}`) })
      out.push(`taskgate_http_request_duration_seconds_bucket{${l},le="+Inf"} ${s.count}`)
      out.push(`taskgate_http_request_duration_seconds_sum{${l}} ${s.sum.toFixed(6)}`)
      out.push(`taskgate_http_request_duration_seconds_count{${l}} ${s.count}`)
    }
    const mem = process.memoryUsage()
    out.push(
      '# HELP taskgate_process_resident_memory_bytes Resident set size.', '# TYPE taskgate_process_resident_memory_bytes gauge',
      `taskgate_process_resident_memory_bytes ${mem.rss}`,
      '# HELP taskgate_process_uptime_seconds Seconds since start.', '# TYPE taskgate_process_uptime_seconds gauge',
      `taskgate_process_uptime_seconds ${((Date.now() - this.started) / 1000).toFixed(3)}`,
      ...extra,
    )
    return out.join('\n') + '\n'
  }
}

/** Map keys of GET series by status, made once ("200", "404" …). */
const STATUS_KEYS: string[] = Array.from({ length: 600 }, (_, i) => String(i))

const esc = (s: string) => s.replaceAll('\\', '\\\\').replaceAll('"', '\\"').replaceAll('\n', '\\n')
