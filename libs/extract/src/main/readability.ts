import { Readability } from '@mozilla/readability';
import { cleanForExtraction } from '../clean.js';
import { pruneSections } from './prune.js';

/** Readability has its own limit on work; pages past it go without the comparison. */
const MAX_ELEMENTS = 20000;

/**
 * Mozilla's Readability: a second opinion that wins when the container rules found clearly
 * less. It rewrites the document it reads, so `document` is spent afterwards. Returns the
 * cleaned article, or undefined when it finds nothing.
 */
export function readabilityCandidate(document: Document): Element | undefined {
  try {
    const article = new Readability(document, {
      maxElemsToParse: MAX_ELEMENTS,
      charThreshold: 250,
      keepClasses: true,
    }).parse();
    if (!article?.content) return undefined;
    const out = document.createElement('div');
    out.innerHTML = article.content;
    cleanForExtraction(out);
    pruneSections(out);
    return out;
  } catch {
    // Readability throws past maxElemsToParse and on odd trees; the own extraction stands.
    return undefined;
  }
}
