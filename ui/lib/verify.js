// Verification in the browser, with no trust in the server that serves the page: every check is
// recomputed here from the record itself and the published signer list
// (/.well-known/taskgate-signers). Used by the explorer pages (receipts, attestations, task
// documents) and the compliance page (certificates). Each verify* function returns
//   { ok, checks: [{ name, ok, detail }], signer, signerInfo }
// where `signerInfo` is the published entry of the signer ({ address, keyId, since }) or null.
// Crypto comes from viem (EIP-712, EIP-191, keccak) and multiformats/@ipld/dag-pb/ipfs-unixfs
// (CIDs): nothing is hand-rolled.
import * as dagPb from '@ipld/dag-pb'
import { UnixFS } from 'ipfs-unixfs'
import { CID } from 'multiformats/cid'
import { sha256 } from 'multiformats/hashes/sha2'
import { encodePacked, isAddressEqual, keccak256, recoverMessageAddress, recoverTypedDataAddress, stringToHex, toHex, zeroAddress } from 'viem'

const RAW = 0x55
const MAX_BLOCKS = 4096

const check = (name, ok, detail) => ({ name, ok: Boolean(ok), detail })

/** The published entry for `address`, or null. */
export function signerInfo(signers, address) {
  if (!address || !signers?.signers) return null
  return signers.signers.find((s) => safeEqual(s.address, address)) ?? null
}

function safeEqual(a, b) {
  try { return isAddressEqual(a, b) } catch { return false }
}

function result(checks, signer, signers) {
  return { ok: checks.every((c) => c.ok), checks, signer: signer ?? null, signerInfo: signerInfo(signers, signer) }
}

function signerChecks(recovered, claimed, signers) {
  const info = signerInfo(signers, recovered)
  return [
    check('signature', recovered && safeEqual(recovered, claimed), recovered ? `recovers to ${recovered}` : 'the signature does not recover to an address'),
    check('signer', info, info ? `this appliance's signer ${info.keyId} since ${info.since}` : `${recovered ?? claimed} is not a published signer of this appliance`),
  ]
}

