// The service signer (secp256k1 key in <dataDir>/keys/signer.key) and the EIP-712 documents it
// signs: task receipts and EAS offchain attestations. Verification needs nothing but the
// published address (/.well-known/taskgate-signers) and any EIP-712 library.
import { encodeAbiParameters, encodePacked, hexToBytes, parseAbiParameters, toHex, verifyTypedData, zeroAddress, type Hex } from 'viem'
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { keccak256 } from '../lib/keccak'
import { workerUrl } from '../lib/worker-url'
import { signTypedDataCached } from './typed-data'

/** Base Sepolia in the testnet phase, Base in live: the chain receipts and attestations name. */
export const CHAIN_IDS = { testnet: 84532, live: 8453 } as const
export const EAS_ADDRESS = '0x4200000000000000000000000000000000000021' as const // EAS predeploy on OP-stack chains
export const EAS_VERSION = '1.2.0'

export const RECEIPT_TYPES = {
  TaskReceipt: [
    { name: 'taskId', type: 'string' },
    { name: 'operatorId', type: 'string' },
    { name: 'agentId', type: 'string' },
    { name: 'taskType', type: 'string' },
    { name: 'model', type: 'string' },
    { name: 'provider', type: 'string' },
    { name: 'promptHash', type: 'bytes32' },
    { name: 'outputHash', type: 'bytes32' },
    { name: 'ipfsCid', type: 'string' },
    { name: 'stateRoot', type: 'bytes32' },
    { name: 'verificationScoreBps', type: 'uint16' },
    { name: 'verified', type: 'bool' },
    { name: 'verificationProof', type: 'bytes32' },
    { name: 'attestationUid', type: 'bytes32' },
    { name: 'creditsCharged', type: 'uint256' },
    { name: 'completedAt', type: 'uint64' },
  ],
} as const

/** The 15 approval webhook fields in their signed order (docs/webhooks.md, "The request"), every one a string. */
export const WEBHOOK_FIELDS = ['event', 'approvalId', 'taskId', 'agentId', 'actionType', 'operation', 'target', 'requestedValue', 'currency',
  'triggerPolicy', 'triggerReason', 'resolveUrl', 'decision', 'decidedBy', 'timestamp'] as const
export const WEBHOOK_TYPES = { ApprovalWebhook: WEBHOOK_FIELDS.map((name) => ({ name, type: 'string' })) }
/**
 * Deliveries whose body is not an approval webhook's fields (A2A push notifications): the event, the
 * delivery id and the SHA-256 of the raw body, in the webhook domain (docs/webhooks.md, "Other deliveries").
 */
export const DELIVERY_TYPES = {
  WebhookDelivery: [{ name: 'event', type: 'string' }, { name: 'deliveryId', type: 'string' }, { name: 'bodySha256', type: 'bytes32' }],
} as const

export const EAS_TYPES = {
  Attest: [
    { name: 'version', type: 'uint16' }, { name: 'schema', type: 'bytes32' }, { name: 'recipient', type: 'address' },
    { name: 'time', type: 'uint64' }, { name: 'expirationTime', type: 'uint64' }, { name: 'revocable', type: 'bool' },
    { name: 'refUID', type: 'bytes32' }, { name: 'data', type: 'bytes' }, { name: 'salt', type: 'bytes32' },
  ],
} as const

/** The EAS schema every task attestation uses; its UID is keccak256(schema ‖ resolver ‖ revocable) as EAS's SchemaRegistry computes it. */
export const TASK_SCHEMA = 'string taskId,string agentId,bytes32 promptHash,bytes32 outputHash,string ipfsCid,bytes32 stateRoot,uint16 verificationScoreBps,bool verified'
/** Parsed once, at the first attestation: parsing the human-readable schema cost more than encoding it. */
let taskSchemaParams: ReturnType<typeof parseAbiParameters<typeof TASK_SCHEMA>> | null = null
/**
 * keccak256(TASK_SCHEMA ‖ zero resolver ‖ revocable), written out: hashing it at load cost ~3 ms of
 * start-up (pure-JavaScript keccak before the JIT). test/unit/typed-data.test.ts recomputes it.
 */
export const TASK_SCHEMA_UID: Hex = '0x58d80b09785ca082cb6097232d56d49e16024ec1369c5d60237f2892a7abbef0'

export interface SignedTypedData<M> {
  payload: { domain: Record<string, unknown>; types: Record<string, readonly { name: string; type: string }[]>; primaryType: string; message: M }
  signature: Hex
  signer: `0x${string}`
}

