// The gateway's Agent Card (docs/doors.md, "A2A"): what an A2A client reads at
// /.well-known/agent-card.json before it talks to /a2a. Plain data, no SDK: the card route costs
// nothing at start-up and the JSON-RPC side (src/a2a/rpc.ts) reads the same card.
//
// Two shapes of one card, as the A2A SDK's own card handler serves them: the A2A 1.0 card
// (protobuf JSON: `supportedInterfaces`, `securityRequirements`, one-of security schemes) for a
// client that asks with `A2A-Version: 1.0`, and the 0.3 card (`url`, `preferredTransport`,
// `protocolVersion`, OpenAPI-style `securitySchemes`, `security`) for one that sends no version or
// 0.3, with the 1.0 interfaces embedded as the SDK does.
import { TASK_TYPES } from '../agents/schema'

/** The protocol versions /a2a speaks over JSON-RPC: 1.0, and 0.3 for clients of the earlier SDKs. */
export const A2A_VERSIONS = ['1.0', '0.3'] as const

type TaskType = (typeof TASK_TYPES)[number]

/** A skill per task type (docs/pipeline.md, "Task types"): what a message with `metadata.taskType` set to it asks for. */
const SKILLS: Record<TaskType, string> = {
  general: 'Any text task: answer, summarise, explain, rewrite.',
  code: 'Write, review or explain code.',
  analysis: 'Analyse a text, a situation or an argument.',
  creative: 'Creative writing.',
  trade_signal: 'A trading signal or market view (advice only: nothing is executed).',
  sentiment_analysis: 'The sentiment of a text.',
  evm_action: 'Plan an on-chain (EVM) action; with an action value over the operator\'s approval threshold a human approves it first.',
  spend_control: 'Decide on a spend; with an action value over the operator\'s approval threshold a human approves it first.',
  data_analysis: 'Analyse data given as text.',
  external_comms: 'Draft a message to the outside world (an email, a post).',
  deploy_actions: 'Plan a deployment or an operations change.',
  content_publication: 'Prepare content for publication.',
}

const INPUT = ['text/plain']
const OUTPUT = ['text/plain', 'application/json']

const DESCRIPTION = 'TaskGate runs each message as a task of the caller\'s agent through its 8-stage pipeline: guardrails, credits or x402, human approval above a threshold, compute, verification, IPFS, fingerprint, EAS attestation and an EIP-712 signed receipt. A completed task\'s artifact holds the output text and a data part { taskId, receiptCid, attestationUid }; the receipt verifies against /.well-known/taskgate-signers.'

const BEARER_TEXT = 'An API key (tg_…) as `Authorization: Bearer`, or an operator\'s bearer token. An agent-bound key acts as its agent; an operator key or token names the agent in header x-taskgate-agent-id.'
const KEY_TEXT = 'An API key (tg_…) in the x-api-key header.'

const titled = (type: string) => type.split('_').map((w) => w[0]!.toUpperCase() + w.slice(1)).join(' ')

/** The JSON-RPC endpoint, in both protocol versions (the 0.3 entry is what the SDK's legacy handler checks a 0.3 request against). */
function interfaces(base: string) {
  return A2A_VERSIONS.map((protocolVersion) => ({ url: `${base}/a2a`, protocolBinding: 'JSONRPC', protocolVersion }))
}

/** The A2A 1.0 card (the protobuf JSON form the SDK's AgentCard.toJSON writes). `base`: the server's public URL, without a trailing slash. */
export function agentCard(base: string, version: string) {
  return {
    name: 'TaskGate',
    description: DESCRIPTION,
    supportedInterfaces: interfaces(base),
    provider: { url: base, organization: 'TaskGate' },
    version,
    documentationUrl: `${base}/docs`,
    capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: false },
    securitySchemes: {
      bearer: { httpAuthSecurityScheme: { description: BEARER_TEXT, scheme: 'Bearer' } },
      apiKey: { apiKeySecurityScheme: { description: KEY_TEXT, location: 'header', name: 'x-api-key' } },
    },
    // either scheme (alternatives, not both)
    securityRequirements: [{ schemes: { bearer: {} } }, { schemes: { apiKey: {} } }],
    defaultInputModes: INPUT,
    defaultOutputModes: OUTPUT,
    skills: TASK_TYPES.map((type) => ({
      id: type, name: titled(type), description: `${SKILLS[type]} Send metadata.taskType "${type}"${type === 'general' ? ' (the default)' : ''}.`,
      tags: ['taskgate', type], inputModes: INPUT, outputModes: OUTPUT,
    })),
  }
}

/** The same card in the A2A 0.3 shape, with the 1.0 interfaces embedded (what the SDK's toCompatAgentCard makes of the 1.0 card). */
export function legacyAgentCard(base: string, version: string) {
  const card = agentCard(base, version)
  return {
    name: card.name,
    description: card.description,
    version,
    url: `${base}/a2a`,
    preferredTransport: 'JSONRPC',
    protocolVersion: '0.3',
    capabilities: { streaming: true, pushNotifications: true },
    defaultInputModes: INPUT,
    defaultOutputModes: OUTPUT,
    skills: card.skills.map(({ id, name, description, tags, inputModes, outputModes }) => ({ id, name, description, tags, inputModes, outputModes })),
    provider: card.provider,
    documentationUrl: card.documentationUrl,
    supportsAuthenticatedExtendedCard: false,
    securitySchemes: {
      bearer: { type: 'http', scheme: 'Bearer', description: BEARER_TEXT },
      apiKey: { type: 'apiKey', name: 'x-api-key', in: 'header', description: KEY_TEXT },
    },
    security: [{ bearer: [] }, { apiKey: [] }],
    supportedInterfaces: card.supportedInterfaces.map((i) => ({ ...i, tenant: '' })), // as the SDK embeds them
  }
}
