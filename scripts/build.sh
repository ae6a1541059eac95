#!/usr/bin/env bash
# Builds the single executable dist/taskgate with migrations and the admin console embedded
# (the console is bundled first into dist/ui by scripts/build-ui.ts, which prints its size).
# --compile-jit-policy=1000: the JIT waits 1000× longer before compiling while the server starts
# (code that runs once); `serve` restores the normal policy once it listens (src/main.ts).
set -euo pipefail
cd "$(dirname "$0")/.."
BUN="${BUN:-node_modules/.bin/bun}"
mkdir -p dist
"$BUN" scripts/build-ui.ts dist/ui
"$BUN" build --compile --minify --bytecode --format=esm --compile-jit-policy=1000 \
  --no-compile-autoload-dotenv --no-compile-autoload-bunfig \
  --asset dist/ui --asset migrations \
  src/main.ts src/chain/sign-worker.ts src/db/checkpoint-worker.ts --outfile dist/taskgate "$@"
ls -l dist/taskgate | awk '{printf "dist/taskgate: %.1f MB\n", $5/1048576}'