export class Signer {
  private derived: PrivateKeyAccount | null = null
  readonly receiptDomain: { name: string; version: string; chainId: number }
  readonly easDomain: { name: string; version: string; chainId: number; verifyingContract: `0x${string}` }
  /** Webhooks (docs/webhooks.md): `x-taskgate-eip712-sig` is over WEBHOOK_TYPES (approval events) or DELIVERY_TYPES (A2A push notifications) in this domain. */
  readonly webhookDomain: { name: string; version: string; chainId: number }
  /** Terms of Service acceptance documents (src/tos): primary type `TosAcceptance`. */
  readonly tosDomain: { name: string; version: string; chainId: number }
  /** The signing worker, once it said it is ready (signatures go to it from then on). */
  private worker: Worker | null = null
  /** The worker between its start and its ready message. */
  private starting: Worker | null = null
  private workerWanted = false
  private pending = new Map<number, { kind: DocumentKind; message: Record<string, unknown>; resolve: (s: Hex) => void; reject: (e: Error) => void }>()
  private seq = 0
  /**
   * Domain, types and primary type of each kind of document the service signs. The worker gets
   * them with its key, and a signature request carries only the kind and the message: copying
   * the domain and the types into every request cost more than half of its structured clone
   * (~25 µs of the main thread's time per attestation).
   */
  private readonly documents: Record<DocumentKind, DocumentType>

  /**
   * `mainIsIdle`: whether the main thread has nothing else to do (at most one task in flight). Then a
   * signature asked for while the worker is busy with another is made here, in parallel: a lone
   * task's two signatures take the time of one. Under load it is false and every signature goes to
   * the worker.
   */
  constructor(private privateKey: Hex, readonly since: string, readonly chainId: number, private mainIsIdle: () => boolean = () => false) {
    this.receiptDomain = { name: 'TaskGate Receipt', version: '1', chainId }
    this.easDomain = { name: 'EAS Attestation', version: EAS_VERSION, chainId, verifyingContract: EAS_ADDRESS }
    this.webhookDomain = { name: 'TaskGate Webhook', version: '1', chainId }
    this.tosDomain = { name: 'TaskGate', version: '1', chainId }
    this.documents = {
      receipt: { domain: this.receiptDomain, types: RECEIPT_TYPES, primaryType: 'TaskReceipt' },
      attestation: { domain: this.easDomain, types: EAS_TYPES, primaryType: 'Attest' },
      webhook: { domain: this.webhookDomain, types: WEBHOOK_TYPES, primaryType: 'ApprovalWebhook' },
      delivery: { domain: this.webhookDomain, types: DELIVERY_TYPES, primaryType: 'WebhookDelivery' },
    }
  }

  /** Signs here, on the main thread. */
  private local(kind: DocumentKind, message: Record<string, unknown>): Promise<Hex> {
    return signTypedDataCached(this.privateKey, this.typedData(kind, message))
  }

  /** The typed data of a document of this kind. */
  private typedData(kind: DocumentKind, message: Record<string, unknown>): Parameters<typeof signTypedDataCached>[1] {
    return { ...this.documents[kind], message } as never
  }

  /**
   * The account (address) of the key, derived at first use: the first secp256k1 multiplication
   * builds noble's precomputed table for the curve's base point (~25 ms), which start-up does not
   * need to wait for.
   */
  get account(): PrivateKeyAccount { return (this.derived ??= privateKeyToAccount(this.privateKey)) }
  get address(): `0x${string}` { return this.account.address }
  get keyId(): string { return `signer-${this.address.slice(2, 10).toLowerCase()}` }

  /**
   * Moves signing to a worker thread (the second core) from the first signature on; without one,
   * signing stays in-process. The worker (a JavaScript VM with viem, about 10 MB) is started by the
   * first signature, which, like any made before the worker is ready, is signed here meanwhile:
   * an idle gateway does not carry it, and no signature waits for it to start.
   */
  startWorker(): void {
    this.workerWanted = true
  }

  private spawnWorker(): void {
    this.workerWanted = false // one attempt: a failure leaves signing in-process
    try {
      // smol: JavaScriptCore's small-heap configuration; peak RSS under load 201 -> 196 MB, throughput unchanged
      const w = new Worker(workerUrl('chain/sign-worker.ts'), { smol: true })
      w.onmessage = (e: MessageEvent) => {
        const { id, signature, error, ready } = e.data as { id: number; signature?: Hex; error?: string; ready?: true }
        if (ready) { this.worker = w; return }
        const p = this.pending.get(id)
        this.pending.delete(id)
        if (error) p?.reject(new Error(error)); else p?.resolve(signature!)
      }
      // A worker that fails hands its pending signatures back to the main thread: a signature never fails for it.
      w.onerror = () => {
        this.worker = null
        const pending = [...this.pending.values()]
        this.pending.clear()
        for (const p of pending) this.local(p.kind, p.message).then(p.resolve, p.reject)
      }
      w.postMessage({ init: this.privateKey, documents: this.documents })
      ;(w as Worker & { unref(): void }).unref() // never keeps the process alive
      this.starting = w
    } catch { /* signing stays in-process */ }
  }

  stopWorker(): void {
    this.workerWanted = false
    ;(this.worker ?? this.starting)?.terminate()
    this.worker = null
    this.starting = null
  }

  /** Whether signatures are made on the worker thread (the `taskgate_signing_worker` gauge). */
  get onWorker(): boolean { return this.worker !== null }

  private sign(kind: DocumentKind, message: Record<string, unknown>): Promise<Hex> {
    if (this.workerWanted) this.spawnWorker()
    const w = this.worker
    if (!w || (this.pending.size > 0 && this.mainIsIdle())) return this.local(kind, message)
    const id = ++this.seq
    return new Promise((resolve, reject) => { this.pending.set(id, { kind, message, resolve, reject }); w.postMessage({ id, kind, message }) })
  }

