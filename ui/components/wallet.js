// The billing page's wallet card: the testnet faucet and EIP-712 wallet binding with a browser wallet.
import { clearBanner } from './banner.js'
import { dash, dateCell, mono } from './cells.js'
import { dl } from './layout.js'
import { api, ApiError } from '../lib/api.js'
import { fill, h } from '../lib/dom.js'
import { fmtInt } from '../lib/format.js'
import { state } from '../lib/session.js'

export function walletSection(card, ctx, me, config, refresh) {
  const faucetSlot = h('div', { class: 'faucet-result', 'aria-live': 'polite' })
  const bindSlot = h('div', { 'aria-live': 'polite' })
  const faucetOn = config['faucet.enabled'] !== false
  const faucetBtn = h('button', { type: 'button' }, 'Get testnet USDC')
  faucetBtn.addEventListener('click', async () => {
    faucetBtn.disabled = true
    clearBanner()
    fill(faucetSlot, h('p', { class: 'muted' }, 'Minting…'))
    try {
      const r = await api('POST', '/api/v1/faucet/usdc', {})
      if (!ctx.alive()) return
      fill(faucetSlot, h('div', { class: 'note success' },
        h('strong', null, `${r.usdcMinted} test USDC minted`), r.creditsAdded ? ` and ${fmtInt(r.creditsAdded)} credits added.` : '.',
        dl([
          ['Wallet', mono(r.wallet)],
          ['Wallet balance', r.walletBalance != null ? `${r.walletBalance} USDC` : dash()],
          ['Credits added', fmtInt(r.creditsAdded || 0)],
          ['Next faucet use', dateCell(r.cooldownUntil, '—')],
        ]),
        r.instructions ? h('p', { class: 'small note-after' }, r.instructions) : null))
      await refresh()
    } catch (err) {
      if (!ctx.alive()) return
      if (err instanceof ApiError && err.status === 429 && err.problem.cooldownUntil) {
        const until = err.problem.cooldownUntil
        const hours = Math.max(1, Math.ceil((new Date(until).getTime() - Date.now()) / 3600000))
        fill(faucetSlot, h('div', { class: 'note' }, h('strong', null, 'The faucet was used recently. '),
          'Each wallet gets one top-up per 24 hours; try again after ', dateCell(until), ` (about ${hours} h).`,
          me && me.walletAddress ? null : h('div', { class: 'small note-after' }, 'Without a bound wallet the faucet uses the appliance\'s shared developer wallet; bind your own wallet to get a top-up of your own.')))
      } else if (err instanceof ApiError && err.status === 404) {
        fill(faucetSlot, h('div', { class: 'note' }, 'The faucet is only available on testnet.'))
      } else {
        faucetSlot.replaceChildren()
        ctx.error(err)
      }
    } finally {
      faucetBtn.disabled = false
    }
  })

  const bindPoints = config['leaderboard.pioneer.walletBindPoints']
  const hasWallet = typeof window.ethereum === 'object' && window.ethereum && typeof window.ethereum.request === 'function'
  const bindBtn = h('button', { type: 'button', class: me && me.walletAddress ? 'secondary' : null }, me && me.walletAddress ? 'Bind another wallet' : 'Bind wallet')
  bindBtn.addEventListener('click', async () => {
    bindBtn.disabled = true
    clearBanner()
    fill(bindSlot, h('p', { class: 'muted' }, 'Waiting for the wallet…'))
    try {
      const res = await bindWallet(window.ethereum)
      if (!ctx.alive()) return
      fill(bindSlot, h('div', { class: 'note success' }, 'Wallet ', h('code', null, res.walletAddress), ' bound.',
        res.firstBind && res.pointsAwarded ? ` ${fmtInt(res.pointsAwarded)} pioneer points awarded.` : ''))
      await refresh()
      if (ctx.alive()) walletSection(card, ctx, state.me, config, refresh)
      if (ctx.alive()) card.querySelector('.bind-slot')?.replaceWith(bindSlot)
    } catch (err) {
      if (!ctx.alive()) return
      bindSlot.replaceChildren()
      ctx.error(err)
    } finally {
      bindBtn.disabled = false
    }
  })
  bindSlot.classList.add('bind-slot')

  fill(card,
    h('h2', null, 'Wallet'),
    dl([
      ['Bound wallet', me && me.walletAddress ? h('code', null, me.walletAddress) : h('span', { class: 'muted' }, 'none')],
      ['Network', config['network.phase'] ? `${config['network.phase']}` : dash()],
      typeof config['x402.pricePerCreditUsdc'] === 'number' ? ['Price', `${config['x402.pricePerCreditUsdc']} USDC per credit (x402)`] : null,
    ]),
    h('div', { class: 'wallet-actions' },
      h('div', { class: 'wallet-box' },
        h('h3', null, 'Testnet faucet'),
        faucetOn
          ? [h('p', { class: 'muted small' }, 'Mints mock USDC to your bound wallet (or the appliance\'s developer wallet) and adds the same value as credits to your balance. Once per wallet per 24 hours.'), faucetBtn, faucetSlot]
          : h('p', { class: 'muted small' }, 'The faucet is off on this network.')),
      h('div', { class: 'wallet-box' },
        h('h3', null, me && me.walletAddress ? 'Change wallet' : 'Bind a wallet'),
        hasWallet
          ? [h('p', { class: 'muted small' }, `Sign an EIP-712 message with your browser wallet to prove you own it.${bindPoints && !(me && me.walletAddress) ? ` The first bind earns ${fmtInt(bindPoints)} pioneer points.` : ''}`), bindBtn, bindSlot]
          : bindInstructions(bindPoints))))
}

