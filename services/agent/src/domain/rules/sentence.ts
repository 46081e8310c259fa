// A rule sentence read for the compiler: cleaned (NFKC, one kind of quote,
// dash and space, bounded), with its domains, amounts, counts and secret
// handles taken out and put back as placeholders, which the sentence forms
// (forms.ts) match as words: `only visit ⟨d0⟩ and ⟨d1⟩`.
import { isCurrency } from '../currencies.js';
import { domainPatternOf } from './domains.js';
import type { Money } from './gate.js';

/** Sentences longer than this are not compiled: a rule is a sentence, not a document. */
export const MAX_SENTENCE = 500;

/** An amount of money, or why the way it is written names no one currency. */
export type WrittenMoney = Money | { why: string };

export interface Reading {
  /** The sentence with placeholders `\uE000<kind><index>\uE001`: d domain, m money, c credits, n count, h handle. */
  text: string;
  domains: string[];
  money: WrittenMoney[];
  credits: number[];
  counts: number[];
  handles: string[];
}

/** The placeholder for the `index`th entity of `kind`. */
export const mark = (kind: string, index: number) => `\uE000${kind}${index}\uE001`;

const SYMBOLS: Record<string, string | undefined> = {
  $: 'USD',
  US$: 'USD',
  C$: 'CAD',
  CA$: 'CAD',
  A$: 'AUD',
  AU$: 'AUD',
  NZ$: 'NZD',
  HK$: 'HKD',
  S$: 'SGD',
  R$: 'BRL',
  '€': 'EUR',
  '£': 'GBP',
  '₹': 'INR',
  '₩': 'KRW',
  '¥': undefined,
};
const WORDS: Record<string, string | undefined> = {
  dollar: 'USD',
  buck: 'USD',
  euro: 'EUR',
  pound: 'GBP',
  'pound sterling': 'GBP',
  yen: 'JPY',
  yuan: 'CNY',
  rupee: 'INR',
  'swiss franc': 'CHF',
  franc: undefined,
};
const AMBIGUOUS: Record<string, string> = {
  '¥': '¥ may be yen or yuan: write JPY or CNY',
  franc: 'francs may be Swiss or another franc: write CHF or the code',
};
/** Codes also read in lowercase ("50 usd"); others only in capitals, so "50 all" is not Albanian lek. */
const LOWER_CODES =
  'usd|eur|gbp|jpy|chf|cad|aud|cny|inr|sek|nok|dkk|pln|czk|nzd|sgd|hkd|brl|mxn|zar|krw|huf|ron|try|ils|aed';

