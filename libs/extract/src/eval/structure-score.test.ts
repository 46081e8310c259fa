import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expectedText, scoreStructure, tokens } from './structure-score.js';

describe('structure score', () => {
  it('reads words as a search index would and strips the expected markers', () => {
    assert.deepEqual(tokens('Grey heron: €49.00, Café'), ['grey', 'heron', '49', '00', 'café']);
    assert.equal(expectedText('# Title\nIntro\n- item one'), 'Title\nIntro\nitem one');
  });

  it('counts tokens, glued pairs, headings, list items and leaked chrome', () => {
    const cases = {
      a: { file: 'a.html', kind: 'short', expected: '# Herons\nThe quiet heron.\n- Grey heron', absent: ['Home'] },
      b: { file: 'b.html', kind: 'short', expected: 'Never extracted', absent: [] },
    };
    const outputs = new Map([
      [
        'a',
        { text: 'HomeAbout HeronsThe quiet heron. Grey heron', markdown: 'HeronsThe quiet heron.\n- [Grey heron](/g)' },
      ],
    ]);
    const result = scoreStructure(cases, outputs);
    // a: expected herons the quiet heron grey heron (6); extracted homeabout heronsthe quiet heron grey heron (6).
    assert.deepEqual([result.tokensMatched, result.tokensExpected, result.tokensExtracted], [4, 8, 6]);
    assert.equal(result.precision, 4 / 6);
    assert.equal(result.recall, 4 / 8);
    assert.deepEqual(result.cases[0]?.fusedPairs, ['herons the']);
    assert.deepEqual([result.fused, result.pairs], [1, 6]);
    assert.deepEqual(result.cases[0]?.missingHeadings, ['Herons']);
    assert.deepEqual([result.items, result.itemsExpected], [1, 1]);
    // "Home" is in "HomeAbout": a snippet test, as the article set's.
    assert.deepEqual([result.chrome, result.chromeExpected], [1, 1]);
  });
});
