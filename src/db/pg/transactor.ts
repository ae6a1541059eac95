// Transactions on PostgreSQL (src/db/transactor.ts's contract) on the one synchronous connection:
// BEGIN … COMMIT, nested calls as savepoints. A write transaction is READ COMMITTED, as each
// statement's row locks (UPDATE … WHERE balance >= amount, INSERT … ON CONFLICT) make the credit
// moves exact without a serialisable snapshot; a read is REPEATABLE READ READ ONLY (one snapshot,
// as on SQLite). A lost connection (DatabaseUnavailable) has already rolled the transaction back
// on the server: every level unwinds without trying to roll back.
import type { Transactor } from '../transactor'
import { DatabaseUnavailable, type PgConnection } from './connection'

export class PgTransactor implements Transactor {
  private depth = 0

  constructor(private conn: PgConnection) {}

  write<T>(fn: () => T): T { return this.run(fn, 'BEGIN') }

  read<T>(fn: () => T): T { return this.run(fn, 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY') }

  inTransaction(): boolean { return this.depth > 0 }

  lock(key: string): void {
    if (this.depth === 0) return // outside a transaction it would end at once
    this.conn.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [key])
  }

  private run<T>(fn: () => T, begin: string): T {
    const level = this.depth
    const savepoint = `sp${level}`
    this.conn.query(level === 0 ? begin : `SAVEPOINT ${savepoint}`)
    this.depth = level + 1
    let value: T
    try {
      value = fn()
    } catch (e) {
      if (e instanceof DatabaseUnavailable || this.depth === 0) { this.depth = 0; throw e } // the server rolled it all back
      this.depth = level
      try {
        this.conn.query(level === 0 ? 'ROLLBACK' : `ROLLBACK TO SAVEPOINT ${savepoint}`)
        if (level > 0) this.conn.query(`RELEASE SAVEPOINT ${savepoint}`)
      } catch (rollbackError) {
        if (rollbackError instanceof DatabaseUnavailable) this.depth = 0
        else throw rollbackError
      }
      throw e
    }
    try {
      this.conn.query(level === 0 ? 'COMMIT' : `RELEASE SAVEPOINT ${savepoint}`)
    } catch (e) {
      // A failed COMMIT ends the transaction (rolled back); a failed RELEASE leaves the outer one aborted.
      this.depth = level === 0 || e instanceof DatabaseUnavailable ? 0 : level
      throw e
    }
    this.depth = level
    return value
  }
}
