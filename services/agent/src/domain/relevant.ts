// The part of a page's markdown that answers a query: its paragraphs ranked
// by how many of the query's words they hold, the best kept up to a budget
// and shown in page order. A long page costs the model a few paragraphs,
// not its whole text.

export interface RelevantPart {
  text: string;
  /** Paragraphs kept, and how many the page had. */
  kept: number;
  total: number;
}

const STOPWORDS = new Set(
  'the a an and or of to in on at for from by with about into what which who whom whose when where why how is are was were be been being do does did this that these those it its as than then there their them they you your our we he she his her not no all any each find get give list show tell page me my'.split(
    ' ',
  ),
);

const wordsOf = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** A word's crude stem, so "prices" finds "price" and "booking" finds "book". */
function stem(word: string): string {
  if (word.length > 5 && word.endsWith('ing')) return word.slice(0, -3);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

/** The query's words worth matching: no stopwords, no single letters, stemmed, once each. */
export function queryTerms(query: string): string[] {
  return [
    ...new Set(
      wordsOf(query)
        .filter((w) => w.length > 1 && !STOPWORDS.has(w))
        .map(stem),
    ),
  ];
}

/** Splits markdown into paragraphs, long ones cut to pieces of at most `max` characters. */
function paragraphs(markdown: string, max: number): string[] {
  const out: string[] = [];
  for (const block of markdown.split(/\n\s*\n/)) {
    const text = block.trim();
    for (let start = 0; start < text.length; start += max) out.push(text.slice(start, start + max));
  }
  return out;
}

export function relevantPart(markdown: string, query: string, maxChars: number): RelevantPart {
  const blocks = paragraphs(markdown, Math.max(200, Math.floor(maxChars / 2)));
  const terms = queryTerms(query);
  const scored = blocks.map((text, order) => {
    const stems = new Set(wordsOf(text).map(stem));
    const matched = terms.filter((t) => stems.has(t)).length;
    // Distinct words matched first; among equals, the denser paragraph.
    return { text, order, score: matched === 0 ? 0 : matched + matched / Math.sqrt(stems.size + 1) };
  });
  const anyMatch = scored.some((s) => s.score > 0);
  // With nothing matched, the page's beginning is the best guess.
  const ranked = anyMatch ? [...scored].filter((s) => s.score > 0).sort((a, b) => b.score - a.score) : scored;
  const kept: typeof scored = [];
  let chars = 0;
  for (const block of ranked) {
    if (chars + block.text.length > maxChars) {
      if (kept.length > 0) continue;
      kept.push({ ...block, text: block.text.slice(0, maxChars) });
      break;
    }
    kept.push(block);
    chars += block.text.length + 2;
  }
  kept.sort((a, b) => a.order - b.order);
  const parts: string[] = [];
  let last = -1;
  for (const block of kept) {
    if (block.order > last + 1 && parts.length > 0) parts.push('…');
    parts.push(block.text);
    last = block.order;
  }
  return { text: parts.join('\n\n'), kept: kept.length, total: blocks.length };
}
