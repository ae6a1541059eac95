#!/usr/bin/env bash
# Runs every example against a fresh TaskGate binary: a temporary data directory, an admin made
# with `taskgate operator create` before serving, a free loopback port, a sign-in and one agent
# (capabilities general, data_analysis) whose API key the examples use. The admin is a FREE operator
# (20 credits here) and data_analysis costs 50, so the task of x402-pay.mjs must be paid with x402. Any example that fails fails the run.
#
#   bash examples/run-all.sh [path/to/taskgate]      # default: dist/taskgate (npm run build)
#
# Installs examples/node_modules (npm ci) when it is missing. EXAMPLES_NODE picks the runtime
# (default: node). Keys and tokens are passed to the examples in the environment, never printed.
set -euo pipefail
cd "$(dirname "$0")/.."
bin="$(realpath "${1:-dist/taskgate}")"
node_bin="${EXAMPLES_NODE:-node}"
[ -x "$bin" ] || { echo "no TaskGate binary at $bin (npm run build)"; exit 1; }
if [ ! -d examples/node_modules ]; then
  npm ci --prefix examples --no-audit --no-fund
fi

work=$(mktemp -d)
log="$work/server.log"
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "examples: $*"; echo "--- server log (last 40 lines)"; tail -40 "$log" 2>/dev/null || true; exit 1; }
# pulls one member out of a JSON document on stdin
json() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const v=JSON.parse(s)[process.argv[1]];if(typeof v!=="string"||!v)process.exit(1);process.stdout.write(v)})' "$1"; }

# data_analysis priced at 50 credits (0.50 USDC, under @x402/fetch's default $1 cap per payment), more
# than a FREE operator's 20 here (the CLI and the server read the same settings): x402-pay.mjs must pay
export TASKGATE_TASK_COST='{"default":1,"data_analysis":50}' TASKGATE_TIERS_FREE_MONTHLY_CREDITS=20
"$bin" operator create --login admin --password admin-password --admin --data-dir "$work/data" >/dev/null
( cd "$work" && exec "$bin" serve --port 0 --host 127.0.0.1 --data-dir "$work/data" >"$log" 2>&1 ) &
pid=$!
port=""
for _ in $(seq 1 200); do
  port=$(grep -o '"port":[0-9]*' "$log" 2>/dev/null | head -1 | cut -d: -f2 || true)
  [ -n "$port" ] && break
  kill -0 "$pid" 2>/dev/null || fail "the binary exited early"
  sleep 0.05
done
[ -n "$port" ] || fail "the binary did not report a port"
base="http://127.0.0.1:$port"
ready=""
for _ in $(seq 1 100); do
  if [ "$(curl -s -o /dev/null -w '%{http_code}' "$base/readyz")" = "200" ]; then ready=1; break; fi
  sleep 0.05
done
[ -n "$ready" ] || fail "/readyz never returned 200"

token=$(curl -sf "$base/api/v1/auth/login" -H 'content-type: application/json' -d '{"login":"admin","password":"admin-password"}' | json accessToken) || fail "sign-in failed"
key=$(curl -sf "$base/api/v1/agents/register" -H "authorization: Bearer $token" -H 'content-type: application/json' \
  -d '{"displayName":"Examples bot","capabilities":["general","data_analysis"]}' | json apiKey) || fail "agent registration failed"
export TASKGATE_URL="$base" TASKGATE_API_KEY="$key" TASKGATE_TOKEN="$token"
echo "examples against $bin at $base ($("$node_bin" --version 2>/dev/null || echo "$node_bin"))"

run() {
  echo "== examples/$*"
  "$node_bin" "examples/$@" 2>&1 | tee "$work/last.out" || fail "examples/$1 failed"
}
run openai-chat.mjs
run openai-stream.mjs
cid=$(sed -n 's/^receiptCid: //p' "$work/last.out" | tail -1)
[ -n "$cid" ] || fail "openai-stream.mjs printed no receiptCid"
run mcp-client.mjs
run a2a-client.mjs
run verify-receipt.mjs "$cid"   # the streamed completion's receipt
run verify-receipt.mjs          # one it makes itself
run x402-pay.mjs
grep -q '^paid with x402 v2' "$work/last.out" || fail "x402-pay.mjs was not asked to pay"
echo "examples passed ($base)"
