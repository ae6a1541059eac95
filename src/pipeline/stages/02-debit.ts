// Stage 2: credit debit (reserve). Runs in a transaction; the ledger entry's ref makes it
// idempotent, so a resumed task is never charged twice. Refunded if a later stage fails before a
// result exists. Only the server's own diagnostic test runs (agent test-run, which sets the task's
// `diagnostic` column) are free: nothing a client sends changes what a task costs.
// Touches: the ledger, the task costs.
import type { Stage, StageContext } from '../types'

export const debitRef = (taskId: string) => `task:${taskId}`

export const debit: Stage = {
  n: 2,
  name: 'debit',
  sync: ({ task, ledger, costOf }: StageContext<'ledger' | 'costOf'>) => {
    if (task.diagnostic) return { patch: { creditsCharged: 0 }, detail: { credits: 0, diagnostic: true } }
    const cost = costOf(task.taskType)
    ledger.debit(task.operatorId, cost, 'task_debit', debitRef(task.id), task.id)
    return { patch: { creditsCharged: cost }, detail: { credits: cost } }
  },
}
