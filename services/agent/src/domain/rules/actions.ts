// The words for the actions a gate forbids or holds for approval, in the three
// shapes sentences use them: "never buy anything" (verb), "ask before buying
// anything" (gerund), "no purchases" (noun). A list of them ("submit forms or
// download files") is read item by item, each item whole or not at all.
import type { GatedAction } from './gate.js';

type Shape = 'verb' | 'gerund' | 'noun';

const DETERMINER = '(?:a|an|any|the|some|my|your|our|all|every|each)';
const object = (nouns: string) => `(?: ${DETERMINER})?(?: (?:${nouns}))?`;
const NOUN_HEAD = `(?:${DETERMINER} )?`;
const SECRET_WORDS = '(?:secrets?|passwords?|credentials?|api keys?|tokens?|saved logins?|logins?)';
const STORED = `(?: (?:${DETERMINER}|stored|saved))*`;

const WORDS: Record<GatedAction, Record<Shape, string>> = {
  submit: {
    verb: `(?:submit|post)${object('(?:web )?forms?|anything|something|it')}|send(?: ${DETERMINER})? (?:web )?forms?|fill (?:in|out) and submit${object('(?:web )?forms?')}`,
    gerund: `(?:submitting|posting)${object('(?:web )?forms?|anything|something|it')}|sending(?: ${DETERMINER})? (?:web )?forms?|filling (?:in|out) and submitting${object('(?:web )?forms?')}`,
    noun: `${NOUN_HEAD}(?:(?:web )?form submissions?|submissions?|(?:web )?forms?)`,
  },
  purchase: {
    verb: `(?:buy|purchase|order|pay for)${object('anything|something|items?|products?|things|goods|stuff|it')}|(?:make|complete|place)(?: (?:a|an|any))? (?:purchases?|orders?|checkouts?|payments?)|pay|shop|check ?out|spend(?: any)? money`,
    gerund: `(?:buying|purchasing|ordering|paying for)${object('anything|something|items?|products?|things|goods|stuff|it')}|(?:making|completing|placing)(?: (?:a|an|any))? (?:purchases?|orders?|checkouts?|payments?)|paying|shopping|checking ?out|spending(?: any)? (?:money|anything)`,
    noun: `${NOUN_HEAD}(?:purchase[- ]like actions?|purchases?|orders?|checkouts?|payments?|transactions?|buying|shopping|spending)`,
  },
  download: {
    verb: `download${object('files?|anything|something|attachments?|documents?|software|programs?|it')}`,
    gerund: `downloading${object('files?|anything|something|attachments?|documents?|software|programs?|it')}`,
    noun: `${NOUN_HEAD}(?:file )?downloads?`,
  },
  upload: {
    verb: `(?:upload|attach)${object('files?|anything|something|documents?|attachments?|it')}`,
    gerund: `(?:uploading|attaching)${object('files?|anything|something|documents?|attachments?|it')}`,
    noun: `${NOUN_HEAD}(?:file )?uploads?`,
  },
  fill_secret: {
    verb: `(?:use|fill(?: in)?|enter|type|paste|share|reveal|submit)${STORED} ${SECRET_WORDS}`,
    gerund: `(?:using|filling(?: in)?|entering|typing|pasting|sharing|revealing|submitting)${STORED} ${SECRET_WORDS}`,
    noun: `${NOUN_HEAD}(?:use of${STORED} ${SECRET_WORDS}|(?:secret|password|credential) (?:use|fills?|entry))`,
  },
};

const SEPARATOR = /\s*,\s*(?:(?:and|or|nor)\s+)?|\s+(?:and|or|nor)\s+|\s*\/\s*/iy;
const ENDS = '(?=$|\\s*,|\\s+(?:and|or|nor)\\s|\\s*/)';
const READERS = Object.fromEntries(
  (['verb', 'gerund', 'noun'] as const).map((shape) => [
    shape,
    Object.entries(WORDS).map(([action, words]) => ({
      action: action as GatedAction,
      re: new RegExp(`(?:${words[shape]})${ENDS}`, 'iy'),
    })),
  ]),
) as Record<Shape, { action: GatedAction; re: RegExp }[]>;

/** The actions `text` names, in `shape`, when all of it is a list of them; undefined otherwise. */
export function readActions(text: string, shape: Shape): GatedAction[] | undefined {
  const found: GatedAction[] = [];
  let at = 0;
  while (at < text.length) {
    let best: { action: GatedAction; end: number } | undefined;
    for (const { action, re } of READERS[shape]) {
      re.lastIndex = at;
      const m = re.exec(text);
      if (m && (!best || at + m[0].length > best.end)) best = { action, end: at + m[0].length };
    }
    if (!best || best.end === at) return undefined;
    found.push(best.action);
    at = best.end;
    if (at === text.length) break;
    SEPARATOR.lastIndex = at;
    const sep = SEPARATOR.exec(text);
    if (!sep) return undefined;
    at += sep[0].length;
  }
  return found.length > 0 ? found : undefined;
}
