import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeHtml } from './decode.js';
import { foldWhiteSpace, score } from './score.js';

describe('score', () => {
  it('folds white space runs without trimming', () => {
    assert.equal(foldWhiteSpace(' a \n\t b\u00a0 c '), ' a b c ');
  });

  it('sums TP, FN and FP over cases, then P, R and F1', () => {
    const cases = {
      a: { file: 'a.html', with: ['main  text', 'second\nline'], without: ['Menu'] },
      b: { file: 'b.html', with: ['story'], without: ['Footer', 'Share'] },
      c: { file: 'c.html', with: ['never extracted'], without: ['nothing'] },
    };
    const extracted = new Map([
      ['a', 'Here is the main text. A second   line. Menu'],
      ['b', 'A story. Share this'],
    ]);
    const result = score(cases, extracted);
    // a: TP 2, FP 1; b: TP 1, FP 1, TN 1; c (missing): FN 1, TN 1.
    assert.deepEqual([result.tp, result.fn, result.fp, result.tn], [3, 1, 2, 2]);
    assert.equal(result.precision, 3 / 5);
    assert.equal(result.recall, 3 / 4);
    assert.equal(result.f1, (2 * (3 / 5) * (3 / 4)) / (3 / 5 + 3 / 4));
    assert.deepEqual(result.cases[0]?.leaked, ['Menu']);
    assert.deepEqual(result.cases[2]?.missing, ['never extracted']);
  });

  it('takes a plain record of texts too', () => {
    const result = score({ x: { file: 'x.html', with: ['a'], without: [] } }, { x: 'a' });
    assert.equal(result.f1, 1);
  });
});

describe('decodeHtml', () => {
  const latin1 = (text: string): Uint8Array => Uint8Array.from(text, (c) => c.charCodeAt(0));

  it('honours a byte-order mark', () => {
    assert.equal(decodeHtml(Uint8Array.from([0xef, 0xbb, 0xbf, 0x68, 0x69])), 'hi');
  });

  it('prefers valid UTF-8 over a wrong declaration', () => {
    const bytes = new TextEncoder().encode('<meta charset="iso-8859-1"><p>Grüße</p>');
    assert.match(decodeHtml(bytes), /Grüße/);
  });

  it('uses the declared single-byte charset', () => {
    assert.match(decodeHtml(latin1('<meta charset="windows-1252"><p>Gr\xfc\xdfe \x80</p>')), /Grüße €/);
    assert.match(decodeHtml(latin1('<p>x</p>'), 'text/html; charset=iso-8859-2'), /x/);
  });

  it('falls back to windows-1252 for undeclared non-UTF-8 bytes', () => {
    assert.match(decodeHtml(latin1('<p>Gr\xfc\xdfe</p>')), /Grüße/);
  });
});
