#!/usr/bin/env bash
# `npm run db:generate [-- <drizzle-kit generate options>]`: installs drizzle-kit without saving it
# (it is used by no test and not by the server, docs/install.md), writes the migrations for the
# changes in src/db/schema.ts (SQLite's with drizzle-kit, PostgreSQL's with scripts/db-generate-pg.ts),
# then removes drizzle-kit again so node_modules stays the size of an install. Keeps the exit code.
set -u
cd "$(dirname "$0")/.."
npm install --no-save --no-audit --no-fund drizzle-kit@0.31.11 || exit 1
node_modules/.bin/drizzle-kit generate "$@"
status=$?
# PostgreSQL's migration for the same changes (scripts/db-generate-pg.ts)
[ $status -eq 0 ] && { node_modules/.bin/bun scripts/db-generate-pg.ts; status=$?; }
npm prune --no-audit --no-fund >/dev/null
exit $status
