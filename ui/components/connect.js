// The agent page's "Connect" card (docs/doors.md): how an OpenAI client, an MCP client or an A2A
// client reaches this gateway as the agent — the base URLs, which key to use, and snippets to copy,
// built from this page's own origin. A key pasted here only fills in the snippets: it is not sent or stored.
import { clearBanner } from './banner.js'
import { field } from './forms.js'
import { dl } from './layout.js'
import { secretBox } from './secret-box.js'
import { snippet } from './snippet.js'
import { api } from '../lib/api.js'
import { fill, h } from '../lib/dom.js'

const str = (s) => JSON.stringify(s)

/** An OpenAI client (JavaScript, the official `openai` package) and one chat call through this gateway. */
export function openAiSnippet({ baseURL, key, agentId, model }) {
  return [
    "import OpenAI from 'openai'",
    '',
    'const client = new OpenAI({',
    `  baseURL: ${str(baseURL)},`,
    `  apiKey: ${key ? str(key) : 'process.env.TASKGATE_AGENT_KEY'}, // the agent's key (tg_…)`,
    `  defaultHeaders: { 'x-taskgate-agent-id': ${str(agentId)} }, // needed only with an operator key`,
    '})',
    '',
    'const r = await client.chat.completions.create({',
    `  model: ${str(model)},`,
    "  messages: [{ role: 'user', content: 'Summarise: receipts make agent work checkable.' }],",
    '})',
    'console.log(r.choices[0].message.content)',
    'console.log(r.taskgate.receiptCid) // its signed receipt: GET /api/v1/public/proof/<cid>',
  ].join('\n')
}

/** An MCP client's server entry (Streamable HTTP, the key as a bearer token, the agent named for an operator key). */
export function mcpConfig({ url, key, agentId }) {
  return JSON.stringify({ mcpServers: { taskgate: { url, headers: { Authorization: `Bearer ${key}`, 'x-taskgate-agent-id': agentId } } } }, null, 2)
}

/**
 * An A2A client (JavaScript, the A2A SDK `@a2a-js/sdk`): discovered from this gateway's Agent Card,
 * the key sent as a bearer token on every call (an interceptor), one message sent.
 */
export function a2aSnippet({ origin, key, agentId }) {
  return [
    "import { Role, TaskState } from '@a2a-js/sdk'",
    "import { ClientFactory, ClientFactoryOptions } from '@a2a-js/sdk/client'",
    '',
    '// every call carries the agent\'s key (tg_…); the agent id is needed only with an operator key',
    'const headers = {',
    `  authorization: ${key ? str(`Bearer ${key}`) : '`Bearer ${process.env.TASKGATE_AGENT_KEY}`'},`,
    `  'x-taskgate-agent-id': ${str(agentId)},`,
    '}',
    'const auth = {',
    '  before: async (call) => { call.options = { ...call.options, serviceParameters: { ...call.options?.serviceParameters, ...headers } } },',
    '  after: async () => {},',
    '}',
    'const factory = new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { clientConfig: { interceptors: [auth] } }))',
    `const client = await factory.createFromUrl(${str(origin)}) // reads its /.well-known/agent-card.json`,
    '',
    'const task = await client.sendMessage({',
    "  message: { messageId: crypto.randomUUID(), role: Role.ROLE_USER, parts: [{ content: { $case: 'text', value: 'Summarise: receipts make agent work checkable.' } }], metadata: { taskType: 'general' } },",
    '})',
    'console.log(TaskState[task.status.state]) // TASK_STATE_COMPLETED',
    'console.log(task.artifacts[0].parts[1].content.value) // { taskId, receiptCid, attestationUid }',
  ].join('\n')
}

export function connectCard(agent, ctx) {
  const baseURL = `${location.origin}/v1`
  const mcpUrl = `${location.origin}/mcp`
  const cardUrl = `${location.origin}/.well-known/agent-card.json`
  const keyInput = h('input', { type: 'text', name: 'connectKey', maxlength: 200, autocomplete: 'off', spellcheck: 'false', placeholder: 'tg_…' })
  const keySlot = h('div')
  const js = snippet('OpenAI client (JavaScript)')
  const mcp = snippet('MCP client configuration (JSON)')
  const a2a = snippet('A2A client (JavaScript, @a2a-js/sdk)')
  const draw = () => {
    const key = keyInput.value.trim()
    js.set(openAiSnippet({ baseURL, key, agentId: agent.agentId, model: agent.model }))
    mcp.set(mcpConfig({ url: mcpUrl, key: key || '<the agent\'s key>', agentId: agent.agentId }))
    a2a.set(a2aSnippet({ origin: location.origin, key, agentId: agent.agentId }))
  }
  keyInput.addEventListener('input', draw)

  const create = h('button', { type: 'button', class: 'secondary' }, 'Create an operator key')
  create.addEventListener('click', async () => {
    create.disabled = true
    clearBanner()
    try {
      const created = await api('POST', '/api/v1/operator/keys', { name: `connect: ${agent.displayName}`.slice(0, 100) })
      if (!ctx.alive()) return
      keyInput.value = created.key
      draw()
      fill(keySlot, secretBox({
        title: `Operator key "${created.label}" created`, secret: created.key, dismiss: () => fill(keySlot),
        note: `It is in the snippets below. It is not bound to this agent: calls name the agent (${agent.agentId}) in the x-taskgate-agent-id header, which every snippet sets. Revoke it on the API keys page.`,
      }))
    } catch (err) { ctx.error(err) } finally { create.disabled = false }
  })

  draw()
  return h('section', { class: 'card connect', 'aria-labelledby': 'connect-title' },
    h('h2', { id: 'connect-title' }, 'Connect'),
    h('p', null, 'Point an OpenAI client, an MCP client or an A2A client at this gateway: each call becomes a task of this agent through all 8 stages, with its signed receipt.'),
    dl([
      ['OpenAI base URL', h('code', { class: 'break' }, baseURL)],
      ['MCP URL', h('code', { class: 'break' }, mcpUrl)],
      ['A2A Agent Card', h('code', { class: 'break' }, cardUrl)],
      ['Agent ID', h('code', { class: 'break' }, agent.agentId)],
    ]),
    h('h3', null, 'Which key'),
    h('p', null, 'Use the agent\'s own API key (tg_…): it acts as this agent. It was shown once, when the agent was registered; TaskGate keeps only its hash and cannot show it again.'),
    field('Paste a key to fill in the snippets', keyInput, 'It stays in this page: it is not sent anywhere or stored.'),
    h('p', { class: 'muted' }, 'No longer have it? Create an operator key: it is not bound to one agent, so a call names this agent in the x-taskgate-agent-id header (every snippet sets it).'),
    h('div', { class: 'actions' }, create),
    keySlot,
    js.el, mcp.el, a2a.el)
}
