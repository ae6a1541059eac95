// The task as the tasks domain stores it (src/tasks/repository.ts); the pipeline moves it stage by stage.
import type { tasks } from '../db/schema'

/**
 * A task as stored, plus what the pipeline hands on in memory only with the row it just committed
 * (never written: src/tasks/repository.ts NOT_WRITTEN): the signed attestation, stored in `attestations`.
 * The timeline column is not part of it: written with the events (TaskRepository), read on its own.
 */
export type TaskRow = Omit<typeof tasks.$inferSelect, 'timeline'> & { attestation?: Record<string, unknown> }
export type TaskPatch = Partial<Omit<TaskRow, 'id' | 'operatorId' | 'createdAt'>>
/** A task as submitted, before its insert (columns not given take their defaults). */
export type NewTask = TaskPatch & { id: string; operatorId: string; createdAt: number }

/** A timeline event as a task row stores it (tasks.timeline; src/tasks/row-encoding.ts); its id is its position, from 1. */
export interface StoredEvent { stage: number; name: string; status: string; detail: Record<string, unknown> | null; at: number }
