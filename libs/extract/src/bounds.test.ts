import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { linearParagraphs, textWithoutParsing } from './bounds.js';
import { parseDocument } from './dom.js';
import { extract } from './index.js';

describe('extract: junk and hostile input', () => {
  it('never throws on junk', () => {
    const junk: unknown[] = [
      '',
      '   ',
      null,
      undefined,
      42,
      'just words',
      '<',
      '<html',
      '</div></div><p>',
      '<html><body><div><p>abc<table><tr><td>x<div><ul><li>y',
      String.fromCharCode(...Array.from({ length: 4000 }, (_, i) => (i * 7919) % 256)),
      '\u0000\u0001\uFFFD<p>\u0000</p>',
      '<svg><foreignObject><p>inside</p></foreignObject></svg>',
    ];
    for (const input of junk) {
      const result = extract(input as string, 'not a url');
      assert.equal(typeof result.text, 'string');
      assert.equal(typeof result.markdown, 'string');
      assert.ok(Array.isArray(result.links));
    }
  });

  it('keeps the text of a bare fragment', () => {
    assert.equal(extract('just words').text, 'just words');
  });

  it('bounds a page with too many elements', () => {
    const rows = Array.from({ length: 70_000 }, (_, i) => `<p>Paragraph ${i} of a very long page.</p>`).join('');
    // How long it takes is measured by make bench (libs/extract/src/bench/bounds.bench.ts).
    const value = extract(`<html><body>${rows}</body></html>`, 'https://example.org/');
    assert.match(value.text, /Paragraph 69999 of a very long page\./);
    assert.match(value.warnings.join(), /plain paragraphs only/);
  });

  it('bounds an absurdly deep page without parsing it', () => {
    const deep = `<html><body>${'<div>'.repeat(50_000)}deep &amp; text${'</div>'.repeat(50_000)}</body></html>`;
    const value = extract(deep, 'https://example.org/');
    assert.equal(value.text, 'deep & text');
    assert.ok(value.warnings.length > 0, 'the bound says it was taken');
  });

  it('truncates oversized input', () => {
    const value = extract(`<p>${'word '.repeat(1_100_000)}</p>`, 'https://example.org/');
    assert.match(value.warnings.join(), /input truncated/);
  });

  it('the linear paths keep cells, items and text after a block apart', () => {
    const page =
      '<div><h1>Kettles</h1>In stock<table><tr><th>Capacity</th><td>1.7 l</td></tr></table>' +
      '<dl><dt>Weight</dt><dd>1.2 kg</dd></dl><p>Hand-made</p>copper</div>';
    const body = parseDocument(`<html><body>${page}</body></html>`).querySelector('body')!;
    const expected = ['Kettles', 'In stock', 'Capacity', '1.7 l', 'Weight', '1.2 kg', 'Hand-made', 'copper'];
    assert.deepEqual(linearParagraphs(body), expected);
    assert.deepEqual(textWithoutParsing(page), expected);
  });
});
