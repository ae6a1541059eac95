#!/usr/bin/env bash
# The black-box HTTP suite on the PostgreSQL backend (issue 34; docs/scale-out.md): starts a
# throwaway cluster (initdb + pg_ctl on a free loopback port, as test/helpers/postgres.ts does),
# gives every test server a database of its own on it (TASKGATE_TEST_POSTGRES), runs
# scripts/test.sh with the arguments given (default: test/http), and removes the cluster.
set -o pipefail
cd "$(dirname "$0")/.."
BUN="${BUN:-node_modules/.bin/bun}"
url_file=$(mktemp)
"$BUN" scripts/postgres-cluster.ts "$url_file" &
cluster=$!
for _ in $(seq 1 200); do [ -s "$url_file" ] && break; kill -0 $cluster 2>/dev/null || break; sleep 0.1; done
if [ ! -s "$url_file" ]; then echo "error: could not start PostgreSQL (apt-get install -y postgresql)" >&2; echo "0 passed, 1 failed, 0 skipped"; exit 1; fi
export TASKGATE_TEST_POSTGRES=$(cat "$url_file")
rm -f "$url_file"
[ $# -eq 0 ] && set -- test/http
bash scripts/test.sh "$@"
rc=$?
kill $cluster; wait $cluster 2>/dev/null
exit $rc
