// The sentence forms the compiler knows, one regular expression over a whole
// clause each (after rewrite: "do not", "must not", "don't" are all "never";
// "may only" is "only"), with the gate it builds. A form matches the whole
// clause or not at all, so words it does not know leave a sentence guidance
// instead of stretching a gate over them.
import { readActions } from './actions.js';
import { type Gate, merchantName } from './gate.js';
import { marksIn, type Reading } from './sentence.js';

type Groups = Record<string, string | undefined>;
/** A gate, a reason the clause cannot be one (an ambiguous currency), or undefined: not this form. */
type Built = Gate | { why: string } | undefined;
interface Form {
  re: RegExp;
  build: (g: Groups, r: Reading) => Built;
}

// Placeholders (sentence.ts) and lists of them: "a.com, b.com and c.com".
const ref = (kind: string) => `\\uE000${kind}\\d+\\uE001`;
const SEP = '(?:\\s*,\\s*(?:(?:and|or|nor|&)\\s+)?|\\s+(?:and|or|nor|&)\\s+|\\s*/\\s*)';
const DOMAINS = `(?<d>${ref('d')}(?:${SEP}${ref('d')})*)`;
const MONEY = `(?<m>${ref('m')})`;
const AMOUNT = `(?:${MONEY}|(?<c>${ref('c')}))`;
const COUNT = `(?<n>${ref('n')})`;

const SITE = '(?:web ?)?(?:sites?|pages?|domains?|urls?|links?|addresses)';
const ANY = '(?:(?:any|a|an|the|all|other|of the|of)\\s+)*';
const ON = '(?:on|at|of|under|from|in|within|across)';
/** "the site", "any pages on", "anything from": what may stand before a domain list. */
const TARGET = `(?:${ANY}(?:${SITE}|anything|content)(?:\\s+${ON})?\\s+)?`;
const SITES = `${TARGET}${DOMAINS}(?:\\s+${SITE})?`;
const VISIT = '(?:visit|browse|go|navigate|open|access|load|use|surf|view|read)(?:\\s+(?:to|on|onto|into))?';
const EXCEPT = '(?:except(?: for)?|but|other than|besides|apart from|outside(?: of)?|beyond|not on)';
const CAP =
  '(?:at most|no more than|not more than|up to|a maximum of|maximum|max|less than|under|below|within|only|a total of)';
const EXCEED = '(?:more than|over|above|in excess of|beyond|upwards of)';
const RUN = '(?:run|task|job|session)';
const BUY_NOUN = '(?:purchase|order|item|transaction|checkout|payment)';
const PER_RUN = `(?:(?:per|each|a|every|in (?:a|one|the|each|any)|for (?:a|the|each|one|any)|on (?:a|the|each|one|any)) (?:single )?${RUN}|(?:in )?total|overall|altogether|in all|across the run)`;
const PER_BUY = `(?:(?:per|each|a|every|on (?:a|any|one|each)|for (?:a|any|one|each)|in (?:a|any|one)) (?:single )?${BUY_NOUN})`;
const SCOPE = `(?: (?:${PER_RUN}|(?<buy>${PER_BUY})))?`;
const ASK = `(?:ask(?: me| the user| a human| for (?:my |the user's |human |explicit )?(?:approval|permission|confirmation|consent|ok|go-ahead|sign-?off))*|get (?:my |the user's |human |explicit )?(?:approval|permission|confirmation|consent|ok|go-ahead|sign-?off)|(?:check|confirm) with (?:me|the user)|wait for (?:my |the user's )?(?:approval|confirmation|ok|go-ahead)|(?:require|request|seek|obtain) (?:my |the user's |human |explicit )?(?:approval|confirmation|permission|consent))(?: first)?`;
const WITHOUT = `without (?:asking(?: me| the user)?|checking with me|(?:my |the user's |explicit )?(?:approval|permission|confirmation|consent|ok|go-ahead|sign-?off))(?: first)?`;
const OVER = `(?: (?:over|above|exceeding|of more than|more than|costing more than|that costs? more than|worth more than) ${MONEY})?`;
const ACTS_ON = `(?<acts>.+?)(?: (?:on|at|to|from|in|into|via) ${TARGET}${DOMAINS})?`;
const SECRET_WORDS = '(?:secrets?|passwords?|credentials?|api keys?|tokens?|logins?|secret handles?)';
const SECRETS = `(?:(?:(?:the|my|our|your) )?(?:(?:secret|handle|credential|password|token|key|login)s? (?:named |called )?)?(?<h>${ref('h')})|(?:(?:a|an|any|the|my|our|your|all|stored|saved) )*${SECRET_WORDS})`;
const FILL = '(?:use|fill(?: in)?|enter|type|paste|send|share|reveal|put|submit)';
const IN = '(?:on|at|in|for|with|into|to)';
const OWN = `(?:(?:their|its) own ${SITE}|the ${SITE} (?:it|they) (?:is|are|was|were) (?:registered|made|created|set up|meant|saved|intended) for)`;
const MERCHANT_WORD = '(?:merchants|stores|shops|sellers|vendors)';
const BUY = '(?:buy|purchase|order|shop|pay)(?: (?:anything|things|items|products|goods|stuff))?';

