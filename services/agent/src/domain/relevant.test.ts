import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { queryTerms, relevantPart } from './relevant.js';

const filler = (i: number) => `Paragraph ${i} is about the weather in the mountains and the long walks there.`;

describe('relevantPart', () => {
  it('keeps the paragraphs holding most of the query words, in page order', () => {
    const page = [
      ...Array.from({ length: 200 }, (_, i) => filler(i)),
      'Opening hours: the museum opens at 9.',
      'Prices: a ticket to the museum costs 12 euros.',
      filler(999),
    ].join('\n\n');
    const part = relevantPart(page, 'How much does a museum ticket cost?', 4000);
    assert.equal(part.text, 'Opening hours: the museum opens at 9.\n\nPrices: a ticket to the museum costs 12 euros.');
    assert.deepEqual([part.kept, part.total], [2, 203]);
    const tight = relevantPart(page, 'How much does a museum ticket cost?', 60);
    assert.equal(tight.text, 'Prices: a ticket to the museum costs 12 euros.');
  });

  it('answers the beginning of the page, bounded, when no word matches', () => {
    const page = Array.from({ length: 500 }, (_, i) => filler(i)).join('\n\n');
    const part = relevantPart(page, 'zebra', 1000);
    assert.ok(part.text.startsWith('Paragraph 0 '));
    assert.ok(part.text.length <= 1000);
  });

  it('drops stopwords and plural endings from the query', () => {
    assert.deepEqual(queryTerms('What are the prices of the tickets?'), ['price', 'ticket']);
  });
});
