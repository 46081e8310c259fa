#!/usr/bin/env bash
# Runs node test files one after the other, each under a time budget: a file still running after
# TEST_FILE_TIMEOUT (15m unless set; `timeout`'s durations) is stopped with its whole process group
# (SIGTERM, then SIGKILL 30 s later), named, and counted as a failed test, so a file that hangs
# (a test that never ends, a handle that keeps its process alive) costs its budget, not CI's limit.
# Prints each file's spec output without its closing counts (scripts/test-reporter.mjs), then one
# closing summary of all the files in the spec reporter's shape (ℹ tests N ... ℹ duration_ms N),
# after the failed files and, for each failed test, its place and the first lines of its error;
# exits 1 when a test or a file failed. A file stopped is named with the test it was running.
#   scripts/test-files.sh <file.test.js>...
set -euo pipefail
cd "$(dirname "$0")/.."
budget=${TEST_FILE_TIMEOUT:-15m}
dir=$(mktemp -d)
running=
cleanup() {
  if [ -n "$running" ]; then kill -TERM -- "-$running" 2>/dev/null || true; fi
  rm -rf "$dir"
}
trap cleanup EXIT
# Interrupted (Ctrl-C, a cancelled job): the file's process group is not the terminal's, so
# cleanup stops it.
trap 'exit 130' INT TERM

failed=()
n=0
for file in "$@"; do
  n=$((n + 1))
  # timeout puts the file's runner in a process group of its own and signals the whole group.
  WAP_TEST_COUNTS="$dir/$n.json" WAP_TEST_RUNNING="$dir/$n.running.json" WAP_TEST_FAILURES="$dir/$n.failures.json" timeout --kill-after=30s "$budget" node --test --enable-source-maps \
    --disable-warning=ExperimentalWarning --test-reporter=./scripts/test-reporter.mjs "$file" &
  running=$!
  code=0
  wait "$running" || code=$?
  running=
  echo "$code" >"$dir/$n.exit"
  if [ "$code" = 124 ] || [ "$code" = 137 ]; then
    echo "✖ $file did not finish within $budget: stopped, with every process it started"
    # Where it hung: the test running then, or (none running) a hook or a handle after the last one.
    where=$(node -e '
      const { existsSync, readFileSync } = require("node:fs");
      const f = process.argv[1];
      const { running = "", lastEnded = "" } = existsSync(f) ? JSON.parse(readFileSync(f, "utf8")) : {};
      console.log(running ? `in: ${running}` : `in a hook or an open handle, after: ${lastEnded || "no test"}`);
    ' "$dir/$n.running.json")
    echo "  $where"
    failed+=("$file (did not finish within $budget, $where)")
  elif [ "$code" != 0 ]; then
    failed+=("$file")
  fi
done

if [ "${#failed[@]}" -gt 0 ]; then
  echo
  echo "✖ failing files:"
  printf '  %s\n' "${failed[@]}"
  # Why each test failed, last, where a run's tail shows it (the first 40 lines of it).
  echo "✖ why:"
  node -e '
    const { existsSync, readFileSync } = require("node:fs");
    const [dir, files] = [process.argv[1], Number(process.argv[2])];
    const lines = [];
    for (let n = 1; n <= files; n++) {
      const json = `${dir}/${n}.failures.json`;
      for (const f of existsSync(json) ? JSON.parse(readFileSync(json, "utf8")) : [])
        lines.push(`  ${f.name} (${f.at})`, ...f.reason.split("\n").map((l) => `    ${l}`));
    }
    console.log(lines.slice(0, 40).join("\n"));
  ' "$dir" "$n"
fi
# One closing summary, as node's runner closes a run: a file that failed with no test counted
# failed (stopped, or ended before its counts) counts as one failed test.
node -e '
  const { existsSync, readFileSync } = require("node:fs");
  const [dir, files] = [process.argv[1], Number(process.argv[2])];
  const sum = {};
  for (let n = 1; n <= files; n++) {
    const json = `${dir}/${n}.json`;
    const counts = existsSync(json) ? JSON.parse(readFileSync(json, "utf8")) : {};
    if (readFileSync(`${dir}/${n}.exit`, "utf8").trim() !== "0" && !(counts.fail > 0)) {
      counts.tests = (counts.tests ?? 0) + 1;
      counts.fail = 1;
    }
    for (const [key, value] of Object.entries(counts)) sum[key] = (sum[key] ?? 0) + value;
  }
  for (const key of ["tests", "suites", "pass", "fail", "cancelled", "skipped", "todo", "duration_ms"])
    console.log(`ℹ ${key} ${key === "duration_ms" ? +(sum[key] ?? 0).toFixed(6) : (sum[key] ?? 0)}`);
' "$dir" "$n"
[ "${#failed[@]}" = 0 ]