const domainsOf = (g: Groups, r: Reading) => marksIn(g.d ?? '', 'd').map((i) => r.domains[i]!);
const countOf = (g: Groups, r: Reading) => r.counts[marksIn(g.n ?? '', 'n')[0]!]!;

const allow = (g: Groups, r: Reading): Gate => ({ kind: 'domain_allow', domains: domainsOf(g, r) });
const deny = (g: Groups, r: Reading): Gate => ({ kind: 'domain_deny', domains: domainsOf(g, r) });

/** A spend limit: credits or money, for the run or each purchase. */
function spend(g: Groups, r: Reading, eachPurchase = g.buy !== undefined): Built {
  if (g.c) return eachPurchase ? undefined : { kind: 'credit_cap', credits: r.credits[marksIn(g.c, 'c')[0]!]! };
  const money = r.money[marksIn(g.m ?? '', 'm')[0]!]!;
  if ('why' in money) return money;
  return { kind: eachPurchase ? 'purchase_limit' : 'spend_cap', ...money };
}

/** Actions forbidden, on domains or anywhere; purchases on domains are a merchant deny-list. */
function forbid(g: Groups, r: Reading, shape: 'verb' | 'noun'): Built {
  const actions = readActions(g.acts ?? '', shape);
  if (!actions) return undefined;
  const domains = g.d ? domainsOf(g, r) : undefined;
  if (domains && actions.length === 1 && actions[0] === 'purchase')
    return { kind: 'merchant_deny', merchants: domains };
  return { kind: 'forbid', actions, ...(domains && { domains }) };
}

function approval(g: Groups, r: Reading, shape: 'verb' | 'gerund' | 'noun'): Built {
  const actions = readActions(g.acts ?? '', shape);
  if (!actions) return undefined;
  let over: Gate | { why: string } | undefined;
  if (g.m) {
    if (actions.length !== 1 || actions[0] !== 'purchase') return undefined;
    over = spend(g, r, true);
    if (over && 'why' in over) return over;
  }
  return {
    kind: 'approval',
    actions,
    ...(g.d && { domains: domainsOf(g, r) }),
    ...(over &&
      'kind' in over &&
      over.kind === 'purchase_limit' && { over: { amount: over.amount, currency: over.currency } }),
  };
}

