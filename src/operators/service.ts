// Operators: local accounts (argon2id), GitHub-linked accounts, profile, tier and status.
import { asc, eq, sql } from 'drizzle-orm'
import { availableParallelism } from 'node:os'
import type { Clock } from '../clock'
import { isoOrNull } from '../clock'
import type { Tier } from '../config'
import type { Db } from '../db'
import { ReadCache } from '../db/read-cache'
import { operators } from '../db/schema'
import { conflict, forbidden, ProblemError } from '../http/errors'
import { newId } from '../lib/ids'

export type OperatorRow = typeof operators.$inferSelect
export type OperatorStatus = OperatorRow['status']

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

/** Columns of an operator row for raw hot-path queries (aliased `op_*`, see operatorFromRow). */
export const operatorColumns = (t: string) => `${t}.id AS op_id, ${t}.login AS op_login, ${t}.password_hash AS op_passwordHash, ${t}.github_id AS op_githubId,
  ${t}.email AS op_email, ${t}.display_name AS op_displayName, ${t}.tier AS op_tier, ${t}.tier_override AS op_tierOverride, ${t}.status AS op_status,
  ${t}.role AS op_role, ${t}.flags AS op_flags, ${t}.wallet_address AS op_walletAddress, ${t}.first_task_at AS op_firstTaskAt,
  ${t}.token_version AS op_tokenVersion, ${t}.created_at AS op_createdAt, ${t}.updated_at AS op_updatedAt`

export function operatorFromRow(r: Record<string, unknown>): OperatorRow {
  return {
    id: r.op_id, login: r.op_login, passwordHash: r.op_passwordHash, githubId: r.op_githubId, email: r.op_email, displayName: r.op_displayName,
    tier: r.op_tier, tierOverride: r.op_tierOverride, status: r.op_status, role: r.op_role, flags: JSON.parse(r.op_flags as string),
    walletAddress: r.op_walletAddress, firstTaskAt: r.op_firstTaskAt, tokenVersion: r.op_tokenVersion, createdAt: r.op_createdAt, updatedAt: r.op_updatedAt,
  } as OperatorRow
}

export const effectiveTier = (op: Pick<OperatorRow, 'tier' | 'tierOverride'>): Tier => op.tierOverride ?? op.tier

export class OperatorService {
  private byIdStmt
  private cached: ReadCache<OperatorRow | undefined>
  /** Set by the composition root (pioneer points live in their own domain). */
  pointsOf: (operatorId: string) => number = () => 0

  constructor(private db: Db, private clock: Clock, private hasActiveKey: (operatorId: string) => boolean, private onCreate: (op: OperatorRow) => void = () => {}) {
    // Raw statement: this runs on every authenticated request (drizzle's mapping costs ~5 µs).
    this.cached = new ReadCache(db.$client, ['operators'])
    this.byIdStmt = db.$client.prepare(`SELECT ${operatorColumns('o')} FROM operators o WHERE o.id = ?1`)
  }

  countAdmins(): number {
    // Plain SQL: asked once at every start, where building drizzle's query cost ~1 ms
    return (this.db.$client.query("SELECT count(*) AS n FROM operators WHERE role = 'admin'").get() as { n: number }).n
  }

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
    // The login check and insert are one synchronous transaction, so two signups cannot both win.
    // IMMEDIATE: it takes the write lock before its first read, waiting (busy timeout) for another
    // process's writer; a deferred one that read first fails at once with SQLITE_BUSY when another
    // connection commits in between (the CLI's `operator create` next to a live server).
    return this.db.transaction((tx) => {
      if (o.onlyIfFirst && this.countAdmins() > 0) throw conflict('SETUP_COMPLETE', 'setup is already complete; sign in instead')
      if (tx.select({ id: operators.id }).from(operators).where(eq(operators.login, login)).get()) throw conflict('LOGIN_TAKEN', `login "${login}" is already taken`)
      const op = tx.insert(operators).values(row).returning().get()
      this.onCreate(op) // e.g. open the credit account, in the same transaction
      return op
    }, { behavior: 'immediate' })
  }

  /** Creates the first admin; the no-admin-yet check and the insert are one transaction. */
  async createFirstAdmin(input: NewOperator): Promise<OperatorRow> {
    return this.create({ ...input, admin: true }, { onlyIfFirst: true })
  }

  byId(id: string): OperatorRow | undefined {
    return this.cached.get(id, () => {
      const row = this.byIdStmt.get(id) as Record<string, unknown> | null
      return row ? operatorFromRow(row) : undefined
    })
  }

  byLogin(login: string): OperatorRow | undefined {
    return this.db.select().from(operators).where(eq(operators.login, this.normalizeLogin(login))).get()
  }

  byGithubId(githubId: string): OperatorRow | undefined {
    return this.db.select().from(operators).where(eq(operators.githubId, githubId)).get()
  }

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
  bumpTokenVersion(id: string): void {
    this.db.update(operators).set({ tokenVersion: sql`${operators.tokenVersion} + 1`, updatedAt: this.clock.now() }).where(eq(operators.id, id)).run()
  }

  list(): OperatorRow[] {
    return this.db.select().from(operators).orderBy(asc(operators.createdAt)).all()
  }

  update(id: string, change: { tierOverride?: Tier | null; status?: OperatorStatus; tier?: Tier }): OperatorRow {
    const op = this.byId(id)
    if (!op) throw new ProblemError(404, 'NOT_FOUND', 'operator not found')
    if (change.status && change.status !== op.status) assertStatusTransition(op.status, change.status)
    const set: Partial<OperatorRow> = { updatedAt: this.clock.now() }
    if (change.tierOverride !== undefined) set.tierOverride = change.tierOverride
    if (change.tier !== undefined) set.tier = change.tier
    if (change.status !== undefined) set.status = change.status
    return this.db.update(operators).set(set).where(eq(operators.id, id)).returning().get()!
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
