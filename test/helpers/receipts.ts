// A receipt checked the way a client would: fetched by its CID from the gateway's IPFS route, its
// EIP-712 signature verified with viem, and its signer matched against /.well-known/taskgate-signers.
import { expect } from 'bun:test'
import { keccak256, stringToBytes, verifyTypedData, type Hex } from 'viem'

export interface CheckedReceipt { valid: boolean; signer: string; listed: boolean; message: Record<string, unknown> }

export async function checkReceipt(baseUrl: string, cid: string): Promise<CheckedReceipt> {
  const doc = await (await fetch(`${baseUrl}/ipfs/${cid}?format=raw`)).json() as { payload: any; signature: Hex; signer: string }
  const { domain, types, primaryType, message } = doc.payload
  const { EIP712Domain: _, ...rest } = types
  const typed = { domain, types: rest, primaryType, message: reviveBigInts(message, rest[primaryType]) }
  const valid = await verifyTypedData({ address: doc.signer as Hex, signature: doc.signature, ...typed } as never)
  const signers = await (await fetch(`${baseUrl}/.well-known/taskgate-signers`)).json() as { signers: { address: string }[] }
  const listed = signers.signers.some((x) => x.address.toLowerCase() === doc.signer.toLowerCase())
  return { valid, signer: doc.signer, listed, message }
}

/** The hash a receipt signs for a text (its prompt or output). */
export const textHash = (text: string): Hex => keccak256(stringToBytes(text))

function reviveBigInts(message: Record<string, unknown>, fields: { name: string; type: string }[]): Record<string, unknown> {
  const out: Record<string, unknown> = { ...message }
  for (const f of fields) if (/^u?int\d*$/.test(f.type) && out[f.name] !== undefined) out[f.name] = BigInt(out[f.name] as string)
  return out
}

/** The receipt verifies with viem, is signed by a listed signer, and covers this task and output. */
export async function expectReceiptCovers(baseUrl: string, cid: string, taskId: string, output: string): Promise<void> {
  const r = await checkReceipt(baseUrl, cid)
  expect(r.valid).toBe(true)
  expect(r.listed).toBe(true)
  expect(r.message.taskId).toBe(taskId)
  expect(r.message.outputHash).toBe(textHash(output))
}
