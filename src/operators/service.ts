// Operators: local accounts (argon2id), GitHub-linked accounts, profile, tier and status.
import { availableParallelism } from 'node:os'
import type { Clock } from '../clock'
import { isoOrNull } from '../clock'
import type { Tier } from '../config'
import type { Transactor } from '../db/transactor'
import { conflict, forbidden, ProblemError } from '../http/errors'
import { newId } from '../lib/ids'
import type { OperatorRepository, OperatorRow, OperatorStatus } from './repository'

export type { OperatorRow, OperatorStatus } from './repository'

export const LOGIN_PATTERN = '^[a-z0-9][a-z0-9_.@-]{1,63}$'
const loginRe = new RegExp(LOGIN_PATTERN)
// A fixed argon2id hash (Bun.password defaults: m=64 MiB, t=2) to verify against for unknown logins,
// so both answers take the same time. Precomputed: hashing at module load cost ~180 ms of start-up.
const DUMMY_HASH = '$argon2id$v=19$m=65536,t=2,p=1$R89pCt4XafMMiUH7tc+ijPB0G8z43lo4wz7R9/NecSk$bR+CMCmntp8gv40bL/K6D4DBu0Jro12c8cLL/cenVpk'

/**
 * Bounds argon2id work (docs/foundation.md, "Logins"): every hash or verify allocates 64 MiB and
 * ~120 ms of a core, so at most 2 × CPU count run at once (peak 128 MiB per core, e.g. 512 MiB on 4
 * cores) and the rest wait their turn in FIFO order. A flood of sign-in or sign-up attempts from
 * many addresses then queues instead of allocating 64 MiB per request at once. Waiting costs no
 * memory beyond the request itself; the login and sign-up limits bound how many reach this point.
 * (Bun's own worker pool may run fewer at once today, ~CPU count; this bound does not rely on it.)
 */
export const ARGON2_CONCURRENCY = Math.max(2, 2 * availableParallelism())

export class Semaphore {
  private active = 0
  private waiting: (() => void)[] = []
  constructor(readonly size: number) {}

  get running(): number { return this.active }
  get queued(): number { return this.waiting.length }

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active < this.size) this.active++
    else await new Promise<void>((resolve) => this.waiting.push(resolve)) // the slot is handed over by release
    try { return await fn() } finally { this.release() }
  }

  private release(): void {
    const next = this.waiting.shift()
    if (next) next() // the slot passes straight to the oldest waiter: FIFO, and no newcomer can jump in
    else this.active--
  }
}

export const argon2Slots = new Semaphore(ARGON2_CONCURRENCY)
const hashPassword = (password: string) => argon2Slots.run(() => Bun.password.hash(password, { algorithm: 'argon2id' }))
const verifyPassword = (password: string, hash: string) => argon2Slots.run(() => Bun.password.verify(password, hash))

export interface NewOperator {
  login: string
  password?: string
  email?: string | null
  displayName?: string | null
  tier?: Tier
  admin?: boolean
  githubId?: string | null
}

export const effectiveTier = (op: Pick<OperatorRow, 'tier' | 'tierOverride'>): Tier => op.tierOverride ?? op.tier

export class OperatorService {
  constructor(
    private repo: OperatorRepository, private tx: Transactor, private clock: Clock,
    private hasActiveKey: (operatorId: string) => boolean, private onCreate: (op: OperatorRow) => void = () => {},
    /** The operator's pioneer points (they live in their own domain). */
    private pointsOf: (operatorId: string) => number = () => 0,
  ) {}

  countAdmins(): number { return this.repo.countAdmins() }

  normalizeLogin(login: string): string { return login.trim().toLowerCase() }

  async create(input: NewOperator, o: { onlyIfFirst?: boolean } = {}): Promise<OperatorRow> {
    const login = this.normalizeLogin(input.login)
    if (!loginRe.test(login)) throw new ProblemError(400, 'INVALID_LOGIN', 'login must be 2-64 characters: letters, digits, and _ . @ -')
    if (input.password !== undefined && input.password.length < 8) throw new ProblemError(400, 'WEAK_PASSWORD', 'password must be at least 8 characters')
    // A taken login is refused before the 64 MiB hash (the transaction below still decides races).
    if (!o.onlyIfFirst && this.byLogin(login)) throw conflict('LOGIN_TAKEN', `login "${login}" is already taken`)
    const passwordHash = input.password === undefined ? null : await hashPassword(input.password)
    const now = this.clock.now()
    const row = {
      id: newId('op'), login, passwordHash, githubId: input.githubId ?? null,
      email: input.email ?? null, displayName: input.displayName ?? null,
      tier: input.tier ?? 'FREE', role: input.admin ? 'admin' : 'operator', flags: {},
      createdAt: now, updatedAt: now,
    } as const
    // The login check and insert are one write transaction, so two signups cannot both win (also
    // against the CLI's `operator create` next to a live server).
    return this.tx.write(() => {
      if (o.onlyIfFirst && this.repo.countAdmins() > 0) throw conflict('SETUP_COMPLETE', 'setup is already complete; sign in instead')
      if (this.repo.byLogin(login)) throw conflict('LOGIN_TAKEN', `login "${login}" is already taken`)
      const op = this.repo.insert(row)
      this.onCreate(op) // e.g. open the credit account, in the same transaction
      return op
    })
  }

