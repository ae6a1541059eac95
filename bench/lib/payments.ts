// What paying per request with x402 costs: POST /api/v1/tasks/submit with an X-PAYMENT header
// (x402 v1 "exact": an EIP-3009 transferWithAuthorization, verified and settled by the server on
// its mock USDC ledger), and with a PAYMENT-SIGNATURE header (x402 v2: the same authorization in
// v2's envelope, decoded and validated with @x402/core), against the same submit paid from
// existing credits.
//
// Setup (setupPayments), on a dedicated server started with FREE monthly credits 0 and a large
// x402 hourly limit (bench/run.ts): two operators sign up (FREE, balance 0); the admin gives both
// the ENTERPRISE tier override (limits only: the credit account was opened at sign-up with 0) so
// that each can make an operator API key with rateLimitRpm 1,000,000 (a FREE or agent-bound key is
// held to 60 or 6,000 requests per minute, which the load below exceeds); "credits" is granted
// 100,000 credits, "paid" keeps 0 and must pay for every task. Payer wallets are fresh viem
// accounts funded by the faucet (100 USDC each = 10,000 tasks at 0.01 USDC).
//
// Method (measurePayments), one client (this Bun process, fetch with keep-alive):
//   sequential  rounds of one v1 paid, one v2 paid and one credits submit, in rotating order; the
//               payment headers are signed (./x402-header, viem, fresh nonce) before the round
//               starts, so signing is not in the timed request; the signing time is reported
//               apart. The first `warmup` rounds are discarded. cost = paid − credits, per
//               percentile (a difference of percentiles), for each version.
//   concurrent  `concurrency` async clients loop on submits for warm-up + measured seconds; the
//               paid run takes pre-signed headers from a queue (signed before the load; one wallet
//               pays up to 9,000 of them, then the next), so signing does not limit the rate. tasks/s = 200 COMPLETED
//               responses finished within the measured window / its length; CPU = server process.
//   history     after the load, rounds of one paid submit by the load's first wallet (it paid for
//               the whole paid load, up to 9,000 payments, in the last minute) and one by the
//               sequential wallet (a few hundred): the gate counts a payer's payments of the last hour
//               on every payment.
//   for scale   viem verifyTypedData (the signature check the server makes) timed in this process.
import { getAddress, verifyTypedData, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { stats, type LatencyStats } from './pipeline'
import { cpuBetween, readCpu } from './proc'
import { createPaymentHeader, createPaymentSignature, type Requirements, type RequiredV2 } from './x402-header'

export const PAYMENTS_METHOD = [
  'dedicated server (TASKGATE_TIERS_FREE_MONTHLY_CREDITS=0, TASKGATE_X402_MAX_PAID_PER_HOUR=1000000); two signed-up operators with',
  'ENTERPRISE override and an operator API key (1,000,000 rpm): "paid" has 0 credits and pays every submit with x402',
  '(x402 exact, 0.01 USDC, wallet funded by the faucet), "credits" was granted 100,000 credits; builtin sentiment_analysis task.',
  'sequential: one client, rounds of one v1 paid (X-PAYMENT) + one v2 paid (PAYMENT-SIGNATURE) + one credits submit (rotating',
  '  order); payment headers are signed before the round, outside the timed request. cost = paid − credits per percentile.',
  'concurrent: N async clients on one keep-alive fetch pool; paid headers pre-signed (one wallet pays up to 9,000, then the next).',
  'history: after the load, alternating paid submits by the load\'s first wallet (it paid for the whole load) and the sequential wallet.',
].join('\n')

const PROMPT = 'The new release is fast and the support team was wonderful, although the setup guide could be clearer.'
/** payments per wallet we plan for: the faucet gives 100 USDC = 10,000 tasks at 0.01 USDC */
const PAYMENTS_PER_WALLET = 9_000
const FAUCET_USDC = 100

export interface PaymentsActor { operatorId: string; agentId: string; apiKey: string; token: string }
export interface PaymentsSetup { url: string; paid: PaymentsActor; credits: PaymentsActor; requirements: Requirements; requiredV2: RequiredV2 }

export interface Failure { phase: string; status: number; body: string }

export interface LoadResult {
  concurrency: number; warmupS: number; durationS: number; measuredS: number
  completed: number; failed: number; tasksPerS: number
  latency: LatencyStats
  /** server process CPU in cores; cpuMsPerTask = its CPU (all threads) per COMPLETED task over the measured run, including requests that finished just after the window */
  cpuCores: number | null; cpuMsPerTask: number | null
  /** the paid run ran out of pre-signed headers before the end */
  headersExhausted: boolean
}

export interface PaymentsResult {
  method: string
  warmup: number
  samples: number
  sequential: {
    paid: LatencyStats
    /** paid with x402 v2 (PAYMENT-SIGNATURE) */
    paidV2: LatencyStats
    credits: LatencyStats
    /** paid − credits, per statistic (difference of percentiles): v1, and v2 */
    costMs: { p50: number; p90: number; p99: number; mean: number }
    costV2Ms: { p50: number; p90: number; p99: number; mean: number }
    /** createPaymentHeader on the client, per paid request (not inside the timed requests) */
    signing: LatencyStats
  }
  concurrent: {
    presigned: number; presignS: number; presignMsPerHeader: number; wallets: number
    paid: LoadResult; credits: LoadResult
  }
  /** paid submits by a payer with many payments this hour against one with few (alternating, sequential) */
  history: { heavyPayments: number; heavy: LatencyStats; lightPayments: number; light: LatencyStats; diffP50Ms: number }
  /** viem verifyTypedData of an X-PAYMENT authorization, in the bench process (the check the server makes) */
  verifyInBench: LatencyStats
  checks: {
    /** the paid operator's credit balance at the end (every payment buys the one credit its task spends: 0) */
    paidOperatorBalance: number | null
    /** USDC spent by the sequential wallet as the ledger shows it, and what the bench expected */
    sequentialWalletSpentUsdc: number | null; sequentialWalletExpectedUsdc: number
  }
  failures: Failure[]
  failureCount: number
  failuresByStatus: Record<string, number>
}

async function api<T>(url: string, init: { method?: string; headers?: Record<string, string>; body?: unknown; expect?: number } = {}): Promise<{ status: number; body: T }> {
  const res = await fetch(url, {
    method: init.method ?? 'GET',
    headers: { ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}), ...init.headers },
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
  })
  const text = await res.text()
  const want = init.expect
  if (want !== undefined ? res.status !== want : !res.ok) throw new Error(`${init.method ?? 'GET'} ${url} → ${res.status}${want !== undefined ? ` (expected ${want})` : ''}: ${text.slice(0, 500)}`)
  return { status: res.status, body: JSON.parse(text) as T }
}

