#!/usr/bin/env bash
# Runs the test suite and ends with one line "N passed, N failed" (bun test prints counts on
# stderr as " N pass" / " N fail"). Keeps bun's exit code.
set -o pipefail
cd "$(dirname "$0")/.."
BUN="${BUN:-node_modules/.bin/bun}"
out=$(mktemp)
"$BUN" test "$@" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
p=$(grep -Eo '^ *[0-9]+ pass$' "$out" | grep -Eo '[0-9]+' | tail -1)
f=$(grep -Eo '^ *[0-9]+ fail$' "$out" | grep -Eo '[0-9]+' | tail -1)
s=$(grep -Eo '^ *[0-9]+ (skip|todo)$' "$out" | grep -Eo '[0-9]+' | awk '{s+=$1} END {print s+0}')
rm -f "$out"
if [ -z "$p" ] && [ "$rc" -eq 0 ]; then rc=1; fi
echo "${p:-0} passed, ${f:-0} failed, ${s:-0} skipped"
exit $rc
