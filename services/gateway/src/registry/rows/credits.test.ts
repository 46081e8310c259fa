import assert from 'node:assert/strict';
import { test } from 'node:test';
import { create } from '@bufbuild/protobuf';
import { timestampFromMs } from '@bufbuild/protobuf/wkt';
import { ledger } from '@wap/proto';
import { changesBySelfAt } from './credits.js';

const now = Date.UTC(2026, 10, 22, 12);
const view = (allowanceResetsAt: number, lapses: (number | undefined)[]) =>
  create(ledger.CreditsResponseSchema, {
    allowanceResetsAt: timestampFromMs(allowanceResetsAt),
    grants: lapses.map((at) => ({ ...(at === undefined ? {} : { lapsesAt: timestampFromMs(at) }) })),
  });

test('a credit view changes by itself at the first future lapse or allowance reset', () => {
  const reset = now + 9 * 86_400_000;
  assert.equal(changesBySelfAt(view(reset, []), now), reset);
  assert.equal(changesBySelfAt(view(reset, [now + 60_000, undefined, now + 5_000]), now), now + 5_000);
});

test('a grant that lapsed already does not make the view expire at once, over and over', () => {
  const reset = now + 9 * 86_400_000;
  assert.equal(changesBySelfAt(view(reset, [now - 86_400_000, now + 60_000]), now), now + 60_000);
  assert.equal(changesBySelfAt(view(reset, [now - 1]), now), reset);
});
