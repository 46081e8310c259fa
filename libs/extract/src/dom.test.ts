import assert from 'node:assert/strict';
import { test } from 'node:test';
import { collapsedLength, trim } from './dom.js';

test('trim collapses white space runs and trims, whether or not the text was collapsed already', () => {
  const reference = (s: string) => s.replace(/\s+/g, ' ').trim();
  const samples = [
    '',
    'word',
    'two words',
    'already collapsed text of a paragraph.',
    ' leading',
    'trailing ',
    'double  space',
    'tab\tinside',
    'line\nbreak',
    'no\u00a0break space',
    'ideographic\u3000space',
    '\u2028line separator',
    '  \n\t ',
    ' ',
    'a \u00a0 b',
  ];
  for (const s of samples) {
    assert.equal(trim(s), reference(s), JSON.stringify(s));
    assert.equal(collapsedLength(s), reference(s).length, JSON.stringify(s));
  }
  assert.equal(trim(null), '');
  assert.equal(trim(undefined), '');
});
