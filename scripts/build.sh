#!/usr/bin/env bash
# Builds the single executable dist/taskgate with migrations and the admin console embedded
# (the console is bundled first into dist/ui by scripts/build-ui.ts, which prints its size).
# The executable itself is built by scripts/build.ts (Bun.build: entry points, embedded assets,
# JIT policy, and the one import it redirects).
set -euo pipefail
cd "$(dirname "$0")/.."
BUN="${BUN:-node_modules/.bin/bun}"
mkdir -p dist
"$BUN" scripts/build-ui.ts dist/ui
"$BUN" scripts/build.ts
ls -l dist/taskgate | awk '{printf "dist/taskgate: %.1f MB\n", $5/1048576}'
