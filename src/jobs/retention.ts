// The retention job (docs/security.md, Limits): once a day by the service clock (so the test clock
// drives it), it deletes what costs nothing to make and serves no one after TASKGATE_RETENTION_DAYS
// (default 30): tasks that failed before their debit (refused at stage 1, or held and then denied,
// expired or stopped), with their approval requests, webhook deliveries that are over, and the A2A
// push configs of tasks that finished (docs/doors.md, "A2A", "Push notifications"). Each
// domain deletes its own rows; this module only schedules them. A refused task has no ledger entry,
// no receipt and no link in its agent's chain, so the ledger and the state roots are untouched, and
// the triggers on `tasks` take it out of the lists' counters and the daily rollups as it goes.
import type { Clock } from '../clock'
import type { Logger } from '../log'
import type { JobRunner } from './runner'

const DAY_MS = 86_400_000
/** Tasks deleted per transaction: the write lock is held for one batch at a time. */
const BATCH = 500

export interface RetentionDeps {
  /** Deletes up to `limit` tasks that failed before their debit before `before`; returns how many. */
  pruneRefusedTasks(before: number, limit: number): number
  /** Deletes the webhook deliveries created before `before` that are over; returns how many. */
  pruneDeliveries(before: number): number
  /** Deletes the A2A push configs of tasks that finished before `before`; returns how many. */
  prunePushConfigs(before: number): number
}

export class Retention {
  constructor(private jobs: JobRunner, private clock: Clock, private log: Logger, private days: number, private deps: RetentionDeps) {
  }

  /** Schedules the first run a minute after start (a run missed while the server was down is due at once). */
  schedule(): void {
    this.jobs.enqueue('retention.prune', {}, { runAt: this.clock.now() + 60_000, dedupeKey: 'retention.prune' })
  }

  /** One run: everything older than the retention, batch by batch, then the next run a day later. */
  async run(): Promise<void> {
    const before = this.clock.now() - this.days * DAY_MS
    let tasks = 0
    for (;;) {
      const n = this.deps.pruneRefusedTasks(before, BATCH)
      tasks += n
      if (n < BATCH) break
      await new Promise((r) => setImmediate(r)) // requests go between batches
    }
    const deliveries = this.deps.pruneDeliveries(before)
    const pushConfigs = this.deps.prunePushConfigs(before)
    if (tasks || deliveries || pushConfigs) this.log.info({ tasks, deliveries, pushConfigs, days: this.days }, 'retention: deleted refused tasks, webhook deliveries and finished tasks\' push configs')
    this.jobs.enqueue('retention.prune', {}, { runAt: this.clock.now() + DAY_MS, dedupeKey: 'retention.prune' })
  }
}
