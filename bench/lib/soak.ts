// Soak: whether latency stays flat while tasks accumulate. For `minutes` minutes, one client (this
// Bun process) submits tasks at a fixed rate (open loop: requests are sent on schedule, whatever
// the answers, so a slower server is not hidden by a slower client) and reads task lists at a fifth
// of that rate, rotating through the list variants a console and an agent use. Every minute gets
// its own row: achieved rates, submit and list latency (p50/p99, from send to the full answer),
// and the tasks stored by then. The goal is a flat line: the last minute's p50 within 1.5× of the
// first minute's, for submits and for lists.
import { stats, type LatencyStats } from './pipeline'

export const SOAK_NAME = 'soak'
export const SOAK_MAX_DRIFT = 1.5

export interface SoakMinute {
  minute: number
  submitsPerS: number
  listsPerS: number
  submit: LatencyStats
  list: LatencyStats
  failures: number
  /** requests not sent because too many were in flight (the server fell behind the schedule) */
  skipped: number
  storedTasks: number
}

export interface SoakResult {
  minutes: number
  submitRatePerS: number
  listRatePerS: number
  rows: SoakMinute[]
  /** last minute's p50 ÷ first minute's p50 */
  submitDrift: number
  listDrift: number
  failures: { status: number; body: string }[]
}

export interface SoakOptions {
  taskgateUrl: string
  accessToken: string
  agentId: string
  minutes: number
  /** submits per second (lists run at a fifth of it) */
  ratePerS: number
  onMinute?: (row: SoakMinute) => void
}

const MAX_IN_FLIGHT = 256
const TICK_MS = 5

export async function measureSoak(o: SoakOptions): Promise<SoakResult> {
  const headers = { authorization: `Bearer ${o.accessToken}`, 'content-type': 'application/json' }
  const submitBody = JSON.stringify({ agentId: o.agentId, taskType: 'sentiment_analysis', prompt: 'Soak: the release is fast and the support was great, though the guide could be clearer.' })
  const lists = [
    '/api/v1/tasks?limit=20',
    '/api/v1/tasks?limit=20&status=COMPLETED',
    `/api/v1/tasks?limit=20&agentId=${encodeURIComponent(o.agentId)}`,
    '/api/v1/operator/tasks?limit=20&page=5',
  ]
  const listRate = o.ratePerS / 5
  const failures: { status: number; body: string }[] = []
  const rows: SoakMinute[] = []
  let inFlight = 0

  const send = (url: string, init: RequestInit, lat: number[], ok: (r: Response, text: string) => boolean, minute: { failures: number }) => {
    inFlight++
    const t0 = performance.now()
    fetch(url, init).then(async (r) => {
      const text = await r.text()
      lat.push(performance.now() - t0)
      if (!ok(r, text)) { minute.failures++; if (failures.length < 20) failures.push({ status: r.status, body: text.slice(0, 300) }) }
    }).catch((e) => { minute.failures++; if (failures.length < 20) failures.push({ status: 0, body: String(e) }) })
      .finally(() => { inFlight-- })
  }

  const start = performance.now()
  let submits = 0, reads = 0
  for (let m = 0; m < o.minutes; m++) {
    const submitLat: number[] = [], listLat: number[] = []
    const counters = { failures: 0, skipped: 0 }
    const minuteStart = start + m * 60_000
    const s0 = submits, r0 = reads
    while (performance.now() < minuteStart + 60_000) {
      const elapsedS = (performance.now() - start) / 1000
      for (; submits < elapsedS * o.ratePerS; submits++) {
        if (inFlight >= MAX_IN_FLIGHT) { counters.skipped++; continue }
        send(`${o.taskgateUrl}/api/v1/tasks/submit`, { method: 'POST', headers, body: submitBody }, submitLat, (r, t) => r.status === 200 && t.includes('"status":"COMPLETED"'), counters)
      }
      for (; reads < elapsedS * listRate; reads++) {
        if (inFlight >= MAX_IN_FLIGHT) { counters.skipped++; continue }
        send(`${o.taskgateUrl}${lists[reads % lists.length]}`, { headers }, listLat, (r) => r.status === 200, counters)
      }
      await Bun.sleep(TICK_MS)
    }
    // the stored count from the list answer's `total` (the counters the triggers keep)
    const total = await fetch(`${o.taskgateUrl}/api/v1/tasks?limit=1`, { headers }).then((r) => r.json()).then((b: { total?: number }) => b.total ?? 0).catch(() => 0)
    const row: SoakMinute = {
      minute: m + 1, submitsPerS: (submits - s0) / 60, listsPerS: (reads - r0) / 60,
      submit: stats(submitLat), list: stats(listLat), failures: counters.failures, skipped: counters.skipped, storedTasks: total,
    }
    rows.push(row)
    o.onMinute?.(row)
  }
  while (inFlight > 0) await Bun.sleep(10)
  const first = rows[0]!, last = rows[rows.length - 1]!
  return {
    minutes: o.minutes, submitRatePerS: o.ratePerS, listRatePerS: listRate, rows,
    submitDrift: last.submit.p50Ms / first.submit.p50Ms, listDrift: last.list.p50Ms / first.list.p50Ms, failures,
  }
}
