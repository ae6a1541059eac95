// A2A push notifications (docs/doors.md, "A2A", "Push notifications"). A client gives a task push
// configs (a URL, a token, or an Authorization scheme and credentials), with the
// TaskPushNotificationConfig methods or in SendMessage's `configuration`; each time the task's A2A
// state changes (auth-required, working again once approved, completed, failed, rejected,
// canceled), every config of the task gets the whole task, as the SDK's own push sender posts it,
// through the signed webhook outbox (src/webhooks/outbox.ts: the delivery row is written in the
// transaction of the state change; retries, the outbound address checks and the HMAC and EIP-712
// signatures are the outbox's). The pipeline knows nothing of A2A: src/services.ts registers
// `changed` as a listener of its status changes. URLs are checked as webhook URLs are
// (src/lib/outbound.ts; docs/security.md, "Outbound requests"); the token and the credentials are
// stored sealed with the data key, as webhook secrets are, and never logged or exported.
import type { Clock } from '../clock'
import type { Transactor } from '../db/transactor'
import { forbidden, ProblemError } from '../http/errors'
import { newId } from '../lib/ids'
import type { Outbound } from '../lib/outbound'
import type { Logger } from '../log'
import { seal, unseal } from '../secrets'
import type { TaskRow } from '../tasks/types'
import type { WebhookOutbox } from '../webhooks/outbox'
import type { A2aRepository, PushConfigRow } from './repository'
import { a2aState, contextOf, legacyTaskJson, taskJson, TERMINAL_STATES } from './task-json'

/** Configs one task may have. */
export const MAX_CONFIGS_PER_TASK = 10
const MAX_URL = 2048
const MAX_ID = 128
const MAX_TOKEN = 1024
const MAX_CREDENTIALS = 4096
/** Header-safe: visible ASCII, inner spaces allowed (the value goes into an HTTP header as it is). */
const HEADER_VALUE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/
/** An HTTP authentication scheme (RFC 9110 token). */
const SCHEME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/
const CONFIG_ID = /^[^\x00-\x1f\x7f]+$/

/** The protocol a config was made with: its notifications carry the task in that version's shape. */
export type PushVersion = '1.0' | '0.3'

/** A config as a client sends it (the SDK's TaskPushNotificationConfig; the SDK translates 0.3's into it). */
export interface PushConfigInput { id: string; url: string; token: string; authentication?: { scheme: string; credentials: string } | undefined }

/** A config as answered: the A2A TaskPushNotificationConfig, token and credentials included (the spec returns them to the task's owner). */
export interface PushConfigView { tenant: string; id: string; taskId: string; url: string; token: string; authentication: { scheme: string; credentials: string } | undefined }

export interface A2aPushDeps {
  repo: A2aRepository
  tx: Transactor
  clock: Pick<Clock, 'now'>
  outbox: Pick<WebhookOutbox, 'enqueuePush'>
  outbound: Pick<Outbound, 'assertAllowed'>
  /** The data key the token and credentials are sealed with (src/secrets.ts). */
  dataKey: Buffer
  /** A held task's approval request (its notification names it). */
  approvalIdOf(taskId: string): string | null
  task(id: string): TaskRow | null
  log: Logger
  /** TASKGATE_MAX_A2A_PUSH_CONFIGS: configs of unfinished tasks one operator may have. */
  maxLivePerOperator: number
}

const invalid = (path: string, message: string) => new ProblemError(400, 'VALIDATION_FAILED', message, { errors: [{ path, message }] })

export class A2aPush {
  constructor(private d: A2aPushDeps) {}

