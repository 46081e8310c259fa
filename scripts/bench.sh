#!/usr/bin/env bash
# The benchmarks: every compiled *.bench.js of the services, then of e2e/, one
# at a time (each starts what it measures and owns the machine meanwhile).
# Needs a build and Postgres and NATS (make bench does both). Each bench prints
# a table and, as its last line, one JSON object; a failing bench fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.tools/bin:$PWD/node_modules/.bin:$PATH"
eval "$(scripts/infra.sh env | sed 's/^/export /')"
shopt -s globstar nullglob
benches=(services/*/dist/**/*.bench.js e2e/dist/**/*.bench.js)
if [ ${#benches[@]} -eq 0 ]; then
  echo "no benchmarks found (run make build first)" >&2
  exit 1
fi
status=0
for bench in "${benches[@]}"; do
  echo "== $bench"
  node --enable-source-maps --disable-warning=ExperimentalWarning "$bench" || { echo "bench failed: $bench" >&2; status=1; }
done
exit $status
