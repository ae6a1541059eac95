// The `meta` table: small named values of the service's own state (the test clock's offset, the
// signer's start date, the storage probe).
import { eq, sql } from 'drizzle-orm'
import type { Db } from '.'
import { meta } from './schema'
import { preparedOnUse } from './sql'

export class MetaRepository {
  private q

  constructor(db: Db) {
    this.q = preparedOnUse({
      get: () => db.select({ value: meta.value }).from(meta).where(eq(meta.key, sql.placeholder('key'))).prepare(),
      insert: () => db.insert(meta).values({ key: sql.placeholder('key'), value: sql.placeholder('value') }).prepare(),
      set: () => db.insert(meta).values({ key: sql.placeholder('key'), value: sql.placeholder('value') })
        .onConflictDoUpdate({ target: meta.key, set: { value: sql`excluded.value` } }).prepare(),
    })
  }

  get(key: string): string | null { return this.q.get.get({ key })?.value ?? null }
  /** Adds a value; fails when the key has one. */
  insert(key: string, value: string): void { this.q.insert.run({ key, value }) }
  /** Adds or replaces a value. */
  set(key: string, value: string): void { this.q.set.run({ key, value }) }
}
