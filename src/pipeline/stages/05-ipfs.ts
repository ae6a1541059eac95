// Stage 5: the task document on the embedded IPFS node. Deterministic content, so a resumed
// task stores the same CID again. The document is public (anyone with its CID reads it), so it
// carries the prompt's and output's hashes; the output itself only when the operator's guardrail
// setting `publishOutputs` is on (docs/pipeline.md, "Stages"). The receipt and attestation sign the
// hashes, so verification never needs the text.
// Touches: the IPFS node, the guardrails (publishOutputs).
import { taskHashes } from '../verification'
import type { Stage, StageContext, StageResult, TaskRow } from '../types'

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

/** The document's CID; its blocks commit while stages 6–8 run. */
const stored = ({ cid, stored }: { cid: string; stored: Promise<void> }): StageResult => ({ patch: { ipfsCid: cid }, detail: { cid }, ready: stored })

export const ipfs: Stage = {
  n: 5,
  name: 'ipfs',
  run: ({ task, ipfs, guardrails }: StageContext<'ipfs' | 'guardrails'>) => {
    const put = ipfs.putJson(taskDocument(task, guardrails.current(task.operatorId).publishOutputs))
    return put instanceof Promise ? put.then(stored) : stored(put) // one block (nearly always): known at once
  },
}
