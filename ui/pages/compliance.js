// #/compliance: accepting the Terms of Service, compliance certificates, and the account export.
import { clearBanner } from '../components/banner.js'
import { dash, dateCell, ipfsLink, mono, tierBadge } from '../components/cells.js'
import { dl, pageHead } from '../components/layout.js'
import { dataTable } from '../components/table.js'
import { api, ApiError } from '../lib/api.js'
import { append, fill, h } from '../lib/dom.js'
import { downloadJson, saveJson } from '../lib/download.js'
import { fmtDate } from '../lib/format.js'
import { route } from '../lib/router.js'
import { verifyCertificate } from '../lib/verify.js'
import { explorerHref, signers } from './explorer.js'

/** Checks the certificate in this browser (hash, EIP-191 signature, published signer) and says so. */
function verifiedCell(cert, published) {
  const cell = h('span', { class: 'muted' }, 'checking…')
  verifyCertificate(cert, published).then((r) => {
    cell.className = r.ok ? 'check-ok' : 'check-bad'
    cell.dataset.verdict = r.ok ? 'valid' : 'invalid'
    cell.title = r.checks.map((c) => `${c.ok ? '✓' : '✗'} ${c.name}: ${c.detail}`).join('\n')
    cell.textContent = r.ok ? `✓ verified (${r.signerInfo.keyId})` : `✗ ${r.checks.filter((c) => !c.ok).map((c) => c.name).join(', ')} failed`
  }, () => { cell.textContent = '✗ could not check' })
  return cell
}

route('compliance', {
  title: 'Compliance', nav: 'Compliance', group: 'govern', order: 57,
  async render(ctx) {
    append(ctx.view, pageHead('Compliance', 'Terms of Service, signed compliance certificates, and an export of everything this account holds.'))
    const tosSlot = h('div', { class: 'card' }, h('h2', null, 'Terms of Service'), h('p', { class: 'muted' }, 'Loading…'))
    const certSlot = h('div', { class: 'card' }, h('h2', null, 'Compliance certificates'), h('p', { class: 'muted' }, 'Loading…'))
    const exportBtn = h('button', { type: 'button', class: 'secondary' }, 'Download export (JSON)')
    exportBtn.addEventListener('click', async () => {
      exportBtn.disabled = true
      clearBanner()
      try { await downloadJson('/api/v1/operator/export', `taskgate-export-${new Date().toISOString().slice(0, 10)}.json`) } catch (err) { ctx.error(err) } finally { exportBtn.disabled = false }
    })
    append(ctx.view, tosSlot, certSlot, h('div', { class: 'card' }, h('h2', null, 'Export'),
      h('p', { class: 'muted' }, 'One JSON document with your profile, keys (redacted), agents, tasks with outputs, ledger, guardrails, approvals, ToS acceptance, certificates, wallet and pioneer events. It holds no secret: no full key, hash, token or webhook secret.'),
      exportBtn))

    async function loadTos() {
      const st = await api('GET', '/api/v1/operator/tos/status')
      if (!ctx.alive()) return
      const accept = h('button', { type: 'button' }, `Accept version ${st.currentVersion}`)
      accept.addEventListener('click', async () => {
        accept.disabled = true
        try {
          await api('POST', '/api/v1/operator/tos/accept', { version: st.currentVersion })
          ctx.flash(`Terms of Service version ${st.currentVersion} accepted.`)
          await loadTos()
        } catch (err) { ctx.error(err); accept.disabled = false }
      })
      const current = st.accepted && st.version === st.currentVersion
      fill(tosSlot, h('h2', null, 'Terms of Service'), dl([
        ['Current version', h('code', null, st.currentVersion)],
        ['Accepted', current ? h('span', { class: 'badge green' }, `version ${st.version}`) : st.accepted ? h('span', { class: 'badge amber' }, `version ${st.version} (outdated)`) : h('span', { class: 'badge amber' }, 'not yet')],
        ['Accepted at', st.acceptedAt ? dateCell(st.acceptedAt) : dash()],
        ['Signed acceptance', st.ipfsCid ? ipfsLink(st.ipfsCid) : dash()],
      ]), current ? null : h('div', { class: 'actions' }, accept))
    }

    async function loadCerts() {
      const certs = await api('GET', '/api/v1/operator/compliance')
      if (!ctx.alive()) return
      const generate = h('button', { type: 'button' }, 'Generate a certificate now')
      generate.addEventListener('click', async () => {
        generate.disabled = true
        clearBanner()
        try {
          await api('POST', '/api/v1/operator/compliance/generate')
          ctx.flash('Certificate issued.')
          await loadCerts()
        } catch (err) { ctx.error(err); generate.disabled = false }
      })
      const published = certs.length ? await signers() : null
      const rows = certs.map((c) => h('tr', null,
        h('td', null, dateCell(c.issuedAt)),
        h('td', null, `${fmtDate(c.periodStart)} → ${fmtDate(c.periodEnd)}`),
        h('td', null, tierBadge(c.tier)),
        h('td', null, mono(c.certHash)),
        h('td', null, verifiedCell(c, published)),
        h('td', null, c.ipfsCid ? h('a', { href: explorerHref('receipt', c.ipfsCid), class: 'mono' }, 'IPFS copy') : ipfsLink(null)),
        h('td', null, h('button', { type: 'button', class: 'secondary small', onclick: () => saveJson(c, `taskgate-certificate-${c.id}.json`) }, 'Download'))))
      fill(certSlot,
        h('div', { class: 'card-head' }, h('h2', null, 'Compliance certificates'), generate),
        h('p', { class: 'muted' }, 'Signed by the service key (EIP-191 over keccak256 of the canonical JSON); verifiable from the certificate alone (docs/compliance.md). Issued every month for PRO and ENTERPRISE.'),
        certs.length
          ? dataTable(['Issued', 'Period', 'Tier', 'certHash', 'Checked here', 'IPFS', ''], rows)
          : h('p', { class: 'empty muted' }, 'No certificate yet.'))
    }

    await Promise.all([loadTos().catch(ctx.error), loadCerts().catch((err) => {
      if (err instanceof ApiError && err.problem.code === 'TIER_REQUIRED') fill(certSlot, h('h2', null, 'Compliance certificates'), h('p', { class: 'muted' }, 'Certificates are available on the PRO and ENTERPRISE tiers.'))
      else ctx.error(err)
    })])
  },
})