/** Keys sorted recursively, no whitespace: the certificate hash input (src/compliance/service.ts). */
export function canonicalJson(v) {
  if (v === null || typeof v !== 'object') return JSON.stringify(v)
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`
  return `{${Object.keys(v).filter((k) => v[k] !== undefined).sort().map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`).join(',')}}`
}

/** Whether `s` is a CID this page can check. */
export function isCid(s) {
  try { CID.parse(s); return true } catch { return false }
}

/**
 * The bytes behind a UnixFS CID, every block re-hashed against its CID. `getBlock(cidString)` returns
 * the raw block bytes (GET /ipfs/{cid}?format=raw). Throws an Error naming the block that fails.
 */
export async function fetchVerifiedBytes(cidString, getBlock) {
  const root = CID.parse(cidString)
  const parts = []
  let blocks = 0
  const walk = async (cid) => {
    if (++blocks > MAX_BLOCKS) throw new Error(`more than ${MAX_BLOCKS} blocks`)
    if (cid.multihash.code !== sha256.code) throw new Error(`block ${cid}: unsupported hash function 0x${cid.multihash.code.toString(16)}`)
    const bytes = await getBlock(cid.toString())
    const digest = await sha256.digest(bytes)
    if (toHex(digest.digest) !== toHex(cid.multihash.digest)) throw new Error(`block ${cid}: its bytes hash to ${toHex(digest.digest)}, not to the CID`)
    if (cid.code === RAW) { parts.push(bytes); return }
    if (cid.code !== dagPb.code) throw new Error(`block ${cid}: unsupported codec 0x${cid.code.toString(16)}`)
    const node = dagPb.decode(bytes)
    const fs = node.Data ? UnixFS.unmarshal(node.Data) : null
    if (!fs || (fs.type !== 'file' && fs.type !== 'raw')) throw new Error(`block ${cid}: not a UnixFS file`)
    if (fs.data && fs.data.length > 0) parts.push(fs.data)
    for (const link of node.Links) await walk(link.Hash)
  }
  await walk(root)
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) { out.set(p, at); at += p.length }
  return { bytes: out, blocks }
}

/**
 * An EIP-712 signed document as stored on IPFS — a receipt (`domain` 'receipt') or a ToS acceptance
 * ('tos'): `{ payload: { domain, types, primaryType, message }, signature, signer }`.
 */
export async function verifyTypedDocument(doc, signers, domain = 'receipt') {
  const { payload, signature, signer } = doc ?? {}
  let recovered = null
  try { recovered = await recoverTypedDataAddress({ ...payload, signature }) } catch { /* reported below */ }
  const published = signers?.eip712Domains?.[domain]
  return result([
    ...signerChecks(recovered, signer, signers),
    check('domain', published && canonicalJson(payload?.domain) === canonicalJson(published), `EIP-712 domain ${JSON.stringify(payload?.domain)}`),
  ], recovered ?? signer, signers)
}

/** EAS offchain UID, version 2 (the same formula as EAS's SDK: the schema UID enters as the UTF-8 bytes of its hex string). */
export function offchainUid(m) {
  return keccak256(encodePacked(
    ['uint16', 'bytes', 'address', 'address', 'uint64', 'uint64', 'bool', 'bytes32', 'bytes', 'bytes32', 'uint32'],
    [Number(m.version), stringToHex(m.schema), m.recipient, zeroAddress, BigInt(m.time), BigInt(m.expirationTime), Boolean(m.revocable), m.refUID, m.data, m.salt, 0],
  ))
}

/** An EAS offchain attestation `{ uid, sig: { domain, primaryType, types, message, signature: { r, s, v } }, signer }`. */
export async function verifyAttestation(att, signers) {
  const sig = att?.sig ?? {}
  const m = sig.message ?? {}
  let uid = null
  try { uid = offchainUid(m) } catch { /* reported below */ }
  let recovered = null
  try {
    const { r, s, v } = sig.signature
    const signature = `${r}${s.slice(2)}${Number(v).toString(16).padStart(2, '0')}`
    recovered = await recoverTypedDataAddress({ domain: { ...sig.domain, chainId: Number(sig.domain.chainId) }, types: sig.types, primaryType: sig.primaryType, message: m, signature })
  } catch { /* reported below */ }
  const schemaUid = signers?.attestationSchema?.uid
  return result([
    check('uid', uid && uid === att?.uid && uid === sig.uid, uid ? `the message hashes to ${uid}` : 'the message cannot be hashed'),
    ...signerChecks(recovered, att?.signer, signers),
    check('schema', schemaUid && m.schema === schemaUid, `schema ${m.schema}`),
  ], recovered ?? att?.signer, signers)
}

/** A compliance certificate: certHash over its canonical JSON, EIP-191 signature of certHash. */
export async function verifyCertificate(cert, signers) {
  const { certHash, signature, signer, ipfsCid, ...body } = cert ?? {}
  const hash = keccak256(new TextEncoder().encode(canonicalJson(body)))
  let recovered = null
  try { recovered = await recoverMessageAddress({ message: { raw: certHash }, signature }) } catch { /* reported below */ }
  return result([
    check('hash', hash === certHash, hash === certHash ? `the certificate hashes to ${hash}` : `the certificate hashes to ${hash}, not to certHash ${certHash}`),
    ...signerChecks(recovered, signer, signers),
  ], recovered ?? signer, signers)
}

/**
 * A verification proof (GET /api/v1/public/verification/{proof}): when the record is complete, its
 * JSON text must hash to the proof; the receipt, when given, must sign the same proof.
 */
export function verifyVerificationProof(v, receipt) {
  const checks = []
  if (v?.recordComplete) {
    const hash = keccak256(new TextEncoder().encode(JSON.stringify(v.record)))
    checks.push(check('record', hash === v.proof, hash === v.proof ? `the record hashes to the proof` : `the record hashes to ${hash}, not to the proof`))
  }
  if (receipt) {
    const signed = receipt?.payload?.message?.verificationProof
    checks.push(check('receipt', signed === v?.proof, signed === v?.proof ? 'the signed receipt names this proof' : `the receipt names ${signed}`))
  }
  return { ok: checks.every((c) => c.ok), checks, signer: null, signerInfo: null }
}

/** The kind of a document found on IPFS, from its shape. */
export function documentKind(doc) {
  if (doc?.payload?.primaryType === 'TaskReceipt') return 'receipt'
  if (doc?.payload?.primaryType === 'TosAcceptance') return 'tos'
  if (doc?.sig?.primaryType === 'Attest') return 'attestation'
  if (typeof doc?.certHash === 'string') return 'certificate'
  if (typeof doc?.promptHash === 'string' || doc?.kind === 'task') return 'task'
  return 'unknown'
}