  /** Creates the first admin; the no-admin-yet check and the insert are one transaction. */
  async createFirstAdmin(input: NewOperator): Promise<OperatorRow> {
    return this.create({ ...input, admin: true }, { onlyIfFirst: true })
  }

  byId(id: string): OperatorRow | undefined { return this.repo.byId(id) }

  byLogin(login: string): OperatorRow | undefined { return this.repo.byLogin(this.normalizeLogin(login)) }

  byGithubId(githubId: string): OperatorRow | undefined { return this.repo.byGithubId(githubId) }

  /** Finds the operator linked to a GitHub account, creating one when sign-up allows it. */
  async fromGithub(gh: { id: string; login: string; name: string | null; email: string | null }, signupOpen: boolean): Promise<OperatorRow> {
    const linked = this.byGithubId(gh.id)
    if (linked) return linked
    if (!signupOpen) throw forbidden('SIGNUP_DISABLED', 'no operator is linked to this GitHub account and open sign-up is disabled')
    const base = this.normalizeLogin(gh.login)
    const login = this.byLogin(base) ? `${base}@github` : base
    return this.create({ login, githubId: gh.id, email: gh.email, displayName: gh.name ?? gh.login })
  }

  /** Returns the operator when the password matches; null otherwise (same cost either way). */
  async checkPassword(login: string, password: string): Promise<OperatorRow | null> {
    const op = this.byLogin(login)
    const ok = await verifyPassword(password, op?.passwordHash ?? DUMMY_HASH)
    return op && op.passwordHash && ok ? op : null
  }

  /** Ends every session of the operator: tokens carry the version they were issued with. */
  bumpTokenVersion(id: string): void { this.repo.bumpTokenVersion(id, this.clock.now()) }

  list(): OperatorRow[] { return this.repo.list() }

  update(id: string, change: { tierOverride?: Tier | null; status?: OperatorStatus; tier?: Tier }): OperatorRow {
    // One write transaction: the fields not changed are written back as read.
    return this.tx.write(() => {
      const op = this.repo.byId(id)
      if (!op) throw new ProblemError(404, 'NOT_FOUND', 'operator not found')
      if (change.status && change.status !== op.status) assertStatusTransition(op.status, change.status)
      return this.repo.update(id, {
        tier: change.tier ?? op.tier,
        tierOverride: change.tierOverride !== undefined ? change.tierOverride : op.tierOverride,
        status: change.status ?? op.status,
        updatedAt: this.clock.now(),
      })!
    })
  }

  /** The operator profile of GET /api/v1/auth/me (docs/foundation.md, "The operator profile"). */
  profile(op: OperatorRow) {
    return {
      id: op.id,
      identityLogin: op.login,
      tier: op.tier,
      tierOverride: op.tierOverride,
      effectiveTier: effectiveTier(op),
      status: op.status,
      hasApiKey: this.hasActiveKey(op.id),
      displayName: op.displayName ?? op.login,
      email: op.email ?? '',
      flags: profileFlags(op),
      walletAddress: op.walletAddress,
      firstTaskAt: isoOrNull(op.firstTaskAt),
      pioneerPoints: this.pointsOf(op.id),
    }
  }

  /** Admin listing: the profile plus bookkeeping fields. */
  adminView(op: OperatorRow) {
    return { ...this.profile(op), role: op.role, createdAt: new Date(op.createdAt).toISOString(), updatedAt: new Date(op.updatedAt).toISOString() }
  }
}

/** The profile's flags: killSwitch as a boolean (its reason and time are in the guardrails GET), admin. */
function profileFlags(op: OperatorRow): Record<string, unknown> {
  const { killSwitchReason: _r, killSwitchAt: _a, ...flags } = (op.flags ?? {}) as Record<string, unknown>
  return { ...flags, killSwitch: flags.killSwitch === true, admin: op.role === 'admin' }
}

/** ACTIVE ⇄ SUSPENDED, any → BANNED; BANNED is final (docs/foundation.md, "Operator status"). */
export function assertStatusTransition(from: OperatorStatus, to: OperatorStatus): void {
  const ok = (from === 'ACTIVE' && (to === 'SUSPENDED' || to === 'BANNED')) || (from === 'SUSPENDED' && (to === 'ACTIVE' || to === 'BANNED'))
  if (!ok) throw conflict('INVALID_STATUS_TRANSITION', `operator status cannot change from ${from} to ${to}`)
}

export function assertActive(op: OperatorRow): void {
  if (op.status === 'SUSPENDED') throw forbidden('OPERATOR_SUSPENDED', 'this operator account is suspended')
  if (op.status === 'BANNED') throw forbidden('OPERATOR_BANNED', 'this operator account is banned')
}
