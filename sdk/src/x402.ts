// Paying a 402 with x402 (scheme "exact"): the payer signs an EIP-3009 transferWithAuthorization
// of the asked amount to `payTo`, and the request is sent again with the result in a payment
// header: x402 v2's PAYMENT-SIGNATURE when the 402 carries a PAYMENT-REQUIRED header, else v1's
// X-PAYMENT from the body's `accepts`. TaskGate settles it on its USDC ledger and answers with
// PAYMENT-RESPONSE (v2) or X-PAYMENT-RESPONSE (v1) (docs/payments.md).
import { getAddress, toHex, type Hex, type LocalAccount } from 'viem'

/** One entry of a 402's `accepts`: x402 v1 names the amount `maxAmountRequired`, v2 `amount` (and the network in CAIP-2, `eip155:84532`). */
export interface X402Requirement {
  scheme: string
  network: string
  /** v1: USDC base units (6 decimals) */
  maxAmountRequired?: string
  /** v2: USDC base units (6 decimals) */
  amount?: string
  payTo: string
  /** the USDC contract */
  asset: string
  maxTimeoutSeconds: number
  resource?: string
  /** the asset's EIP-712 domain name and version */
  extra?: { name?: string; version?: string }
}

/** Who pays: a viem account that can sign typed data (privateKeyToAccount, mnemonicToAccount, …). */
export type X402Payer = Pick<LocalAccount, 'address' | 'signTypedData'>

export interface X402Options {
  /** the time to sign for, in seconds (default: now) */
  now?: number
  /** 32 random bytes by default */
  nonce?: Hex
}

const CHAIN_IDS: Record<string, number> = { 'base-sepolia': 84532, base: 8453, 'eip155:84532': 84532, 'eip155:8453': 8453 }

const TRANSFER_WITH_AUTHORIZATION = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' }, { name: 'to', type: 'address' }, { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' }, { name: 'validBefore', type: 'uint256' }, { name: 'nonce', type: 'bytes32' },
  ],
} as const

/** A 402 answer: its headers (PAYMENT-REQUIRED, x402 v2) and its parsed body (v1 `accepts`, or the OpenAI door's `x402`). */
export interface X402Answer { headers: Pick<Headers, 'get'>; body?: unknown }

/**
 * The payment header that pays what a 402 answer asks, as `{ name: value }` to add to the retried
 * request: `PAYMENT-SIGNATURE` (x402 v2) when `answer` has a PAYMENT-REQUIRED header, else
 * `X-PAYMENT` (x402 v1) from its body. `answer` is the 402's `{ headers, body }` (openapi-fetch:
 * `{ headers: r.response.headers, body: r.error }`), or its body alone (then v1). The body may be
 * the REST API's problem (`accepts`) or the OpenAI door's error (`x402`). Throws when it asks for
 * nothing this helper can pay ("exact" on Base or Base Sepolia).
 */
export async function payWithX402(answer: X402Answer | unknown, account: X402Payer, options: X402Options = {}): Promise<Record<string, string>> {
  const a = answer as Partial<X402Answer> | null
  const v2 = typeof a?.headers?.get === 'function' ? a.headers.get('payment-required') : null
  if (v2) {
    const required = JSON.parse(atob(v2)) as { x402Version?: number; resource?: unknown; accepts?: unknown }
    if (required.x402Version !== 2) throw new Error('PAYMENT-REQUIRED is not x402 version 2')
    const req = payable(required.accepts, 'amount')
    const payload = await authorize(req, req.amount!, account, options)
    return { 'PAYMENT-SIGNATURE': btoa(JSON.stringify({ x402Version: 2, resource: required.resource, accepted: req, payload })) }
  }
  const body = (typeof a?.headers?.get === 'function' ? a.body : answer) as { accepts?: unknown; x402?: { accepts?: unknown } } | null
  const req = payable(body?.accepts ?? body?.x402?.accepts, 'maxAmountRequired')
  const payload = await authorize(req, req.maxAmountRequired!, account, options)
  return { 'X-PAYMENT': btoa(JSON.stringify({ x402Version: 1, scheme: 'exact', network: req.network, payload })) } // ASCII only: addresses, digits and hex
}

/** The EIP-3009 authorization of `value` to the requirement's `payTo`, signed by the payer. */
async function authorize(req: X402Requirement, value: string, account: X402Payer, options: X402Options) {
  const now = Math.floor(options.now ?? Date.now() / 1000)
  const authorization = {
    from: account.address,
    to: getAddress(req.payTo),
    value,
    // a little before now, so a payer's clock running ahead of the server's does not matter
    validAfter: String(now - 600),
    validBefore: String(now + req.maxTimeoutSeconds),
    nonce: options.nonce ?? toHex(crypto.getRandomValues(new Uint8Array(32))),
  }
  const signature = await account.signTypedData({
    domain: { name: req.extra?.name, version: req.extra?.version, chainId: CHAIN_IDS[req.network]!, verifyingContract: getAddress(req.asset) },
    types: TRANSFER_WITH_AUTHORIZATION,
    primaryType: 'TransferWithAuthorization',
    message: { ...authorization, value: BigInt(authorization.value), validAfter: BigInt(authorization.validAfter), validBefore: BigInt(authorization.validBefore) },
  })
  return { signature, authorization }
}

function payable(accepts: unknown, amountField: 'amount' | 'maxAmountRequired'): X402Requirement {
  if (!Array.isArray(accepts)) throw new Error('not an x402 payment request: no `accepts` (nor `x402.accepts`)')
  const req = (accepts as X402Requirement[]).find((a) => a?.scheme === 'exact' && a.network in CHAIN_IDS)
  if (!req) throw new Error(`no payable requirement among ${accepts.length}: only scheme "exact" on ${Object.keys(CHAIN_IDS).join(' or ')}`)
  if (!/^[0-9]+$/.test(req[amountField] ?? '') || !Number.isInteger(req.maxTimeoutSeconds)) throw new Error('malformed x402 requirement')
  return req
}
