// A throwaway PostgreSQL cluster for scripts/test-postgres.sh: started, its URL written to the file
// given, removed at SIGTERM or SIGINT.
import { startPostgres } from '../test/helpers/postgres'

const pg = await startPostgres()
if (!pg) process.exit(1)
await Bun.write(process.argv[2]!, pg.url)
const end = () => { pg.cleanup(); process.exit(0) }
process.on('SIGTERM', end)
process.on('SIGINT', end)
setInterval(() => {}, 1 << 30)
