#!/usr/bin/env bash
# The whole suite: unit tests beside the code, then end-to-end tests through a real fleet.
# Needs Postgres and NATS (make test starts them); each test makes its own databases.
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(scripts/infra.sh env | sed 's/^/export /')"
# Each phase's duration, printed with the total at the end (and on failure, up to the phase that failed).
started=$SECONDS
phase_started=$SECONDS
phases=()
phase() {
  phases+=("$1 $((SECONDS - phase_started))s")
  phase_started=$SECONDS
}
report() {
  local code=$?
  echo "== make test took $((SECONDS - started))s (${phases[*]:-}); exit $code"
}
trap report EXIT
echo "== lint"
biome check . >/dev/null || { biome check . 2>&1 | tail -40; exit 1; }
node scripts/shape-check.mjs
buf lint
scripts/proto-breaking.sh
phase lint
if [ -d .git ] && git diff --quiet; then
  echo "== generated code is reproducible (make generate on a clean tree changes nothing)"
  make --no-print-directory generate >/dev/null
  git diff --exit-code --stat || { echo "make generate changed committed files: run it and commit" >&2; exit 1; }
  phase generate
fi
echo "== helm chart"
scripts/helm-check.sh
phase helm
shopt -s globstar nullglob
# tsc -b leaves the output of a source that was moved or deleted: run a compiled test only while its source is there.
with_source() {
  local test src
  for test in "$@"; do
    src=${test/\/dist\//\/src\/}
    [ -f "${src%.js}.ts" ] && echo "$test"
  done
  return 0
}
mapfile -t unit < <(with_source libs/*/dist/**/*.test.js services/*/dist/**/*.test.js clients/*/dist/**/*.test.js)
mapfile -t e2e < <(with_source e2e/dist/**/*.test.js)
echo "== unit tests"
# Unit tests run two files at a time (2 cores); e2e files each start a fleet, so one at a time.
node --test --enable-source-maps --disable-warning=ExperimentalWarning --test-concurrency=2 --test-reporter=spec "${unit[@]}"
phase unit
echo "== Python SDK unit tests"
.tools/python-sdk/bin/python -m pytest -q clients/python
phase python
echo "== end-to-end tests"
# One file at a time, each under a time budget (TEST_FILE_TIMEOUT, 15m): a file that hangs is
# stopped with every process it started and named, and the run goes on to the next.
scripts/test-files.sh "${e2e[@]}"
phase e2e