function bindInstructions(points) {
  return h('div', { class: 'small' },
    h('p', { class: 'muted' }, 'Binding needs a browser wallet (such as MetaMask) that can sign EIP-712 typed data; none was found in this browser. Install one and reload, or bind through the API:'),
    h('ol', { class: 'steps' },
      h('li', null, h('code', null, 'GET /api/v1/operator/wallet/nonce'), ' returns a single-use ', h('code', null, 'nonce'), ' (valid 10 minutes) and ready-to-sign ', h('code', null, 'typedData'), '.'),
      h('li', null, 'Set ', h('code', null, 'typedData.message.wallet'), ' to your address and sign it with ', h('code', null, 'eth_signTypedData_v4'), ' (or viem / ethers ', h('code', null, 'signTypedData'), ').'),
      h('li', null, h('code', null, 'POST /api/v1/operator/wallet'), ' with ', h('code', null, '{ walletAddress, signature, nonce }'), '.')),
    points ? h('p', { class: 'muted' }, `The first bind earns ${fmtInt(points)} pioneer points.`) : null,
    h('p', null, h('a', { href: '/docs' }, 'API reference →')))
}

function walletError(err, fallback) {
  const code = err && err.code
  if (code === 4001) return new Error('The request was rejected in the wallet.')
  const msg = err && (err.message || (err.data && err.data.message))
  return new Error(msg ? `${fallback}: ${msg}` : fallback)
}

/** EIP-712 wallet binding with window.ethereum: nonce → eth_signTypedData_v4 → POST /operator/wallet. */
async function bindWallet(eth) {
  let accounts
  try { accounts = await eth.request({ method: 'eth_requestAccounts' }) } catch (err) { throw walletError(err, 'The wallet did not share an account') }
  const account = Array.isArray(accounts) && accounts[0]
  if (!account) throw new Error('The wallet did not share an account.')
  const n = await api('GET', '/api/v1/operator/wallet/nonce')
  const domain = n.typedData.domain
  // Wallets refuse to sign typed data for another chain than the active one.
  try {
    const current = await eth.request({ method: 'eth_chainId' })
    if (current && domain.chainId && parseInt(current, 16) !== Number(domain.chainId)) {
      await eth.request({ method: 'wallet_switchEthereumChain', params: [{ chainId: `0x${Number(domain.chainId).toString(16)}` }] })
    }
  } catch (err) {
    if (err && err.code === 4001) throw walletError(err)
    throw new Error(`Switch your wallet to chain id ${domain.chainId} and try again.`)
  }
  const domainTypes = [['name', 'string'], ['version', 'string'], ['chainId', 'uint256'], ['verifyingContract', 'address'], ['salt', 'bytes32']]
    .filter(([k]) => domain[k] !== undefined).map(([name, type]) => ({ name, type }))
  const typedData = {
    ...n.typedData,
    types: { EIP712Domain: domainTypes, ...n.typedData.types },
    message: { ...n.typedData.message, wallet: account },
  }
  let signature
  try {
    signature = await eth.request({ method: 'eth_signTypedData_v4', params: [account, JSON.stringify(typedData)] })
  } catch (err) { throw walletError(err, 'The wallet did not sign') }
  return api('POST', '/api/v1/operator/wallet', { walletAddress: account, signature, nonce: n.nonce })
}
