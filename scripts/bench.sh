#!/usr/bin/env bash
# The benchmarks: every compiled *.bench.js of the libs, the services, then e2e/, one
# at a time (each starts what it measures and owns the machine meanwhile).
# Needs a build and Postgres and NATS (make bench does both). Each bench prints
# a table and, as its last line, one JSON object; a failing bench fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.tools/bin:$PWD/node_modules/.bin:$PATH"
eval "$(scripts/infra.sh env | sed 's/^/export /')"

# The HTTP load generator: hey, a Go program, so the load costs the two cores
# far less than a Node generator (autocannon put a bare node:http server's p99
# at 21-28 ms under 1,000 req/s; hey measures the same server at about 6 ms).
HEY_VERSION=v0.1.5
if [ ! -x .tools/bin/hey ] || ! go version -m .tools/bin/hey 2>/dev/null | grep -q "hey[[:space:]]*$HEY_VERSION"; then
  command -v go >/dev/null || { echo "bench: Go (>= 1.22) is needed to install hey" >&2; exit 1; }
  echo "bench: installing github.com/rakyll/hey@$HEY_VERSION into .tools/bin" >&2
  GOBIN=$PWD/.tools/bin GOFLAGS=-buildvcs=false go install "github.com/rakyll/hey@$HEY_VERSION"
fi
shopt -s globstar nullglob
benches=(libs/*/dist/**/*.bench.js services/*/dist/**/*.bench.js e2e/dist/**/*.bench.js)
if [ ${#benches[@]} -eq 0 ]; then
  echo "no benchmarks found (run make build first)" >&2
  exit 1
fi
# BENCH_ONLY=<part of a path> runs only the benches whose path holds it.
outputs=$(mktemp -d)
trap 'rm -rf "$outputs"' EXIT
status=0
for bench in "${benches[@]}"; do
  [[ -n "${BENCH_ONLY:-}" && "$bench" != *"$BENCH_ONLY"* ]] && continue
  echo "== $bench"
  out="$outputs/$(basename "$bench").out"
  node --enable-source-maps --disable-warning=ExperimentalWarning "$bench" | tee "$out" ||
    { echo "bench failed: $bench" >&2; status=1; }
done
# Every figure with a goal, in one table.
node scripts/bench-summary.mjs "$outputs"/*.out
exit $status