  /**
   * A config as sent, checked (never echoing the token or credentials): its URL as a webhook URL
   * (400 WEBHOOK_URL_NOT_ALLOWED), header-safe token and credentials, a scheme. `at`: the JSON path
   * of the config in the request, for the error.
   */
  async check(c: PushConfigInput, at: string): Promise<PushConfigInput> {
    if (typeof c.url !== 'string' || c.url === '') throw invalid(`${at}/url`, 'url is required: where the notifications are POSTed')
    if (c.url.length > MAX_URL) throw invalid(`${at}/url`, `url is over ${MAX_URL} characters`)
    if (c.id && (c.id.length > MAX_ID || !CONFIG_ID.test(c.id))) throw invalid(`${at}/id`, `id must be 1-${MAX_ID} characters without control characters`)
    if (c.token && (c.token.length > MAX_TOKEN || !HEADER_VALUE.test(c.token))) throw invalid(`${at}/token`, `token must be at most ${MAX_TOKEN} visible ASCII characters (it is sent in header X-A2A-Notification-Token)`)
    const a = c.authentication
    const auth = a && (a.scheme || a.credentials) ? { scheme: a.scheme, credentials: a.credentials } : undefined
    if (auth && !SCHEME.test(auth.scheme)) throw invalid(`${at}/authentication/scheme`, 'authentication.scheme must be an HTTP authentication scheme (e.g. Bearer)')
    if (auth?.credentials && (auth.credentials.length > MAX_CREDENTIALS || !HEADER_VALUE.test(auth.credentials))) {
      throw invalid(`${at}/authentication/credentials`, `authentication.credentials must be at most ${MAX_CREDENTIALS} visible ASCII characters (they are sent in header Authorization)`)
    }
    await this.d.outbound.assertAllowed(c.url, 'url')
    return { id: c.id, url: c.url, token: c.token ?? '', authentication: auth }
  }

  /** 403 PUSH_CONFIG_LIMIT_REACHED when the operator has its most configs of unfinished tasks (before a message that brings one is run). */
  assertRoom(operatorId: string): void {
    this.d.tx.lock(`limits:${operatorId}`) // replicas: one count-then-insert at a time per operator
    const live = this.d.repo.countLive(operatorId)
    if (live >= this.d.maxLivePerOperator) throw this.limit('operator', this.d.maxLivePerOperator)
  }

  /**
   * Stores a checked config for the task (one of the caller's): the same id again replaces it, so
   * its pending notifications end (a config sent again unchanged changes nothing). `catchUp` (a
   * config sent with the message that made the task): the task's state, when it is already not
   * `working` (held, or finished), is notified at once.
   */
  save(task: TaskRow, c: PushConfigInput, version: PushVersion, o: { catchUp: boolean; roomChecked: boolean }): PushConfigView {
    const configId = c.id || task.id
    return this.d.tx.write(() => {
      const existing = this.d.repo.byConfigId(task.id, configId)
      if (existing && this.same(existing, c, version)) return this.view(existing)
      const current = this.d.task(task.id) ?? task
      const done = TERMINAL_STATES.has(a2aState(current))
      if (existing) this.d.repo.remove(existing.id)
      else {
        if (this.d.repo.countForTask(task.id) >= MAX_CONFIGS_PER_TASK) throw this.limit('task', MAX_CONFIGS_PER_TASK)
        if (!done && !o.roomChecked) this.assertRoom(task.operatorId)
      }
      const now = this.d.clock.now()
      const row: PushConfigRow = {
        id: newId('apc'), taskId: task.id, configId, operatorId: task.operatorId, agentId: task.agentId, url: c.url,
        tokenSealed: c.token ? seal(this.d.dataKey, c.token) : null, authScheme: c.authentication?.scheme || null,
        authCredentialsSealed: c.authentication?.credentials ? seal(this.d.dataKey, c.authentication.credentials) : null,
        protocolVersion: version, createdAt: now, doneAt: done ? now : null,
      }
      this.d.repo.insert(row)
      if (o.catchUp && a2aState(current) !== 'TASK_STATE_WORKING') {
        const body = this.bodies(current)
        if (body) this.d.outbox.enqueuePush(row.operatorId, row.id, row.url, body[version])
      }
      return this.view(row)
    })
  }

  /** The task's config `id` (empty: the one that defaulted to the task's id), or null. */
  get(task: TaskRow, id: string): PushConfigView | null {
    const r = this.d.repo.byConfigId(task.id, id || task.id)
    return r ? this.view(r) : null
  }

  list(task: TaskRow): PushConfigView[] { return this.d.repo.forTask(task.id).map((r) => this.view(r)) }

  /** Deletes the task's config `id` (empty: the task's id); its pending notifications are not sent. Whether it existed. */
  remove(task: TaskRow, id: string): boolean {
    const r = this.d.repo.byConfigId(task.id, id || task.id)
    return r ? this.d.tx.write(() => this.d.repo.remove(r.id)) : false
  }

