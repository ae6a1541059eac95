// The server's enums the console offers as choices, and when a task is settled.


export const TIERS = ['FREE', 'PRO', 'ENTERPRISE']

export const STATUSES = ['ACTIVE', 'SUSPENDED', 'BANNED']

export const CAPABILITIES = ['general', 'code', 'analysis', 'creative', 'trade_signal', 'sentiment_analysis', 'evm_action', 'spend_control', 'data_analysis', 'external_comms', 'deploy_actions', 'content_publication']

export const TASK_STATUSES = ['PENDING_APPROVAL', 'QUEUED', 'PROCESSING', 'COMPLETED', 'FAILED']

/** Settled: nothing more will happen without someone acting (finished, failed, or held for approval). */
export function isSettled(task) { return task.status === 'COMPLETED' || task.status === 'FAILED' || task.status === 'PENDING_APPROVAL' }
