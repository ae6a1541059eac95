// First-run setup (PocketBase style): while no operator exists, the server prints a one-time URL
// whose token lets the person at the console create the first (admin) operator.
import { timingSafeEqual } from 'node:crypto'
import { randomToken } from '../lib/ids'
import { unauthorized } from '../http/errors'

export class SetupService {
  private token: string | null = null

  /** Returns a fresh setup token if setup is still needed, else null. */
  open(needed: boolean): string | null {
    this.token = needed ? randomToken(24) : null
    return this.token
  }

  get pending(): boolean { return this.token !== null }

  /** The current token, for printing on the console at start. */
  current(): string | null { return this.token }

  /** Throws unless `presented` is the current token. */
  check(presented: string): void {
    const t = this.token
    if (!t || presented.length !== t.length || !timingSafeEqual(Buffer.from(presented), Buffer.from(t))) {
      throw unauthorized('INVALID_SETUP_TOKEN', 'the setup token is invalid or was already used; restart the server for a new one')
    }
  }

  close(): void { this.token = null }
}
