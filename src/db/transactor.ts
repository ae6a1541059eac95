// Transactions, the one way services group repository calls (docs/architecture.md, "Data layer").
// Repositories run their statements on the connection; a service that needs several of them to
// commit together wraps the calls in `write` (or `read`, for one consistent snapshot). On SQLite a
// write transaction is BEGIN IMMEDIATE: it takes the write lock first, so a deferred transaction
// that read and then writes never fails at once with SQLITE_BUSY when a CLI command on the live
// data dir holds the lock. Nested calls become savepoints. Callbacks are synchronous (an async
// callback would commit at its first await).
import type { Database } from 'bun:sqlite'

export interface Transactor {
  /** Runs `fn` in a write transaction (a savepoint when already inside one); commits when it returns, rolls back when it throws. */
  write<T>(fn: () => T): T
  /** Runs `fn` in a read transaction: every statement sees one snapshot. */
  read<T>(fn: () => T): T
  /** Whether a transaction is open on the connection (what runs now may still roll back). */
  inTransaction(): boolean
  /**
   * Inside write(): the write transactions that lock the same `key` run one after the other until
   * this one ends — for a check that counts rows and then writes one (a limit), which two replicas
   * must not both pass. PostgreSQL: an advisory transaction lock; SQLite: nothing to do (its write
   * transactions already run one at a time). Keys used: `limits:<operatorId>` (every per-operator
   * limit and every credit move), `x402:<wallet>`, `faucet`; always taken in that order.
   */
  lock(key: string): void
}

export class SqliteTransactor implements Transactor {
  constructor(private sqlite: Database) {}
  write<T>(fn: () => T): T { return this.sqlite.transaction(fn).immediate() }
  read<T>(fn: () => T): T { return this.sqlite.transaction(fn)() }
  inTransaction(): boolean { return this.sqlite.inTransaction }
  lock(_key: string): void { /* BEGIN IMMEDIATE: one write transaction at a time already */ }
}
