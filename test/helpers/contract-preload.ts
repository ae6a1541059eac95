// Prints the whole de-duplicated contract summary once, after every test file has run (bun test
// fires no exit event, so this needs a preload): `npm test -- --preload ./test/helpers/contract-preload.ts`
// or `[test] preload = ["./test/helpers/contract-preload.ts"]` in bunfig.toml. Without it the
// mismatches are printed as they first appear and the full list is in
// test-results/contract-mismatches.json.
import { afterAll } from 'bun:test'
import { printContractSummary } from './contract'

afterAll(() => printContractSummary())
