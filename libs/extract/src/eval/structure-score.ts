/*
 * Scores extraction on the non-article set (libs/extract/bench/structure): listings, product,
 * landing, docs index, short and minified pages, where the question is less "which snippets"
 * than "are the words, blocks and headings still there, apart, and without the menus".
 */

/** One case of the non-article set, as in its `cases.json`. */
export interface StructureCase {
  file: string;
  kind: string;
  /** The main content as Markdown-lite: `#` headings and `- ` list items on their own lines. */
  expected: string;
  /** Chrome that must not be in the text (menus, footers, cookie banners). */
  absent: string[];
}

export interface StructureOutput {
  text: string;
  markdown: string;
}

export interface StructureCounts {
  /** Expected tokens found in the text (bag of words), of expected, of extracted. */
  tokensMatched: number;
  tokensExpected: number;
  tokensExtracted: number;
  /** Adjacent expected words that appear glued into one token of the text ("homeabout"). */
  fused: number;
  pairs: number;
  /** Expected headings found as Markdown headings, expected list items as list items. */
  headings: number;
  headingsExpected: number;
  items: number;
  itemsExpected: number;
  /** `absent` snippets found in the text. */
  chrome: number;
  chromeExpected: number;
}

export interface StructureCaseScore extends StructureCounts {
  id: string;
  fusedPairs: string[];
  missingHeadings: string[];
  missingItems: string[];
  leaked: string[];
}

export interface StructureScore extends StructureCounts {
  precision: number;
  recall: number;
  f1: number;
  cases: StructureCaseScore[];
}

const HEADING = /^#{1,6}\s+(.*)$/;
const ITEM = /^\s*(?:[-*+]|\d+[.)])\s+(.*)$/;

/** Lower-cased runs of letters and digits: the words a search index would see. */
export function tokens(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** The expected text without its Markdown-lite markers. */
export function expectedText(expected: string): string {
  return expected
    .split('\n')
    .map((line) => line.replace(/^#{1,6}\s+|^- /, ''))
    .join('\n');
}

/** A Markdown line's words without link, emphasis and escape syntax. */
function plain(line: string): string {
  return line
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*`\\]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

export function scoreStructureCase(id: string, testCase: StructureCase, output: StructureOutput): StructureCaseScore {
  const expected = tokens(expectedText(testCase.expected));
  const extracted = tokens(output.text);
  const bag = new Map<string, number>();
  for (const token of extracted) bag.set(token, (bag.get(token) ?? 0) + 1);
  let matched = 0;
  for (const token of expected) {
    const left = bag.get(token) ?? 0;
    if (left > 0) {
      matched++;
      bag.set(token, left - 1);
    }
  }
  const expectedSet = new Set(expected);
  const extractedSet = new Set(extracted);
  const pairs = new Set<string>();
  for (let i = 1; i < expected.length; i++) pairs.add(`${expected[i - 1]} ${expected[i]}`);
  const fusedPairs = [...pairs].filter((pair) => {
    const glued = pair.replace(' ', '');
    return extractedSet.has(glued) && !expectedSet.has(glued);
  });

  const lines = output.markdown.split('\n');
  const headings = new Set(lines.flatMap((line) => HEADING.exec(line)?.[1] ?? []).map(plain));
  const items = new Set(lines.flatMap((line) => ITEM.exec(line)?.[1] ?? []).map(plain));
  const wantedHeadings = testCase.expected.split('\n').flatMap((line) => HEADING.exec(line)?.[1] ?? []);
  const wantedItems = testCase.expected.split('\n').flatMap((line) => (line.startsWith('- ') ? [line.slice(2)] : []));
  const missingHeadings = wantedHeadings.filter((heading) => !headings.has(plain(heading)));
  const missingItems = wantedItems.filter((item) => !items.has(plain(item)));
  const leaked = testCase.absent.filter((snippet) => output.text.includes(snippet));
  return {
    id,
    tokensMatched: matched,
    tokensExpected: expected.length,
    tokensExtracted: extracted.length,
    fused: fusedPairs.length,
    pairs: pairs.size,
    headings: wantedHeadings.length - missingHeadings.length,
    headingsExpected: wantedHeadings.length,
    items: wantedItems.length - missingItems.length,
    itemsExpected: wantedItems.length,
    chrome: leaked.length,
    chromeExpected: testCase.absent.length,
    fusedPairs,
    missingHeadings,
    missingItems,
    leaked,
  };
}

/** Sums the counts over the cases; token P/R/F1 are micro-averaged. A missing output is empty. */
export function scoreStructure(
  cases: Readonly<Record<string, StructureCase>>,
  outputs: ReadonlyMap<string, StructureOutput>,
): StructureScore {
  const total: StructureScore = {
    tokensMatched: 0,
    tokensExpected: 0,
    tokensExtracted: 0,
    fused: 0,
    pairs: 0,
    headings: 0,
    headingsExpected: 0,
    items: 0,
    itemsExpected: 0,
    chrome: 0,
    chromeExpected: 0,
    precision: 0,
    recall: 0,
    f1: 0,
    cases: [],
  };
  const counted: Array<keyof StructureCounts> = [
    'tokensMatched',
    'tokensExpected',
    'tokensExtracted',
    'fused',
    'pairs',
    'headings',
    'headingsExpected',
    'items',
    'itemsExpected',
    'chrome',
    'chromeExpected',
  ];
  for (const [id, testCase] of Object.entries(cases)) {
    const one = scoreStructureCase(id, testCase, outputs.get(id) ?? { text: '', markdown: '' });
    for (const key of counted) total[key] += one[key];
    total.cases.push(one);
  }
  total.precision = ratio(total.tokensMatched, total.tokensExtracted);
  total.recall = ratio(total.tokensMatched, total.tokensExpected);
  total.f1 = ratio(2 * total.precision * total.recall, total.precision + total.recall);
  return total;
}

/** One line for the evaluator and the bench. */
export function describeStructure(score: StructureScore): string {
  return (
    `token P ${score.precision.toFixed(4)} R ${score.recall.toFixed(4)} F1 ${score.f1.toFixed(4)}, ` +
    `fused words ${score.fused} of ${score.pairs} pairs, headings ${score.headings}/${score.headingsExpected}, ` +
    `list items ${score.items}/${score.itemsExpected}, chrome leaked ${score.chrome}/${score.chromeExpected}`
  );
}

function ratio(numerator: number, denominator: number): number {
  return denominator === 0 ? 0 : numerator / denominator;
}