/** A word of a merchant's name: a capital or a digit in it ("Amazon", "eBay", "7-Eleven"), not "trusted" or "stores". */
const isNameWord = (word: string) => /^[\p{L}\p{N}&'.-]+$/u.test(word) && /[\p{Lu}\p{N}]/u.test(word);

/** Merchants by domain placeholder or by a name in capitals ("Best Buy"); undefined if any item is neither. */
function merchants(g: Groups, r: Reading): string[] | undefined {
  const items = (g.who ?? '').split(new RegExp(SEP, 'i'));
  const out: string[] = [];
  for (const raw of items) {
    const item = raw.trim().replace(/^the /i, '');
    const domain = /^\uE000d(\d+)\uE001$/.exec(item);
    if (domain) out.push(r.domains[Number(domain[1])]!);
    else if (item.length <= 60 && item.split(' ').length <= 5 && item.split(' ').every(isNameWord))
      out.push(merchantName(item));
    else return undefined;
  }
  return out;
}

const secret = (g: Groups, r: Reading, domains: string[] | 'own'): Gate => ({
  kind: 'secret_domains',
  ...(g.h && { handle: r.handles[marksIn(g.h, 'h')[0]!]! }),
  domains,
});

const secretOn = (g: Groups, r: Reading) => secret(g, r, domainsOf(g, r));
const secretOwn = (g: Groups, r: Reading) => secret(g, r, 'own');
const perPurchase = (g: Groups, r: Reading) => spend(g, r, true);
const steps = (g: Groups, r: Reading): Gate => ({ kind: 'max_steps', steps: countOf(g, r) });
const purchases = (g: Groups, r: Reading): Gate => ({ kind: 'max_purchases', purchases: countOf(g, r) });

const form = (pattern: string, build: Form['build']): Form => ({ re: new RegExp(`^${pattern}$`, 'i'), build });
const gated = (kind: 'merchant_allow' | 'merchant_deny') => (g: Groups, r: Reading) => {
  const list = merchants(g, r);
  return list && ({ kind, merchants: list } as Gate);
};

/** In order: the first form that builds something decides the clause. */
export const FORMS: Form[] = [
  // Secrets before visits: "only use the secret x on example.com" is not "only use example.com".
  form(`only ${FILL} ${SECRETS} ${IN} ${OWN}`, secretOwn),
  form(
    `never ${FILL} ${SECRETS} (?:outside(?: of)? ${OWN}|${IN} (?:a|any) ${SITE} (?:it|they) (?:is|are|was|were) not (?:registered|made|created|set up|meant|saved|intended) for)`,
    secretOwn,
  ),
  form(`only ${FILL} ${SECRETS} ${IN} ${SITES}`, secretOn),
  form(`${FILL} ${SECRETS} only ${IN} ${SITES}`, secretOn),
  form(`${SECRETS} only be (?:used|filled(?: in)?|entered|typed|sent|shared) ${IN} ${SITES}`, secretOn),
  form(
    `never ${FILL} ${SECRETS} (?:${IN} )?(?:anywhere|${ANY}${SITE})? ?(?:else )?${EXCEPT}(?: (?:on|at|in))? ${SITES}`,
    secretOn,
  ),

  // Merchants.
  form(`only ${BUY} (?:from|at|on|with|through) (?<who>.+)`, gated('merchant_allow')),
  form(`${BUY} only (?:from|at|on|with|through) (?<who>.+)`, gated('merchant_allow')),
  form(
    `(?:purchases?|orders?|shopping|buying) (?:are |is )?(?:only (?:allowed|permitted)|(?:allowed|permitted) only) (?:from|at|on|with) (?<who>.+)`,
    gated('merchant_allow'),
  ),
  form(`(?:allowed|approved|permitted|trusted) ${MERCHANT_WORD}(?:\\s*:| are| is) (?<who>.+)`, gated('merchant_allow')),
  form(`never ${BUY} (?:from|at|on|with|through) (?<who>.+)`, gated('merchant_deny')),
  form(`(?:blocked|banned|forbidden) ${MERCHANT_WORD}(?:\\s*:| are| is) (?<who>.+)`, gated('merchant_deny')),

  // Domains a run may be on.
  form(`only ${VISIT} ${SITES}`, allow),
  form(`${VISIT} only ${SITES}`, allow),
  form(`${VISIT} ${SITES} only`, allow),
  form(`(?:stay|remain|keep|browse|work)(?: only)? (?:on|within|inside|in) ${SITES}(?: only)?`, allow),
  form(
    `never (?:leave|exit|(?:go|navigate|browse|step|wander) (?:outside(?: of)?|beyond|away from|off)|stray from) ${SITES}`,
    allow,
  ),
  form(`never ${VISIT} (?:${ANY}(?:${SITE}|anything)|anywhere)(?: else)? ${EXCEPT} ${SITES}`, allow),
  form(
    `(?:restrict|limit|confine) (?:(?:all |your |the agent's )?(?:browsing|navigation|visits|yourself|the agent|the run|runs|access)) to ${SITES}(?: only)?`,
    allow,
  ),
  form(`only ${DOMAINS} (?:is|are) (?:allowed|permitted)`, allow),
  form(`${DOMAINS} (?:is|are) the only (?:allowed |permitted )?${SITE}(?: (?:allowed|permitted))?`, allow),
  form(`(?:allowed|permitted|approved|allow-?listed|whitelisted) ${SITE}(?:\\s*:| are| is) ${DOMAINS}`, allow),

  // Domains a run may not be on.
  form(`never ${VISIT} ${SITES}`, deny),
  form(`(?:stay|keep) (?:away from|off) ${SITES}`, deny),
  form(
    `${DOMAINS} (?:is|are) (?:off[- ]limits|forbidden|blocked|banned|prohibited|not allowed|disallowed|out of bounds)`,
    deny,
  ),
  form(
    `(?:blocked|forbidden|banned|prohibited|disallowed|denied|deny-?listed|blacklisted) ${SITE}(?:\\s*:| are| is) ${DOMAINS}`,
    deny,
  ),
  form(`(?:visit|browse|use|go to) (?:${ANY}(?:${SITE}|anything)|anywhere) ${EXCEPT} ${SITES}`, deny),
  form(`no (?:visits?|browsing|access|navigation|going) (?:to|on|of) ${SITES}`, deny),

  // Approval before actions.
  form(`${ASK} (?:before|prior to) ${ACTS_ON}${OVER}`, (g, r) => approval(g, r, 'gerund') ?? approval(g, r, 'noun')),
  form(`never ${ACTS_ON}${OVER} ${WITHOUT}`, (g, r) => approval(g, r, 'verb')),
  form(
    `(?:(?:every|each|any|all) )?${ACTS_ON}${OVER} (?:need|needs|require|requires|must (?:have|get)) (?:my |the user's |human |explicit )?(?:approval|confirmation|permission|sign-?off)`,
    (g, r) => approval(g, r, 'noun'),
  ),
  form(
    `(?:(?:every|each|any|all) )?${ACTS_ON}${OVER} (?:(?:must|should|has to|have to|needs? to) )?be (?:approved|confirmed)(?: by (?:me|the user|a human))?(?: first| beforehand| in advance)?`,
    (g, r) => approval(g, r, 'noun'),
  ),

  // Spending.
  form(`(?:spend|use|consume|pay) ${CAP} ${AMOUNT}${SCOPE}`, spend),
  form(`never (?:spend|use|consume|pay|burn(?: through)?) ${EXCEED} ${AMOUNT}${SCOPE}`, spend),
  form(`never (?:exceed|go over|go above|surpass) ${AMOUNT}${SCOPE}`, spend),
  form(
    `(?:keep|limit|cap|hold) (?:(?:the |your |total |overall |all )*(?:spending|spend|costs?|expenses|budget|usage|credit usage) )?(?:to|under|below|at|within) ${AMOUNT}${SCOPE}`,
    spend,
  ),
  form(
    `(?:the )?(?:(?:total|overall|maximum|max|run) )?(?:budget|spending limit|spend limit|spending cap|credit limit|spending|spend)(?: ${PER_RUN})?(?: is|:| of)? ${AMOUNT}(?: ${PER_RUN})?`,
    spend,
  ),
  form(
    `(?:total |overall )?(?:spending|spend|costs?|expenses|credit usage|usage)(?: ${PER_RUN})? (?:never (?:exceed|go over|be (?:more|greater|higher) than|be above|be over|surpass)|(?:is|are) (?:capped|limited) (?:at|to)|(?:must |should )?stay (?:under|below|within))s? ${AMOUNT}`,
    spend,
  ),
  form(
    `(?:each|every|any|a|one|a single|any single) (?:single )?${BUY_NOUN}s? (?:(?:must|should|may|can|will) )?(?:cost|be|total|come to|amount to)? ?${CAP} ${MONEY}`,
    perPurchase,
  ),
  form(
    `(?:no|never) (?:single )?${BUY_NOUN}s? (?:(?:may|can|should|must) )?(?:over|above|exceeding|of more than|more than|costing more than|that costs? more than|worth more than|exceeds?|be (?:over|above|more than)) ${MONEY}`,
    perPurchase,
  ),
  form(
    `never (?:buy|purchase|order|pay for) (?:anything|something|items?|products?|any(?:thing)?)(?: (?:that (?:costs?|is)|costing|priced at|for|worth))? (?:more than|over|above|exceeding) ${MONEY}`,
    perPurchase,
  ),
  form(
    `never (?:make|place) (?:a|an|any) (?:purchase|order)s? (?:over|above|of more than|more than|exceeding|worth more than) ${MONEY}`,
    perPurchase,
  ),
  form(`(?:limit|cap) (?:each|every|any|a single|single) ${BUY_NOUN}s? (?:to|at) ${MONEY}`, perPurchase),

  // Counts.
  form(`(?:take|use|make|run|do) ${CAP} ${COUNT} steps?(?: ${PER_RUN})?`, steps),
  form(`never (?:take|use|make|run|do|go beyond|exceed) (?:${EXCEED} )?${COUNT} steps?(?: ${PER_RUN})?`, steps),
  form(`stop (?:after|at) ${COUNT} steps?`, steps),
  form(
    `(?:limit|cap) (?:(?:each |every |the )?(?:run|runs|task|yourself|the agent) )?(?:to|at) ${COUNT} steps?`,
    steps,
  ),
  form(
    `(?:(?:max|maximum|at most|no more than) ${COUNT} steps?|(?:max|maximum) steps?:? ${COUNT}|(?:the )?step limit(?: is|:)? ${COUNT})(?: ${PER_RUN})?`,
    steps,
  ),
  form(`(?:make|place|do|complete) ${CAP} ${COUNT} (?:purchases?|orders?)(?: ${PER_RUN})?`, purchases),
  form(`never (?:make|place|complete) ${EXCEED} ${COUNT} (?:purchases?|orders?)(?: ${PER_RUN})?`, purchases),
  form(`(?:max|maximum|at most|no more than) ${COUNT} (?:purchases?|orders?)(?: ${PER_RUN})?`, purchases),

  // Actions forbidden (last: its list of actions is the loosest slot).
  form(`never ${ACTS_ON}`, (g, r) => forbid(g, r, 'verb')),
  form(`no ${ACTS_ON}`, (g, r) => forbid(g, r, 'noun')),
  form(
    `(?<acts>.+?) (?:is|are) (?:not allowed|forbidden|prohibited|banned|disabled|off[- ]limits)(?: (?:on|at) ${TARGET}${DOMAINS})?`,
    (g, r) => forbid(g, r, 'noun'),
  ),
];

/** The gate the first matching form builds for `clause`, a reason it cannot, or undefined when no form matches. */
export function matchForms(clause: string, r: Reading): Gate | { why: string } | undefined {
  for (const { re, build } of FORMS) {
    const m = re.exec(clause);
    if (!m) continue;
    const built = build(m.groups ?? {}, r);
    if (built) return built;
  }
  return undefined;
}
