// Keys, ledger, pioneer points and operators wired together (a new operator gets its credit account
// at once; its profile shows its points).
// Used by the server's composition root and by the CLI, which must behave the same.
import type { Clock } from '../clock'
import type { Config } from '../config'
import { Ledger } from '../credits/ledger'
import { CreditsRepository } from '../credits/repository'
import type { Db } from '../db'
import type { Transactor } from '../db/transactor'
import { KeyRepository } from '../keys/repository'
import { KeyService } from '../keys/service'
import { PioneerRepository } from '../pioneer/repository'
import { PioneerService } from '../pioneer/service'
import { OperatorRepository } from './repository'
import { effectiveTier, OperatorService } from './service'

export function buildAccounts(db: Db, clock: Clock, config: Config, tx: Transactor) {
  const keys = new KeyService(new KeyRepository(db), tx, clock, config.phase)
  const ledger = new Ledger(new CreditsRepository(db), tx, clock)
  const pioneer = new PioneerService(new PioneerRepository(db), clock)
  const operators = new OperatorService(new OperatorRepository(db), tx, clock, (id) => keys.hasActiveKey(id),
    (op) => ledger.open(op.id, config.monthlyCredits[effectiveTier(op)]), (id) => pioneer.total(id))
  return { keys, ledger, pioneer, operators }
}
