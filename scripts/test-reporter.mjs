// node --test's spec reporter without a run's closing counts (ℹ tests, ℹ pass, ℹ fail, ...),
// which go to the JSON file WAP_TEST_COUNTS names instead: scripts/test-files.sh runs test
// files one at a time and closes with one summary of them all, in the same shape. Each failed
// test's name, place and first lines of its error go to the JSON file WAP_TEST_FAILURES names, for
// that closing: a run's last lines then say what failed and why, not only which file. The test
// running now (its suites › its name) is kept in the file WAP_TEST_RUNNING names, rewritten as each
// test starts and ends: a file stopped for taking too long is then named with the test it hung in.
import { writeFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { spec } from 'node:test/reporters';

/** The run's closing counts, as the runner reports them: top-level diagnostics. */
const CLOSING = /^(tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) (\d+(?:\.\d+)?)$/;

/** The first lines of what made a test fail: the assertion's message, with its diff. */
function reasonOf(error) {
  const cause = error?.cause ?? error;
  const text = String(cause?.message ?? cause ?? 'failed');
  return text.split('\n').slice(0, 8).join('\n').slice(0, 1200);
}

export default async function* specWithoutClosingCounts(source) {
  const counts = {};
  const failures = [];
  // Names of the test running and the suites around it, by nesting; the last test that ended.
  const running = [];
  let lastEnded = '';
  const keepRunning = () => {
    if (process.env.WAP_TEST_RUNNING)
      writeFileSync(process.env.WAP_TEST_RUNNING, JSON.stringify({ running: running.join(' › '), lastEnded }));
  };
  async function* events() {
    for await (const event of source) {
      if (event.type === 'test:dequeue' && event.data.nesting >= 0) {
        running.length = event.data.nesting;
        running[event.data.nesting] = event.data.name;
        keepRunning();
      } else if (event.type === 'test:pass' || event.type === 'test:fail') {
        lastEnded = [...running.slice(0, event.data.nesting), event.data.name].join(' › ');
        running.length = Math.min(running.length, event.data.nesting);
        keepRunning();
      }
      // A suite whose tests failed says only that: its tests' own failures are the ones to show.
      if (event.type === 'test:fail' && event.data.details?.error?.failureType !== 'subtestsFailed')
        failures.push({
          name: event.data.name,
          at: `${event.data.file ?? '?'}:${event.data.line ?? '?'}`,
          reason: reasonOf(event.data.details?.error),
        });
      const closing = event.type === 'test:diagnostic' && event.data.nesting === 0 && CLOSING.exec(event.data.message);
      if (closing) counts[closing[1]] = Number(closing[2]);
      else yield event;
    }
  }
  yield* Readable.from(events()).pipe(new spec());
  if (process.env.WAP_TEST_COUNTS) writeFileSync(process.env.WAP_TEST_COUNTS, JSON.stringify(counts));
  if (process.env.WAP_TEST_FAILURES) writeFileSync(process.env.WAP_TEST_FAILURES, JSON.stringify(failures));
}