  async signReceipt(message: ReceiptMessage): Promise<SignedTypedData<Record<string, unknown>>> {
    const signature = await this.sign('receipt', message as unknown as Record<string, unknown>)
    return { payload: { domain: { ...this.receiptDomain }, types: RECEIPT_TYPES, primaryType: 'TaskReceipt', message: jsonSafe(message as unknown as Record<string, unknown>) }, signature, signer: this.address }
  }

  /** EIP-712 signature of an approval webhook's normalised fields (primary type ApprovalWebhook, all strings). */
  signWebhook(message: Record<string, string>): Promise<Hex> {
    return this.sign('webhook', message)
  }

  /** EIP-712 signature of another delivery (primary type WebhookDelivery: event, delivery id, body SHA-256). */
  signDelivery(message: { event: string; deliveryId: string; bodySha256: Hex }): Promise<Hex> {
    return this.sign('delivery', message)
  }

  /**
   * An EAS Version 2 offchain attestation, the object shape eas-sdk emits. Its UID hashes the
   * message, not the signature, so it is known at once; the signed attestation follows.
   */
  attest(a: { recipient?: `0x${string}`; time: bigint; data: Hex; salt: Hex; refUID?: Hex }) {
    const message = {
      version: 2, schema: TASK_SCHEMA_UID, recipient: a.recipient ?? zeroAddress, time: a.time, expirationTime: 0n,
      revocable: true, refUID: a.refUID ?? (`0x${'0'.repeat(64)}` as Hex), data: a.data, salt: a.salt,
    }
    const uid = offchainUid(message)
    const signed = this.sign('attestation', message)
      .then((signature) => {
        const { r, s, v } = splitSig(signature)
        return {
          uid,
          sig: { domain: { ...this.easDomain, chainId: String(this.chainId) }, primaryType: 'Attest', types: EAS_TYPES, message: jsonSafe(message), uid, version: 2, signature: { r, s, v } },
          signer: this.address,
          signatureHex: signature,
        }
      })
    return { uid, signed }
  }
}

/** The kinds of EIP-712 documents signed through sign() (on the signing worker when it runs). */
export type DocumentKind = 'receipt' | 'attestation' | 'webhook' | 'delivery'
export interface DocumentType { domain: Record<string, unknown>; types: Record<string, readonly { name: string; type: string }[]>; primaryType: string }

export interface ReceiptMessage {
  taskId: string; operatorId: string; agentId: string; taskType: string; model: string; provider: string
  promptHash: Hex; outputHash: Hex; ipfsCid: string; stateRoot: Hex; verificationScoreBps: number; verified: boolean
  verificationProof: Hex; attestationUid: Hex; creditsCharged: bigint; completedAt: bigint
}

export function encodeTaskAttestationData(d: { taskId: string; agentId: string; promptHash: Hex; outputHash: Hex; ipfsCid: string; stateRoot: Hex; verificationScoreBps: number; verified: boolean }): Hex {
  return encodeAbiParameters(taskSchemaParams ??= parseAbiParameters(TASK_SCHEMA), [d.taskId, d.agentId, d.promptHash, d.outputHash, d.ipfsCid, d.stateRoot, d.verificationScoreBps, d.verified])
}

/** EAS offchain UID (Version 2), as eas-sdk's Offchain.getOffchainUID computes it. */
export function offchainUid(m: { version: number; schema: Hex; recipient: `0x${string}`; time: bigint; expirationTime: bigint; revocable: boolean; refUID: Hex; data: Hex; salt: Hex }): Hex {
  return keccak256(hexToBytes(encodePacked(
    ['uint16', 'bytes', 'address', 'address', 'uint64', 'uint64', 'bool', 'bytes32', 'bytes', 'bytes32', 'uint32'],
    [m.version, toHex(m.schema), m.recipient, zeroAddress, m.time, m.expirationTime, m.revocable, m.refUID, m.data, m.salt, 0],
  )))
}

function splitSig(sig: Hex): { r: Hex; s: Hex; v: number } {
  return { r: `0x${sig.slice(2, 66)}`, s: `0x${sig.slice(66, 130)}`, v: parseInt(sig.slice(130, 132), 16) }
}

/** bigints become decimal strings so the signed objects are plain JSON. */
function jsonSafe<T extends Record<string, unknown>>(m: T): Record<string, unknown> {
  return Object.fromEntries(Object.entries(m).map(([k, v]) => [k, typeof v === 'bigint' ? v.toString() : v]))
}

/** Verifies a signed receipt object as stored on IPFS: recovers the signer from the typed data. */
export async function verifyReceipt(r: SignedTypedData<Record<string, unknown>>): Promise<boolean> {
  try {
    return await verifyTypedData({ address: r.signer, domain: r.payload.domain, types: r.payload.types, primaryType: r.payload.primaryType, message: r.payload.message, signature: r.signature } as Parameters<typeof verifyTypedData>[0])
  } catch { return false }
}