/** Signs up an operator, gives it the ENTERPRISE override, an agent and an operator API key. */
async function actor(url: string, adminBearer: Record<string, string>, login: string): Promise<PaymentsActor> {
  const { body: tok } = await api<{ accessToken: string }>(`${url}/api/v1/auth/signup`, { method: 'POST', body: { login, password: 'benchpassword' }, expect: 201 })
  const bearer = { authorization: `Bearer ${tok.accessToken}` }
  const { body: me } = await api<{ id: string }>(`${url}/api/v1/auth/me`, { headers: bearer })
  await api(`${url}/api/v1/admin/operators/${me.id}`, { method: 'PATCH', headers: adminBearer, body: { tierOverride: 'ENTERPRISE' } })
  const { body: agent } = await api<{ agentId: string; apiKey: string }>(`${url}/api/v1/agents/register`, {
    method: 'POST', headers: bearer, body: { displayName: `bench-${login}`, capabilities: ['sentiment_analysis'] },
  })
  const { body: key } = await api<{ key: string }>(`${url}/api/v1/operator/keys`, { method: 'POST', headers: bearer, body: { name: `bench-${login}`, rateLimitRpm: 1_000_000 } })
  return { operatorId: me.id, agentId: agent.agentId, apiKey: key.key, token: tok.accessToken }
}

export async function setupPayments(url: string, adminToken: string): Promise<PaymentsSetup> {
  const adminBearer = { authorization: `Bearer ${adminToken}` }
  const paid = await actor(url, adminBearer, 'benchpayer')
  const credits = await actor(url, adminBearer, 'benchcredits')
  await api(`${url}/api/v1/admin/credits`, { method: 'POST', headers: { ...adminBearer, 'idempotency-key': 'bench-credits' }, body: { operatorId: credits.operatorId, amount: 100_000, reason: 'bench' } })
  // The paid operator has no credits: a submit without payment is 402 with the x402 requirements.
  const res = await fetch(`${url}/api/v1/tasks/submit`, {
    method: 'POST', headers: { 'x-api-key': paid.apiKey, 'content-type': 'application/json' }, body: JSON.stringify({ agentId: paid.agentId, taskType: 'sentiment_analysis', prompt: PROMPT }),
  })
  const body = await res.json() as { accepts?: Requirements[] }
  const requirements = body.accepts?.[0]
  const v2 = res.headers.get('payment-required')
  if (res.status !== 402 || !requirements || !v2) throw new Error(`expected 402 with accepts[0] and PAYMENT-REQUIRED, got ${res.status}: ${JSON.stringify(body).slice(0, 500)}`)
  return { url, paid, credits, requirements, requiredV2: JSON.parse(Buffer.from(v2, 'base64').toString('utf8')) as RequiredV2 }
}

