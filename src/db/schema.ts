// Drizzle table definitions. The SQL that creates them lives in migrations/ (drizzle-kit generate).
import { sql } from 'drizzle-orm'
import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core'

export const operators = sqliteTable('operators', {
  id: text('id').primaryKey(),
  login: text('login').notNull(),
  passwordHash: text('password_hash'),
  githubId: text('github_id'),
  email: text('email'),
  displayName: text('display_name'),
  tier: text('tier', { enum: ['FREE', 'PRO', 'ENTERPRISE'] }).notNull().default('FREE'),
  tierOverride: text('tier_override', { enum: ['FREE', 'PRO', 'ENTERPRISE'] }),
  status: text('status', { enum: ['ACTIVE', 'SUSPENDED', 'BANNED'] }).notNull().default('ACTIVE'),
  role: text('role', { enum: ['admin', 'operator'] }).notNull().default('operator'),
  flags: text('flags', { mode: 'json' }).$type<Record<string, unknown>>().notNull().default(sql`'{}'`),
  walletAddress: text('wallet_address'),
  firstTaskAt: integer('first_task_at'),
  tokenVersion: integer('token_version').notNull().default(0),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
}, (t) => [
  uniqueIndex('operators_login_uq').on(t.login),
  uniqueIndex('operators_github_id_uq').on(t.githubId),
])

export const apiKeys = sqliteTable('api_keys', {
  id: text('id').primaryKey(),
  operatorId: text('operator_id').notNull().references(() => operators.id),
  agentId: text('agent_id'),
  label: text('label'),
  keyHash: text('key_hash').notNull(),
  first4: text('first4').notNull(),
  last4: text('last4').notNull(),
  rateLimitRpm: integer('rate_limit_rpm').notNull(),
  isTestKey: integer('is_test_key', { mode: 'boolean' }).notNull().default(false),
  testUsesRemaining: integer('test_uses_remaining'),
  lastUsedAt: integer('last_used_at'),
  createdAt: integer('created_at').notNull(),
  revokedAt: integer('revoked_at'),
}, (t) => [
  uniqueIndex('api_keys_hash_uq').on(t.keyHash),
  index('api_keys_operator_idx').on(t.operatorId, t.createdAt),
])

// Durable jobs: the pipeline runner and the scheduler claim rows from here.
export const jobs = sqliteTable('jobs', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  kind: text('kind').notNull(),
  payload: text('payload', { mode: 'json' }).$type<unknown>().notNull(),
  status: text('status', { enum: ['pending', 'running', 'done', 'failed'] }).notNull().default('pending'),
  runAt: integer('run_at').notNull(),
  attempts: integer('attempts').notNull().default(0),
  maxAttempts: integer('max_attempts').notNull().default(5),
  lastError: text('last_error'),
  dedupeKey: text('dedupe_key'),
  createdAt: integer('created_at').notNull(),
  updatedAt: integer('updated_at').notNull(),
}, (t) => [
  index('jobs_due_idx').on(t.status, t.runAt),
  uniqueIndex('jobs_dedupe_uq').on(t.dedupeKey),
])

// Small key/value store for service state (test clock offset, …).
export const meta = sqliteTable('meta', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
})
