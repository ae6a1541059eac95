// The A2A SDK's own client (@a2a-js/sdk 1.3) as a user sets it up against a test server, and the
// small readers the A2A tests share (test/http/a2a-door.test.ts, test/http/a2a-push.test.ts).
import { expect } from 'bun:test'
import { Role, type SendMessageRequest, type Task } from '@a2a-js/sdk'
import { ClientFactory, ClientFactoryOptions, type CallInterceptor, type Client } from '@a2a-js/sdk/client'
import { A2AError } from '@a2a-js/sdk/errors'

/** Sends `headers` with every call, as a user configures the SDK's client (an interceptor). */
const withHeaders = (headers: Record<string, string>): CallInterceptor => ({
  async before(args) { args.options = { ...args.options, serviceParameters: { ...args.options?.serviceParameters, ...headers } } },
  async after() {},
})

/** An A2A client as a user makes one: discovered from the server's card, its credential as `Authorization: Bearer`. */
export async function connect(baseUrl: string, credential: string, headers: Record<string, string> = {}): Promise<Client> {
  const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
    clientConfig: { interceptors: [withHeaders({ authorization: `Bearer ${credential}`, ...headers })] },
  }))
  return factory.createFromUrl(baseUrl)
}

export function message(textValue: string, metadata?: Record<string, unknown>, contextId = ''): SendMessageRequest {
  return {
    tenant: '', configuration: undefined, metadata: undefined,
    message: {
      messageId: crypto.randomUUID(), contextId, taskId: '', role: Role.ROLE_USER, metadata, extensions: [], referenceTaskIds: [],
      parts: [{ content: { $case: 'text', value: textValue }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
    },
  }
}

export const asTask = (r: unknown): Task => {
  expect((r as Task).status).toBeDefined() // a Task, not a Message
  return r as Task
}

/** A completed task's artifact: its output text and its data part { taskId, receiptCid, attestationUid }. */
export const artifactOf = (t: Task) => {
  const parts = t.artifacts[0]!.parts
  const textPart = parts.find((p) => p.content?.$case === 'text')!.content!.value as string
  const data = parts.find((p) => p.content?.$case === 'data')!.content!.value as { taskId: string; receiptCid: string; attestationUid: string }
  return { text: textPart, data }
}

/** The JSON-RPC error a rejected call carries: its code and the TaskGate reason (1.0 ErrorInfo). */
export function rpcErrorOf(e: unknown): { code: number; message: string; reason?: string } {
  expect(e).toBeInstanceOf(A2AError)
  const err = e as { envelopeCode: number; message: string; data?: { reason?: string }[] }
  return { code: err.envelopeCode, message: err.message, reason: err.data?.[0]?.reason }
}

export async function rejection(p: Promise<unknown>): Promise<unknown> {
  try { await p } catch (e) { return e }
  throw new Error('expected the call to be rejected')
}
