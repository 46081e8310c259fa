import assert from 'node:assert/strict';
import { test } from 'node:test';
import { collapsedLength, trim } from './dom.js';

test('trim collapses white space runs of every kind and trims; collapsedLength counts the same text without building it', () => {
  const cases: [string, string][] = [
    ['', ''],
    ['word', 'word'],
    ['already collapsed text of a paragraph.', 'already collapsed text of a paragraph.'],
    [' leading', 'leading'],
    ['trailing ', 'trailing'],
    ['double  space', 'double space'],
    ['tab\tinside', 'tab inside'],
    ['line\nbreak', 'line break'],
    ['no\u00a0break space', 'no break space'],
    ['ideographic\u3000space', 'ideographic space'],
    ['\u2028line separator', 'line separator'],
    ['  \n\t ', ''],
    ['a \u00a0 b', 'a b'],
  ];
  for (const [input, collapsed] of cases) {
    assert.equal(trim(input), collapsed, JSON.stringify(input));
    assert.equal(collapsedLength(input), collapsed.length, JSON.stringify(input));
  }
  assert.equal(trim(null), '');
  assert.equal(collapsedLength(undefined), 0);
});
