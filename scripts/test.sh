#!/usr/bin/env bash
# The whole suite: unit tests beside the code, then end-to-end tests through a real fleet.
# Needs Postgres and NATS (make test starts them); each test makes its own databases.
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(scripts/infra.sh env | sed 's/^/export /')"
shopt -s globstar nullglob
unit=(libs/*/dist/**/*.test.js services/*/dist/**/*.test.js)
e2e=(e2e/dist/**/*.test.js)
# Unit tests run two files at a time (2 cores); e2e files each start a fleet, so one at a time.
node --test --enable-source-maps --test-concurrency=2 --test-reporter=spec "${unit[@]}"
node --test --enable-source-maps --test-concurrency=1 --test-reporter=spec "${e2e[@]}"