const NUM = String.raw`(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)`;
const BEFORE = String.raw`(?<![\p{L}\p{N}_.,$€£¥₹₩])`;
const AFTER = String.raw`(?![\p{L}\p{N}_]|\.\d)`;
const SYMBOL = String.raw`(US\$|CA?\$|AU?\$|NZ\$|HK\$|S\$|R\$|\$|€|£|₹|₩|¥)`;
const PREFIX_SYMBOL = new RegExp(String.raw`(?<![\p{L}\p{N}_])${SYMBOL}\s?${NUM}${AFTER}`, 'gu');
const PREFIX_CODE = new RegExp(String.raw`(?<![\p{L}\p{N}_])([A-Z]{3})\s?${NUM}${AFTER}`, 'gu');
/** "50 USD", "50 usd", "50€": codes are case-sensitive but for the common ones. */
const SUFFIX_CODE = new RegExp(String.raw`${BEFORE}${NUM}\s?([A-Z]{3}|${LOWER_CODES}|€|£|\$|¥|₹|₩)(?![\p{L}])`, 'gu');
const SUFFIX_WORD = new RegExp(
  String.raw`${BEFORE}${NUM}\s?(credits?|dollars?|bucks?|euros?|pounds?(?: sterling)?|yen|yuan|rupees?|swiss francs?|francs?)(?![\p{L}])`,
  'giu',
);
const COUNT_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
const COUNT_WORD = new RegExp(
  String.raw`\b(${COUNT_WORDS.join('|')})\b(?=\s+(?:more\s+)?(?:steps?|purchases?|orders?)\b)`,
  'gi',
);
const COUNT = new RegExp(String.raw`${BEFORE}(\d{1,3}(?:,\d{3})+|\d+)${AFTER}(?![.,]\d)`, 'gu');
const QUOTED_HANDLE = /(["'`])([A-Za-z0-9_:-]{1,100})\1/g;
const NAMED_HANDLE =
  /\b((?:secret|handle|credential|password|token|key|login)s?\s+(?:named\s+|called\s+)?)([A-Za-z0-9_:-]*[_:\d-][A-Za-z0-9_:-]*)(?![\w.])/gi;
const HOSTLIKE =
  /(?<![\p{L}\p{N}@._/-])(?:https?:\/\/)?(?:\*\.)?(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]{0,61}[\p{L}\p{N}])?\.)+\p{L}[\p{L}\p{N}-]{0,62}(?::\d{1,5})?(?:\/[^\s,;"'`)]*)?/giu;
const SUFFIX_ONLY = /(?<![\p{L}\p{N}._*-])\*?\.([a-z]{2,63})(?![\p{L}\p{N}.-])/giu;

const amountOf = (written: string) => Number(written.replaceAll(',', ''));

/** Text cleaned for reading, or why the sentence cannot be read as a rule at all. */
function clean(sentence: string): { text: string } | { problem: string } {
  if (typeof sentence !== 'string') return { problem: 'it is not text' };
  if (sentence.length > MAX_SENTENCE) return { problem: `it is longer than ${MAX_SENTENCE} characters` };
  if (!sentence.isWellFormed()) return { problem: 'it is not well-formed unicode' };
  const text = sentence
    .normalize('NFKC')
    .replace(/\s+/g, ' ')
    .replace(/[‘’‚‛′]/g, "'")
    .replace(/[“”„‟″]/g, '"')
    .replace(/[‐‑‒–—―]/g, '-');
  const hidden = /[\p{Cc}\p{Cf}\p{Co}]/u.exec(text);
  if (hidden) {
    const code = hidden[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    return { problem: `it has an invisible or control character (U+${code})` };
  }
  const trimmed = text.trim().replace(/[\s.!]+$/, '');
  return trimmed ? { text: trimmed } : { problem: 'it is empty' };
}

/** Latin letters mixed with another script in one label, as look-alike domains are made. */
const mixesScripts = (host: string) =>
  host.split('.').some((label) => /[a-z]/i.test(label) && /(?![\p{Script=Latin}])\p{L}/u.test(label));

/** The sentence with its entities as placeholders, or why it is not read (length, hidden characters, a look-alike domain). */
export function readSentence(sentence: string): { reading: Reading } | { problem: string } {
  const cleaned = clean(sentence);
  if ('problem' in cleaned) return cleaned;
  const r: Reading = { text: cleaned.text, domains: [], money: [], credits: [], counts: [], handles: [] };
  let problem: string | undefined;
  const put = <T>(list: T[], kind: string, value: T) => mark(kind, list.push(value) - 1);

  r.text = r.text
    .replace(QUOTED_HANDLE, (_, _q, handle: string) => put(r.handles, 'h', handle))
    .replace(NAMED_HANDLE, (_, noun: string, handle: string) => noun + put(r.handles, 'h', handle))
    .replace(HOSTLIKE, (written) => {
      const host = written.replace(/^https?:\/\//i, '').replace(/[/:].*$/s, '');
      if (mixesScripts(host)) problem ??= `the domain ${written} mixes scripts, as look-alike domains do`;
      const pattern = domainPatternOf(written);
      return pattern ? put(r.domains, 'd', pattern) : written;
    })
    .replace(SUFFIX_ONLY, (written, suffix: string) => {
      const pattern = domainPatternOf(`*.${suffix.toLowerCase()}`);
      return pattern ? put(r.domains, 'd', pattern) : written;
    })
    .replace(PREFIX_SYMBOL, (_, symbol: string, n: string) => {
      const currency = SYMBOLS[symbol];
      return put(r.money, 'm', currency ? { amount: amountOf(n), currency } : { why: AMBIGUOUS[symbol]! });
    })
    .replace(PREFIX_CODE, (written, code: string, n: string) =>
      isCurrency(code) ? put(r.money, 'm', { amount: amountOf(n), currency: code }) : written,
    )
    .replace(SUFFIX_CODE, (written, n: string, unit: string) => {
      const currency = unit in SYMBOLS ? SYMBOLS[unit] : unit.toUpperCase();
      if (currency === undefined) return put(r.money, 'm', { why: AMBIGUOUS[unit]! });
      return isCurrency(currency) ? put(r.money, 'm', { amount: amountOf(n), currency }) : written;
    })
    .replace(SUFFIX_WORD, (_, n: string, unit: string) => {
      const word = unit
        .toLowerCase()
        .replace(/s$/, '')
        .replace(/s sterling$/, ' sterling');
      if (word === 'credit') return put(r.credits, 'c', amountOf(n));
      const currency = WORDS[word];
      return put(r.money, 'm', currency ? { amount: amountOf(n), currency } : { why: AMBIGUOUS[word]! });
    })
    .replace(COUNT_WORD, (word: string) => put(r.counts, 'n', COUNT_WORDS.indexOf(word.toLowerCase())))
    .replace(COUNT, (n: string) => put(r.counts, 'n', amountOf(n)))
    .replace(/(["'`])(\uE000\w+\uE001)\1/g, '$2')
    .replace(/(\uE001)'s\b/g, '$1');
  return problem ? { problem } : { reading: r };
}

/** The indexes of the `kind` placeholders in `text`, in order. */
export function marksIn(text: string, kind: string): number[] {
  return [...text.matchAll(new RegExp(`\uE000${kind}(\\d+)\uE001`, 'g'))].map((m) => Number(m[1]));
}
