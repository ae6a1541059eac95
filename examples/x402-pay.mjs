// Pays for a task with x402 v2 and the faucet's mock USDC, with Coinbase's x402 client in its
// default configuration (the README's payment snippet): no TaskGate code on the client side.
//
//   TASKGATE_URL=http://127.0.0.1:8787 TASKGATE_API_KEY=tg_… node x402-pay.mjs
//
// A fresh wallet gets mock USDC from the faucet (testnet; no credential needed). The agent then
// submits a data_analysis task: an operator whose balance does not cover it gets 402
// with the x402 requirements, @x402/fetch signs an EIP-3009 authorization and retries with
// PAYMENT-SIGNATURE, and TaskGate settles it and runs the task. Checks: the task COMPLETED, the
// PAYMENT-RESPONSE header names this wallet and a transaction on the eip155:84532 network, and the
// wallet paid exactly the price. (The agent needs the data_analysis capability; an operator whose
// credits cover the task is not asked to pay, and the script says so. run-all.sh prices data_analysis
// at 50 credits, TASKGATE_TASK_COST, and gives FREE operators 20.)
import { decodePaymentResponseHeader, wrapFetchWithPayment, x402Client } from '@x402/fetch'
import { registerExactEvmScheme } from '@x402/evm/exact/client'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'

const url = (process.env.TASKGATE_URL ?? 'http://127.0.0.1:8787').replace(/\/+$/, '')
const apiKey = process.env.TASKGATE_API_KEY
if (!apiKey) { console.error('set TASKGATE_API_KEY to an agent\'s key'); process.exit(2) }
const fail = (why) => { console.error(`FAILED: ${why}`); process.exit(1) }

const whoami = await (await fetch(`${url}/api/v1/whoami`, { headers: { 'x-api-key': apiKey } })).json()
if (!whoami.agentId) fail('TASKGATE_API_KEY is not an agent\'s key')

// 1. A wallet with mock USDC.
const account = privateKeyToAccount(generatePrivateKey())
const drip = await fetch(`${url}/api/v1/faucet/usdc`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ wallet: account.address, amount: 10 }) })
if (drip.status !== 200) fail(`faucet → ${drip.status}: ${await drip.text()}`)
const balance = async () => (await (await fetch(`${url}/api/v1/usdc/${account.address}`)).json()).balanceUnits
const before = await balance()
console.log(`wallet ${account.address}: ${before / 1e6} mock USDC from the faucet`)

// 2. The README's snippet: Coinbase's client, default configuration (x402 v2, and v1).
const pay = wrapFetchWithPayment(fetch, registerExactEvmScheme(new x402Client(), { signer: account }))
const body = JSON.stringify({ agentId: whoami.agentId, taskType: 'data_analysis', prompt: 'Analyse: revenue rose 12% while costs fell 3%. What changed?' })
const res = await pay(`${url}/api/v1/tasks/submit`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body })
const task = await res.json()
if (res.status !== 200 || task.status !== 'COMPLETED') fail(`the task did not complete (${res.status}): ${JSON.stringify(task).slice(0, 400)}`)
console.log(`task ${task.id}: ${task.status}, ${task.creditsCharged} credits, receiptCid: ${task.receiptCid}`)

// 3. What the payment did.
const header = res.headers.get('payment-response')
if (!header) { console.log('not asked to pay: the operator\'s credits covered the task'); process.exit(0) }
const settled = decodePaymentResponseHeader(header)
console.log(`paid with x402 v2: transaction ${settled.transaction} on ${settled.network} by ${settled.payer}`)
if (!settled.success || settled.payer !== account.address || settled.network !== 'eip155:84532') fail('PAYMENT-RESPONSE does not name this wallet on eip155:84532')
const tx = await (await fetch(`${url}/api/v1/usdc/tx/${settled.transaction}`)).json()
const after = await balance()
if (before - after !== tx.amountUnits || tx.from !== account.address.toLowerCase()) fail(`the wallet paid ${before - after} units, the transfer says ${tx.amountUnits} from ${tx.from}`)
console.log(`the wallet paid ${(before - after) / 1e6} USDC, once: OK`)
