// Verifying a TaskGate receipt the way anyone can: fetch the document by its CID from the gateway's
// IPFS route, check that the bytes hash to that CID, verify the EIP-712 signature with viem, and
// look the signer up in /.well-known/taskgate-signers. Nothing here trusts the server's own
// verdict (GET /api/v1/public/proof/{cid} gives that one).
import { bytesToHex, sha256, verifyTypedData, type Hex } from 'viem'

export interface ReceiptCheck {
  /** the signature recovers to the signer the document names */
  valid: boolean
  signer: Hex
  /** that signer is listed at /.well-known/taskgate-signers */
  signerKnown: boolean
  /** the bytes served hash to the CID (null: a CID form this helper does not check) */
  cidMatches: boolean | null
  /** what was signed: taskId, agentId, promptHash, outputHash, ipfsCid, attestationUid, … (numbers as strings) */
  message: Record<string, unknown>
}

interface ReceiptDocument {
  type: string
  payload: { domain: Record<string, unknown>; types: Record<string, { name: string; type: string }[]>; primaryType: string; message: Record<string, unknown> }
  signature: Hex
  signer: Hex
}

export interface VerifyOptions { fetch?: typeof fetch }

export async function verifyReceipt(baseUrl: string, cid: string, options: VerifyOptions = {}): Promise<ReceiptCheck> {
  const get = options.fetch ?? fetch
  const base = baseUrl.replace(/\/+$/, '')
  const res = await get(`${base}/ipfs/${encodeURIComponent(cid)}?format=raw`)
  if (res.status !== 200) throw new Error(`GET /ipfs/${cid} → ${res.status}`)
  const bytes = new Uint8Array(await res.arrayBuffer())
  const doc = JSON.parse(new TextDecoder().decode(bytes)) as ReceiptDocument
  if (!doc?.payload?.types || !doc.payload.message || typeof doc.signature !== 'string' || typeof doc.signer !== 'string') {
    throw new Error(`${cid} is not a signed receipt (type ${String(doc?.type)})`)
  }
  const { domain, types, primaryType, message } = doc.payload
  const { EIP712Domain: _, ...fields } = types
  const valid = await verifyTypedData({
    address: doc.signer, signature: doc.signature, domain, types: fields, primaryType,
    message: withBigInts(message, fields[primaryType] ?? []),
  } as Parameters<typeof verifyTypedData>[0]).catch(() => false)
  const sres = await get(`${base}/.well-known/taskgate-signers`)
  if (sres.status !== 200) throw new Error(`GET /.well-known/taskgate-signers → ${sres.status}`)
  const { signers } = await sres.json() as { signers: { address: string }[] }
  const signerKnown = signers.some((s) => s.address.toLowerCase() === doc.signer.toLowerCase())
  return { valid, signer: doc.signer, signerKnown, cidMatches: cidMatches(cid, bytes), message }
}

/** EIP-712 integers travel as strings in JSON; viem wants BigInt. */
function withBigInts(message: Record<string, unknown>, fields: { name: string; type: string }[]): Record<string, unknown> {
  const out = { ...message }
  for (const f of fields) if (/^u?int\d*$/.test(f.type) && out[f.name] !== undefined) out[f.name] = BigInt(out[f.name] as string)
  return out
}

/** A CIDv1 in base32 (`b…`) with a sha2-256 multihash: does `bytes` hash to it? */
function cidMatches(cid: string, bytes: Uint8Array): boolean | null {
  if (!cid.startsWith('b')) return null
  const raw = base32(cid.slice(1))
  if (!raw) return null
  let i = 0
  const varint = () => { let v = 0; let shift = 0; for (;;) { const b = raw[i++]; if (b === undefined) return -1; v += (b & 0x7f) * 2 ** shift; if (b < 0x80) return v; shift += 7 } }
  if (varint() !== 1) return null // CID version
  varint() // codec: the hash covers the block's bytes whatever it is
  if (varint() !== 0x12 || varint() !== 32) return null // sha2-256, 32 bytes
  const digest = raw.slice(i)
  return digest.length === 32 && bytesToHex(digest) === sha256(bytes)
}

function base32(s: string): Uint8Array | null {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567'
  const out: number[] = []
  let bits = 0
  let value = 0
  for (const ch of s) {
    const v = alphabet.indexOf(ch)
    if (v < 0) return null
    value = (value << 5) | v
    bits += 5
    if (bits >= 8) { out.push((value >>> (bits - 8)) & 0xff); bits -= 8; value &= (1 << bits) - 1 }
  }
  return new Uint8Array(out)
}
