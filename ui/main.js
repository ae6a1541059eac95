// TaskGate admin console: the entry point the bundler starts from (scripts/build-ui.ts → /app.js).
// Vanilla JS, no external resources; server data is only ever written with textContent /
// attributes (never innerHTML). Each page registers itself with route() (lib/router.js).
import { renderNav } from './components/header.js'
import { focusMain, start } from './lib/router.js'
import { HOME, session } from './lib/session.js'
import './pages/setup.js'
import './pages/login.js'
import './pages/agents.js'
import './pages/tasks.js'
import './pages/billing.js'
import './pages/keys.js'
import './pages/profile.js'
import './pages/guardrails.js'
import './pages/approvals.js'
import './pages/compliance.js'
import './pages/webhooks.js'
import './pages/operators.js'
import './pages/providers.js'
import './pages/terms.js'
import './pages/dashboard.js'
import './pages/explorer.js'
import './pages/leaderboard.js'
import './pages/stats.js'

/** GitHub sign-in lands on /#access_token=…&expires_in=…: keep the token, then drop it from the URL. */
function takeFragmentToken() {
  const frag = location.hash.replace(/^#\/?/, '')
  if (!/(^|&)access_token=/.test(frag)) return
  const p = new URLSearchParams(frag)
  const token = p.get('access_token')
  history.replaceState(null, '', `${location.pathname}${location.search}#/${HOME}`)
  if (token) session.set(token, p.get('expires_in'))
}

// The skip link moves focus to the page without touching the hash (the router owns it).
document.querySelector('.skip-link').addEventListener('click', (ev) => { ev.preventDefault(); focusMain() })

takeFragmentToken()
start({ drawChrome: renderNav })
