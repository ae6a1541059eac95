// HTTP for the testnet money rails: the faucet, mock USDC look-ups, and x402 wallet state.
import { t } from 'elysia'
import { notFound } from '../http/errors'
import { defineRoute } from '../http/route'
import { EvmAddress, Hash32, PROBLEM_CODE } from '../http/schemas'
import type { Services } from '../services'
import { normalizeAddress, USDC_ADDRESS, USDC_DECIMALS, usdcString } from './usdc'

/** x402 defence state of a payer wallet (also the passport's `x402`). */
export const X402State = t.Object({
  blocked: t.Boolean(), reason: t.Union([t.String(), t.Null()], { description: 'e.g. REPEATED_INVALID_PAYMENTS' }), walletChecked: t.Union([t.String(), t.Null()]),
  rateLimitMax: t.Integer(), rateLimitRemaining: t.Union([t.Integer(), t.Null()]), rateLimitResetMs: t.Union([t.Integer(), t.Null()]), rateLimitResetUnix: t.Union([t.Integer(), t.Null()]),
})

const Transfer = t.Object({
  txHash: Hash32(), kind: t.Union([t.Literal('mint'), t.Literal('transfer')]), from: t.Union([t.String(), t.Null()], { description: 'lower-case address; null for mints' }), to: t.String(),
  amount: t.String({ description: 'USDC' }), amountUnits: t.Integer({ description: 'base units (6 decimals)' }), authNonce: t.Union([t.String(), t.Null()]), memo: t.Union([t.String(), t.Null()]),
  createdAt: t.String({ format: 'date-time' }), usedForCredits: t.Boolean({ description: 'already converted to credits by an X-402-Payment' }),
})

export function moneyRoutes(s: Services) {
  const tags = ['Payments']
  return [
    defineRoute({
      method: 'POST', path: '/api/v1/faucet/usdc', auth: 'optional', tags,
      body: t.Union([t.Object({
        wallet: t.Optional(EvmAddress('the wallet to mint to (default: the caller\'s bound wallet, else the developer wallet)')),
        amount: t.Optional(t.Number({ minimum: 0.000001, maximum: s.config.faucet.maxUsdc, description: `USDC (default ${s.config.faucet.defaultUsdc})`, [PROBLEM_CODE]: 'INVALID_AMOUNT' })),
      }), t.Null()]),
      summary: 'Testnet faucet: mint mock USDC to a wallet and pre-fund the payment gate',
      description: 'Body may be empty. `wallet` defaults to the caller\'s bound wallet, else the appliance\'s developer wallet; `amount` in USDC (default 10, max 100). The same amount is minted to the payment gate on the wallet\'s behalf. Credits (`creditsAdded`) go only to the operator that has bound this wallet, at most once per operator per rolling 24 h (else 0; `x402PaymentHeader` can turn the gate transfer into credits later, under the same once-a-day rule). One claim per wallet per 24 h (429 FAUCET_COOLDOWN with `cooldownUntil`, `retryAfterSeconds`); a claim below the default amount by anyone but the wallet\'s own operator does not start that cooldown. At most 5 calls per client address per rolling 24 h (TASKGATE_FAUCET_PER_ADDRESS_PER_DAY; 429 FAUCET_ADDRESS_LIMIT). 404 in the live phase.',
      errors: s.config.phase === 'testnet' ? { 400: ['INVALID_ADDRESS', 'INVALID_AMOUNT'], 429: ['FAUCET_COOLDOWN', 'FAUCET_ADDRESS_LIMIT'] } : { 404: ['ROUTE_NOT_FOUND'] }, // testnet only
      responses: { 200: { description: 'minted', schema: t.Object({
        wallet: t.String(), devWalletTxHash: t.String(), paymentAddressTxHash: t.String(), usdcMinted: t.String(), creditsAdded: t.Integer(),
        cooldownUntil: t.String(), paymentAddress: t.String(), walletBalance: t.String(), instructions: t.String(),
        x402PaymentHeader: t.Union([t.String(), t.Null()], { description: 'a ready X-402-Payment value when no operator received the credits yet' }),
      }) } },
      handler: ({ body, auth, ip }) => s.faucet.drip(body ?? {}, auth, ip),
    }),
    defineRoute({
      method: 'GET', path: '/api/v1/usdc/:address', auth: 'none', tags, params: t.Object({ address: EvmAddress() }),
      summary: 'Mock USDC balance of an address',
      responses: { 200: { description: 'balance', schema: t.Object({ address: t.String(), balance: t.String(), balanceUnits: t.Integer(), decimals: t.Integer(), asset: t.String() }) } },
      handler: ({ params }) => {
        const address = normalizeAddress(params.address)
        const u = s.usdc.balanceOf(address)
        return { address, balance: usdcString(u), balanceUnits: u, decimals: USDC_DECIMALS, asset: USDC_ADDRESS }
      },
    }),
    defineRoute({
      method: 'GET', path: '/api/v1/usdc/tx/:hash', auth: 'none', tags, params: t.Object({ hash: Hash32('tx hash') }),
      summary: 'A mock USDC transfer by tx hash',
      errors: { 404: ['NOT_FOUND'] },
      responses: { 200: { description: 'transfer', schema: Transfer } },
      handler: ({ params }) => {
        const tx = s.usdc.transferByHash(params.hash)
        if (!tx) throw notFound('transaction')
        return { ...tx, amount: usdcString(tx.amount), amountUnits: tx.amount, createdAt: new Date(tx.createdAt).toISOString(), usedForCredits: s.x402.txUsed(tx.txHash) }
      },
    }),
    defineRoute({
      method: 'GET', path: '/api/v1/x402/wallets/:address', auth: 'none', tags, params: t.Object({ address: EvmAddress() }),
      summary: 'x402 defence state of a payer wallet (block list, hourly limit)',
      responses: { 200: { description: 'state', schema: X402State } },
      handler: ({ params }) => s.x402.walletState(normalizeAddress(params.address)),
    }),
  ]
}
