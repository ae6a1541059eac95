#!/usr/bin/env bash
# Builds the single executable dist/taskgate with migrations and the admin UI embedded.
set -euo pipefail
cd "$(dirname "$0")/.."
BUN="${BUN:-node_modules/.bin/bun}"
mkdir -p dist
"$BUN" build --compile --minify --bytecode --format=esm \
  --no-compile-autoload-dotenv --no-compile-autoload-bunfig \
  --asset ui --asset migrations \
  src/main.ts src/chain/sign-worker.ts --outfile dist/taskgate "$@"
ls -l dist/taskgate | awk '{printf "dist/taskgate: %.1f MB\n", $5/1048576}'