  /**
   * The pipeline's status-change listener, inside the transaction of the change: when the task's
   * A2A state changed, a delivery per config of the task, in the same transaction; a finished
   * task's configs are done. A body that cannot be made (a bug) is logged and sends nothing rather
   * than fail the task's commit; a failed write fails the commit, as any of its writes.
   */
  changed(before: TaskRow, after: TaskRow): void {
    const state = a2aState(after)
    if (a2aState(before) === state) return
    const configs = this.d.repo.forTask(after.id)
    if (configs.length === 0) return
    const body = this.bodies(after)
    if (body) for (const c of configs) if (c.doneAt === null) this.d.outbox.enqueuePush(c.operatorId, c.id, c.url, body[c.protocolVersion as PushVersion] ?? body['1.0'])
    if (TERMINAL_STATES.has(state)) this.d.repo.markDone(after.id, this.d.clock.now())
  }

  /**
   * The headers a delivery for config `id` carries besides the outbox's own, as the SDK's
   * DefaultPushNotificationSender sends them: the content type of the config's protocol
   * (`application/a2a+json` for 1.0, `application/json` for 0.3), and `Authorization: <scheme>
   * <credentials>` when the config has both, else `X-A2A-Notification-Token` when it has a token.
   * Null when the config was deleted or replaced.
   */
  deliveryHeaders(id: string): { headers: Record<string, string>; secrets: string[] } | null {
    const c = this.d.repo.get(id)
    if (!c) return null
    const headers: Record<string, string> = { 'content-type': c.protocolVersion === '0.3' ? 'application/json' : 'application/a2a+json' }
    const credentials = c.authCredentialsSealed ? unseal(this.d.dataKey, c.authCredentialsSealed) : ''
    const token = c.tokenSealed ? unseal(this.d.dataKey, c.tokenSealed) : ''
    if (c.authScheme && credentials) headers.authorization = `${c.authScheme} ${credentials}`
    else if (token) headers['X-A2A-Notification-Token'] = token
    return { headers, secrets: [credentials, token].filter(Boolean) }
  }

  /** The operator's configs for the data export: no token or credentials, only whether they are set. */
  exportFor(operatorId: string) {
    const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())
    return this.d.repo.forOperator(operatorId).map((r) => ({
      id: r.configId, taskId: r.taskId, agentId: r.agentId, url: r.url, protocolVersion: r.protocolVersion,
      tokenSet: r.tokenSealed !== null, authenticationScheme: r.authScheme, createdAt: iso(r.createdAt)!, doneAt: iso(r.doneAt),
    }))
  }

  /** Deletes the configs of tasks finished before `before` (the retention job); returns how many. */
  prune(before: number): number {
    return this.d.tx.write(() => this.d.repo.prune(before))
  }

  /** The task's notification body in both versions: `{ task }` (the 1.0 StreamResponse), or the 0.3 Task. Null (logged) if it cannot be made. */
  private bodies(t: TaskRow): Record<PushVersion, string> | null {
    try {
      const json = taskJson(t, contextOf(t), t.status === 'PENDING_APPROVAL' ? this.d.approvalIdOf(t.id) : null)
      return { '1.0': JSON.stringify({ task: json }), '0.3': JSON.stringify(legacyTaskJson(json)) }
    } catch (e) {
      this.d.log.error({ taskId: t.id, err: e instanceof Error ? e.message : String(e) }, 'a2a push notification body could not be made')
      return null
    }
  }

  private same(r: PushConfigRow, c: PushConfigInput, version: PushVersion): boolean {
    const v = this.view(r)
    return r.url === c.url && r.protocolVersion === version && v.token === c.token
      && (v.authentication?.scheme ?? '') === (c.authentication?.scheme ?? '') && (v.authentication?.credentials ?? '') === (c.authentication?.credentials ?? '')
  }

  private view(r: PushConfigRow): PushConfigView {
    const credentials = r.authCredentialsSealed ? unseal(this.d.dataKey, r.authCredentialsSealed) : ''
    return {
      tenant: '', id: r.configId, taskId: r.taskId, url: r.url, token: r.tokenSealed ? unseal(this.d.dataKey, r.tokenSealed) : '',
      authentication: r.authScheme || credentials ? { scheme: r.authScheme ?? '', credentials } : undefined,
    }
  }

  private limit(scope: 'task' | 'operator', limit: number): ProblemError {
    return scope === 'task'
      ? forbidden('PUSH_CONFIG_LIMIT_REACHED', `this task has ${limit} push notification configs, the most a task may have: delete one first`, { limit, scope })
      : forbidden('PUSH_CONFIG_LIMIT_REACHED', `the operator has ${limit} push notification configs on unfinished tasks, the most it may have (TASKGATE_MAX_A2A_PUSH_CONFIGS): delete some, or wait for tasks to finish`, { limit, scope })
  }
}