async function fundedWallet(url: string): Promise<PrivateKeyAccount> {
  const account = privateKeyToAccount(generatePrivateKey())
  await api(`${url}/api/v1/faucet/usdc`, { method: 'POST', body: { wallet: account.address, amount: FAUCET_USDC } })
  return account
}

async function usdcBalance(url: string, address: string): Promise<number | null> {
  try { return Number((await api<{ balance: string }>(`${url}/api/v1/usdc/${address}`)).body.balance) } catch { return null }
}

export interface PaymentsOptions {
  setup: PaymentsSetup
  serverPid: number
  warmup: number
  samples: number
  concurrency: number
  warmupS: number
  durationS: number
  log?: (s: string) => void
}

export async function measurePayments(o: PaymentsOptions): Promise<PaymentsResult> {
  const { setup } = o
  const submitUrl = `${setup.url}/api/v1/tasks/submit`
  const bodyOf = (a: PaymentsActor) => JSON.stringify({ agentId: a.agentId, taskType: 'sentiment_analysis', prompt: PROMPT })
  const paidBody = bodyOf(setup.paid)
  const creditsBody = bodyOf(setup.credits)
  /** a payment: X-PAYMENT (v1) or PAYMENT-SIGNATURE (v2), each answered by its own response header */
  type Payment = { version: 1 | 2; header: string }
  const paidHeaders = (p: Payment) => ({ 'content-type': 'application/json', 'x-api-key': setup.paid.apiKey, [p.version === 2 ? 'payment-signature' : 'x-payment']: p.header })
  const creditsHeaders = { 'content-type': 'application/json', 'x-api-key': setup.credits.apiKey }

  const failures: Failure[] = []
  const failuresByStatus: Record<string, number> = {}
  let failureCount = 0
  const fail = (phase: string, status: number, body: string) => {
    failureCount++
    failuresByStatus[status] = (failuresByStatus[status] ?? 0) + 1
    if (failures.length < 10) failures.push({ phase, status, body: body.slice(0, 500) })
  }

  /** One submit; returns the wall time in ms, or null (recorded as a failure) when it is not a 200 COMPLETED as expected. */
  const submit = async (phase: string, payment: Payment | string | null): Promise<number | null> => {
    const pay: Payment | null = typeof payment === 'string' ? { version: 1, header: payment } : payment
    const init = pay
      ? { method: 'POST', headers: paidHeaders(pay), body: paidBody }
      : { method: 'POST', headers: creditsHeaders, body: creditsBody }
    let status = 0
    let text = ''
    let receipt: string | null = null
    const t0 = performance.now()
    try {
      const res = await fetch(submitUrl, init)
      text = await res.text()
      status = res.status
      receipt = res.headers.get(pay?.version === 2 ? 'payment-response' : 'x-payment-response')
    } catch (e) {
      fail(phase, 0, `fetch failed: ${e instanceof Error ? e.message : String(e)}`)
      return null
    }
    const ms = performance.now() - t0
    if (status !== 200 || !text.includes('"status":"COMPLETED"')) { fail(phase, status, text); return null }
    if (pay) {
      let ok = false
      try { ok = receipt !== null && (JSON.parse(Buffer.from(receipt, 'base64').toString('utf8')) as { success?: boolean }).success === true } catch { /* reported below */ }
      if (!ok) { fail(phase, status, `200 COMPLETED but ${pay.version === 2 ? 'payment-response' : 'x-payment-response'} is ${receipt === null ? 'missing' : `not a success receipt: ${receipt}`}`); return null }
    } else if (receipt !== null) {
      fail(phase, status, `credits submit answered with x-payment-response ${receipt}`)
      return null
    }
    return ms
  }

  // ---- sequential
  const seqWallet = await fundedWallet(setup.url)
  const times = { paid: [] as number[], paidV2: [] as number[], credits: [] as number[], sign: [] as number[] }
  const total = o.warmup + o.samples
  let paidSettled = 0
  for (let i = 0; i < total; i++) {
    const measured = i >= o.warmup
    const s0 = performance.now()
    const header = await createPaymentHeader(seqWallet, 1, setup.requirements)
    const signMs = performance.now() - s0
    const signature = await createPaymentSignature(seqWallet, setup.requiredV2)
    const paid = (version: 1 | 2) => async () => {
      const ms = await submit(`sequential paid v${version}${measured ? '' : ' (warm-up)'}`, { version, header: version === 2 ? signature : header })
      if (ms !== null) paidSettled++
      if (measured && ms !== null) (version === 2 ? times.paidV2 : times.paid).push(ms)
    }
    const credits = async () => {
      const ms = await submit(measured ? 'sequential credits' : 'sequential credits (warm-up)', null)
      if (measured && ms !== null) times.credits.push(ms)
    }
    if (measured) times.sign.push(signMs)
    const round = [paid(1), paid(2), credits]
    for (let k = 0; k < round.length; k++) await round[(i + k) % round.length]!()
  }
  const paidSeq = stats(times.paid)
  const paidV2Seq = stats(times.paidV2)
  const creditsSeq = stats(times.credits)
  const costOf = (p: LatencyStats) => ({ p50: p.p50Ms - creditsSeq.p50Ms, p90: p.p90Ms - creditsSeq.p90Ms, p99: p.p99Ms - creditsSeq.p99Ms, mean: p.meanMs - creditsSeq.meanMs })
  const seqSpent = await usdcBalance(setup.url, seqWallet.address)

  // ---- concurrent: pre-sign enough headers for ~2.5× the rate one client reached (at least 2,000)
  const perClientRate = 1000 / (paidSeq.p50Ms || 5)
  const want = Math.min(40_000, Math.max(2_000, Math.ceil(2.5 * perClientRate * Math.min(o.concurrency, 4) * (o.warmupS + o.durationS))))
  const walletCount = Math.ceil(want / PAYMENTS_PER_WALLET)
  const wallets: PrivateKeyAccount[] = []
  for (let i = 0; i < walletCount; i++) wallets.push(await fundedWallet(setup.url))
  o.log?.(`pre-signing ${want} X-PAYMENT headers over ${walletCount} wallet(s) ... `)
  const p0 = performance.now()
  const queue: string[] = []
  // wallet 0 pays first, up to PAYMENTS_PER_WALLET, then wallet 1, ...: one payer with a long history
  for (let i = 0; i < want; i++) queue.push(await createPaymentHeader(wallets[Math.floor(i / PAYMENTS_PER_WALLET)]!, 1, setup.requirements))
  let nextHeader = 0
  const presignS = (performance.now() - p0) / 1000
  // kept apart for the history rounds: wallet 0 (heavy after the load) and the sequential wallet
  const historyRounds = Math.max(20, Math.min(100, Math.round(o.samples / 3)))
  const heavyHeaders: string[] = []
  const lightHeaders: string[] = []
  for (let i = 0; i < historyRounds + 2; i++) {
    heavyHeaders.push(await createPaymentHeader(wallets[0]!, 1, setup.requirements))
    lightHeaders.push(await createPaymentHeader(seqWallet, 1, setup.requirements))
  }

  const load = async (phase: string, paid: boolean): Promise<LoadResult> => {
    let exhausted = false
    const run = async (seconds: number, measured: boolean) => {
      const end = performance.now() + seconds * 1000
      const lat: number[] = []
      let failed = 0
      let okAll = 0 // successes including those that finished after the window (the CPU reading covers them)
      let lastEnd = performance.now()
      const client = async () => {
        for (;;) {
          if (performance.now() >= end) return
          let header: string | null = null
          if (paid) {
            if (nextHeader >= queue.length) { exhausted = true; return }
            header = queue[nextHeader++]!
          }
          const ms = await submit(measured ? phase : `${phase} (warm-up)`, header)
          const now = performance.now()
          if (ms !== null) okAll++
          if (ms === null) failed++
          else if (now <= end) lat.push(ms) // like wrk: only what finished inside the window counts
          lastEnd = now
        }
      }
      const t0 = performance.now()
      await Promise.all(Array.from({ length: o.concurrency }, client))
      // the window is the full duration, or shorter when the paid run ran out of headers
      const windowS = (Math.min(end, exhausted ? lastEnd : end) - t0) / 1000
      return { lat, failed, windowS, okAll }
    }
    if (o.warmupS > 0) await run(o.warmupS, false)
    const cpu0 = readCpu(o.serverPid)
    const r = await run(o.durationS, true)
    const cpu = cpuBetween(cpu0, readCpu(o.serverPid))
    return {
      concurrency: o.concurrency, warmupS: o.warmupS, durationS: o.durationS, measuredS: r.windowS,
      completed: r.lat.length, failed: r.failed, tasksPerS: r.lat.length / r.windowS, latency: stats(r.lat),
      cpuCores: cpu ? cpu.cores : null, cpuMsPerTask: cpu && r.okAll ? (cpu.totalS * 1000) / r.okAll : null,
      headersExhausted: exhausted,
    }
  }
  const paidLoad = await load(`c=${o.concurrency} paid`, true)
  const creditsLoad = await load(`c=${o.concurrency} credits`, false)

  // ---- history: does a payer's payment count of the last hour slow its next payment?
  const paymentsBy = async (address: string) => {
    const bal = await usdcBalance(setup.url, address)
    return bal === null ? NaN : Math.round((FAUCET_USDC - bal) / (Number(setup.requirements.maxAmountRequired) / 1e6))
  }
  const heavyPayments = await paymentsBy(wallets[0]!.address)
  const lightPayments = await paymentsBy(seqWallet.address)
  const hist = { heavy: [] as number[], light: [] as number[] }
  for (let i = 0; i < historyRounds + 2; i++) {
    const measured = i >= 2
    const heavy = async () => { const ms = await submit('history heavy payer', heavyHeaders[i]!); if (measured && ms !== null) hist.heavy.push(ms) }
    const light = async () => { const ms = await submit('history light payer', lightHeaders[i]!); if (measured && ms !== null) hist.light.push(ms) }
    if (i % 2 === 0) { await heavy(); await light() } else { await light(); await heavy() }
  }
  const heavyStats = stats(hist.heavy)
  const lightStats = stats(hist.light)

  // ---- for scale: the server's signature check, timed here
  const verifyMs: number[] = []
  for (const h of [...queue.slice(0, 200), ...heavyHeaders].slice(0, 200)) {
    const x = JSON.parse(Buffer.from(h, 'base64').toString('utf8')) as { payload: { signature: Hex; authorization: { from: string; to: string; value: string; validAfter: string; validBefore: string; nonce: Hex } } }
    const a = x.payload.authorization
    const t0 = performance.now()
    const ok = await verifyTypedData({
      address: getAddress(a.from), domain: { name: 'USDC', version: '2', chainId: 84532, verifyingContract: getAddress(setup.requirements.asset) },
      types: { TransferWithAuthorization: [{ name: 'from', type: 'address' }, { name: 'to', type: 'address' }, { name: 'value', type: 'uint256' }, { name: 'validAfter', type: 'uint256' }, { name: 'validBefore', type: 'uint256' }, { name: 'nonce', type: 'bytes32' }] },
      primaryType: 'TransferWithAuthorization',
      message: { from: getAddress(a.from), to: getAddress(a.to), value: BigInt(a.value), validAfter: BigInt(a.validAfter), validBefore: BigInt(a.validBefore), nonce: a.nonce },
      signature: x.payload.signature,
    })
    verifyMs.push(performance.now() - t0)
    if (!ok) throw new Error('verifyTypedData rejected a header createPaymentHeader made')
  }

  const paidBalance = await api<{ balance: number }>(`${setup.url}/api/v1/credits/balance/${setup.paid.operatorId}`, { headers: { authorization: `Bearer ${setup.paid.token}` } })
    .then((r) => r.body.balance).catch(() => null)

  return {
    method: PAYMENTS_METHOD,
    warmup: o.warmup,
    samples: o.samples,
    sequential: {
      paid: paidSeq,
      paidV2: paidV2Seq,
      credits: creditsSeq,
      costMs: costOf(paidSeq),
      costV2Ms: costOf(paidV2Seq),
      signing: stats(times.sign),
    },
    concurrent: { presigned: want, presignS, presignMsPerHeader: (presignS * 1000) / want, wallets: walletCount, paid: paidLoad, credits: creditsLoad },
    history: { heavyPayments, heavy: heavyStats, lightPayments, light: lightStats, diffP50Ms: heavyStats.p50Ms - lightStats.p50Ms },
    verifyInBench: stats(verifyMs),
    checks: {
      paidOperatorBalance: paidBalance,
      sequentialWalletSpentUsdc: seqSpent === null ? null : Number((FAUCET_USDC - seqSpent).toFixed(6)),
      sequentialWalletExpectedUsdc: Number((paidSettled * Number(setup.requirements.maxAmountRequired) / 1e6).toFixed(6)),
    },
    failures,
    failureCount,
    failuresByStatus,
  }
}
