// Keys, ledger and operators wired together (a new operator gets its credit account at once).
// Used by the server's composition root and by the CLI, which must behave the same.
import type { Clock } from '../clock'
import type { Config } from '../config'
import { Ledger } from '../credits/ledger'
import type { Db } from '../db'
import { KeyService } from '../keys/service'
import { effectiveTier, OperatorService } from './service'

export function buildAccounts(db: Db, clock: Clock, config: Config) {
  const keys = new KeyService(db, clock, config.phase)
  const ledger = new Ledger(db.$client, clock)
  const operators = new OperatorService(db, clock, (id) => keys.hasActiveKey(id), (op) => ledger.open(op.id, config.monthlyCredits[effectiveTier(op)]))
  return { keys, ledger, operators }
}
