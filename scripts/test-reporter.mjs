// node --test's spec reporter without a run's closing counts (ℹ tests, ℹ pass, ℹ fail, ...),
// which go to the JSON file WAP_TEST_COUNTS names instead: scripts/test-files.sh runs test
// files one at a time and closes with one summary of them all, in the same shape.
import { writeFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { spec } from 'node:test/reporters';

/** The run's closing counts, as the runner reports them: top-level diagnostics. */
const CLOSING = /^(tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) (\d+(?:\.\d+)?)$/;

export default async function* specWithoutClosingCounts(source) {
  const counts = {};
  async function* events() {
    for await (const event of source) {
      const closing = event.type === 'test:diagnostic' && event.data.nesting === 0 && CLOSING.exec(event.data.message);
      if (closing) counts[closing[1]] = Number(closing[2]);
      else yield event;
    }
  }
  yield* Readable.from(events()).pipe(new spec());
  if (process.env.WAP_TEST_COUNTS) writeFileSync(process.env.WAP_TEST_COUNTS, JSON.stringify(counts));
}
