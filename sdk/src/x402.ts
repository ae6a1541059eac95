// Paying a 402 with x402 (v1, scheme "exact"): the payer signs an EIP-3009
// transferWithAuthorization of the asked amount to `payTo`, and the request is sent again with the
// result in the X-PAYMENT header. TaskGate settles it on its USDC ledger and answers with
// X-PAYMENT-RESPONSE (docs/money.md).
import { getAddress, toHex, type Hex, type LocalAccount } from 'viem'

/** One entry of a 402's `accepts`. */
export interface X402Requirement {
  scheme: string
  network: string
  /** USDC base units (6 decimals) */
  maxAmountRequired: string
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

const CHAIN_IDS: Record<string, number> = { 'base-sepolia': 84532, base: 8453 }

const TRANSFER_WITH_AUTHORIZATION = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' }, { name: 'to', type: 'address' }, { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' }, { name: 'validBefore', type: 'uint256' }, { name: 'nonce', type: 'bytes32' },
  ],
} as const

/**
 * The X-PAYMENT header value that pays what a 402 answer asks. `challenge` is that answer's body:
 * a problem with `accepts` (the REST API) or an OpenAI-shaped error with `x402` (under /v1/).
 * Throws when it asks for nothing this helper can pay (x402 v1 "exact" on Base or Base Sepolia).
 */
export async function payWithX402(challenge: unknown, account: X402Payer, options: X402Options = {}): Promise<string> {
  const req = requirementOf(challenge)
  const chainId = CHAIN_IDS[req.network]!
  const now = Math.floor(options.now ?? Date.now() / 1000)
  const authorization = {
    from: account.address,
    to: getAddress(req.payTo),
    value: req.maxAmountRequired,
    // a little before now, so a payer's clock running ahead of the server's does not matter
    validAfter: String(now - 600),
    validBefore: String(now + req.maxTimeoutSeconds),
    nonce: options.nonce ?? toHex(crypto.getRandomValues(new Uint8Array(32))),
  }
  const signature = await account.signTypedData({
    domain: { name: req.extra?.name, version: req.extra?.version, chainId, verifyingContract: getAddress(req.asset) },
    types: TRANSFER_WITH_AUTHORIZATION,
    primaryType: 'TransferWithAuthorization',
    message: { ...authorization, value: BigInt(authorization.value), validAfter: BigInt(authorization.validAfter), validBefore: BigInt(authorization.validBefore) },
  })
  const payment = { x402Version: 1, scheme: 'exact', network: req.network, payload: { signature, authorization } }
  return btoa(JSON.stringify(payment)) // ASCII only: addresses, digits and hex
}

function requirementOf(challenge: unknown): X402Requirement {
  const body = challenge as { accepts?: unknown; x402?: { accepts?: unknown } } | null
  const accepts = body?.accepts ?? body?.x402?.accepts
  if (!Array.isArray(accepts)) throw new Error('not an x402 payment request: no `accepts` (nor `x402.accepts`)')
  const req = (accepts as X402Requirement[]).find((a) => a?.scheme === 'exact' && a.network in CHAIN_IDS)
  if (!req) throw new Error(`no payable requirement among ${accepts.length}: only scheme "exact" on ${Object.keys(CHAIN_IDS).join(' or ')}`)
  if (!/^[0-9]+$/.test(req.maxAmountRequired) || !Number.isInteger(req.maxTimeoutSeconds)) throw new Error('malformed x402 requirement')
  return req
}
