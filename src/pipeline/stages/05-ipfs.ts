// Stage 5: the task document on the embedded IPFS node. Deterministic content, so a resumed
// task stores the same CID again. The document is public (anyone with its CID reads it), so it
// carries the prompt's and output's hashes; the output itself only when the operator's guardrail
// setting `publishOutputs` is on (decisions.md §15). The receipt and attestation sign the hashes,
// so verification never needs the text.
import { taskHashes } from '../verification'
import type { Stage, TaskRow } from '../types'

export function taskDocument(task: TaskRow, publishOutput: boolean) {
  const { promptHash, outputHash } = taskHashes(task)
  return {
    type: 'taskgate.task/v1',
    taskId: task.id, operatorId: task.operatorId, agentId: task.agentId, taskType: task.taskType,
    promptHash, outputHash,
    ...(publishOutput ? { output: task.output } : {}),
    model: task.model, provider: task.provider,
    timings: { createdAt: new Date(task.createdAt).toISOString(), computeStartedAt: iso(task.computeStartedAt), computeFinishedAt: iso(task.computeFinishedAt), latencyMs: task.latencyMs },
    verification: { status: task.verificationStatus, score: task.verificationScore, proof: task.verificationProof },
  }
}
const iso = (ms: number | null) => (ms == null ? null : new Date(ms).toISOString())

export const ipfs: Stage = {
  n: 5,
  name: 'ipfs',
  run: async ({ task, s }) => {
    const { cid, stored } = await s.ipfs.putJson(taskDocument(task, s.guardrails.current(task.operatorId).publishOutputs))
    return { patch: { ipfsCid: cid }, detail: { cid }, ready: stored } // the block commits while stages 6–8 run
  },
}
