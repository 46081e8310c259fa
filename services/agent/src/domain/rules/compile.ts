// The rules compiler: a workspace rule, one plain English sentence, becomes
// ENFORCED with the gate it compiles to, or GUIDANCE (told to the model only)
// with the reason it could not be compiled. Pure and deterministic: a sentence
// compiles the same way whatever list it is in and in whatever order, and no
// input throws. Sentence forms: forms.ts; reading entities: sentence.ts.
import { matchForms } from './forms.js';
import { type Gate, parseGate } from './gate.js';
import { type Reading, readSentence } from './sentence.js';

export interface CompiledRule {
  /** The sentence as the workspace wrote it. */
  text: string;
  class: 'ENFORCED' | 'GUIDANCE';
  /** ENFORCED only: what the dispatcher checks (check.ts). */
  gate?: Gate;
  /** GUIDANCE only: why no gate holds it, in words for the person who wrote it. */
  reason?: string;
}

// Ways of saying the same thing, brought to one: every negation is "never",
// "may only" is "only", politeness and the subject go.
const REWRITES: [RegExp, string][] = [
  [/\b(?:i|we) (?:do not|don't|dont) want (?:you|the agent) to\b/gi, 'never'],
  [/\b(?:i|we) want (?:you|the agent) to\s*/gi, ''],
  [/^(?:(?:please|important|rule|note|remember(?: to)?|make sure(?: that)?|ensure(?: that)?)\b[:,]?\s*)+/i, ''],
  [/^(?:you|the agent|agents|the assistant|the bot|we)\s+/i, ''],
  [/\balways\s+/gi, ''],
  [
    /\b(?:never ever|(?:must|should|shall|will|may|can) never|under no circumstances(?: should you| may you| will you| are you to)?|at no (?:time|point)(?: should you| may you)?)\b/gi,
    'never',
  ],
  [
    /\b(?:do not|don't|dont|does not|doesn't|must not|mustn't|should not|shouldn't|shall not|may not|cannot|can not|can't|will not|won't|are not allowed to|is not allowed to|are never allowed to|not allowed to|are forbidden (?:to|from)|is forbidden (?:to|from))(?![\w'])/gi,
    'never',
  ],
  [/\b(?:must|should|may|can|shall|will)\s+only\b/gi, 'only'],
  [/\b(?:are|is)\s+only\s+(?:allowed|permitted)\s+to\b/gi, 'only'],
  [/\b(?:are|is)\s+(?:allowed|permitted)\s+to\s+only\b/gi, 'only'],
  [/\bonly ever\b/gi, 'only'],
  [/^(?:must|should|shall|will|have to|need to)\s+/i, ''],
  [/\bplease\s+/gi, ''],
  [/\bnever(?:,?\s+never)+\b/gi, 'never'],
  [/\s+/g, ' '],
];

const rewrite = (clause: string) => REWRITES.reduce((s, [re, to]) => s.replace(re, to), clause).trim();

const CLAUSE_BREAK =
  /\s*;\s*|\.\s+|,?\s+but\s+(?:also\s+)?|,?\s+(?:and|also|and also|then)\s+(?=(?:never|only|always|ask|spend|stay|keep|use|visit|take|make|get|check|limit|no|do|don't)\b)/i;
const PREFERENCE =
  /\b(prefer(?:ably|red)?|avoid|try (?:not )?to|ideally|if (?:at all )?possible|where possible|when possible|whenever possible|as (?:much|little) as possible|when you can|if you can|rather|generally|usually|typically)\b/i;
const CONDITION =
  /\b(unless|except (?:when|if)|if|when|whenever|while|until|as long as|provided(?: that)?|in case|during)\b/i;
const SITE_WORDS =
  /\b(visit|browse|go to|navigate|open|access|sites?|websites?|domains?|pages?|buy from|shop at|purchase from)\b/i;
const ACTION_WORDS =
  /\b(buy|purchase|order|pay|shop|submit|post|download|upload|attach|secrets?|passwords?|credentials?|approval)\b/i;
const SPEND_WORDS = /\b(spend|spending|budget|cost|costs|pay|price|limit|cap|exceed|credits?)\b/i;

const guidance = (text: string, reason: string): CompiledRule => ({ text, class: 'GUIDANCE', reason });

/** Two gates one sentence holds that cannot both be meant. */
function contradiction(a: Gate, b: Gate): string | undefined {
  for (const [x, y] of [
    [a, b],
    [b, a],
  ] as const) {
    if (x.kind === 'domain_allow' && y.kind === 'domain_deny') {
      const both = x.domains.filter((d) => y.domains.includes(d));
      if (both.length > 0) return `it contradicts itself: ${both.join(', ')} is both allowed and forbidden`;
    }
    if (x.kind === 'merchant_allow' && y.kind === 'merchant_deny') {
      const both = x.merchants.filter((m) => y.merchants.includes(m));
      if (both.length > 0)
        return `it contradicts itself: ${both.join(', ')} is both an allowed and a forbidden merchant`;
    }
    if (x.kind === 'forbid' && y.kind === 'approval' && !x.domains && x.actions.some((t) => y.actions.includes(t)))
      return 'it contradicts itself: it forbids an action and asks approval for it';
  }
  return undefined;
}

/** What the sentence names, for a reason: its domains and amounts. */
function named(r: Reading): string[] {
  const money = r.money.flatMap((m) => ('why' in m ? [] : [`${m.amount} ${m.currency}`]));
  const all = [...new Set([...r.domains, ...money, ...r.credits.map((c) => `${c} credits`)])];
  return all.length > 5 ? [...all.slice(0, 5), '…'] : all;
}

/** Why no form matched `text`, and whether a model may still be asked for a gate. */
function unmatched(text: string, r: Reading): { reason: string; proposable: boolean } {
  const preference = PREFERENCE.exec(text);
  if (preference)
    return { reason: `it states a preference ("${preference[1]}"), not a limit a gate can hold`, proposable: false };
  const condition = CONDITION.exec(text);
  if (condition) return { reason: `it has a condition ("${condition[1]}") that no gate can check`, proposable: false };
  const things = named(r);
  if (r.money.length + r.credits.length === 0 && r.counts.length > 0 && SPEND_WORDS.test(text))
    return { reason: 'its amount has no currency or unit: write $50, 50 EUR or 50 credits', proposable: false };
  if (things.length === 0 && SITE_WORDS.test(text))
    return { reason: "it names no domain: write the site's domain, such as example.com", proposable: false };
  const action = ACTION_WORDS.exec(text);
  if (things.length === 0 && action)
    return {
      reason: `it names an action ("${action[1]}") but no gate form matches: a gate holds an action everywhere or on named domains`,
      proposable: true,
    };
  if (things.length > 0)
    return { reason: `it names ${things.join(', ')}, but no gate form matches the sentence`, proposable: true };
  return { reason: 'no gate form matches: it names no domain, amount or action a gate can check', proposable: true };
}

/** A rule split at its clauses ("…; …", "… but …", "… and never …"): why it is guidance, if it holds more than one. */
function clauses(text: string, r: Reading): string | undefined {
  const parts = text.split(CLAUSE_BREAK).filter(Boolean).map(rewrite);
  if (parts.length < 2) return undefined;
  const built = parts.map((p) => matchForms(p, r));
  const unclear = built.find((b) => b !== undefined && 'why' in b);
  if (unclear && 'why' in unclear) return unclear.why;
  const gates = built.filter((b): b is Gate => b !== undefined && 'kind' in b);
  for (let i = 0; i < gates.length; i++)
    for (let j = i + 1; j < gates.length; j++) {
      const clash = contradiction(gates[i]!, gates[j]!);
      if (clash) return clash;
    }
  if (gates.length === parts.length) return 'it holds more than one rule: write each as its own sentence';
  if (gates.length > 0) return 'only part of it is a rule a gate can hold: write each rule as its own sentence';
  return undefined;
}

/**
 * The compiled rule, and whether a model may still propose a gate for it
 * (propose.ts): only when no form matched for want of words, never for a
 * sentence that is hostile, ambiguous, conditional or self-contradictory.
 */
export function compileSentence(sentence: string): { rule: CompiledRule; proposable: boolean } {
  const text = typeof sentence === 'string' ? sentence : '';
  try {
    return compileText(text, sentence);
  } catch {
    // A sentence no form was written for must not take the caller down with it.
    return { rule: guidance(text, 'the compiler could not read it'), proposable: false };
  }
}

function compileText(text: string, sentence: string): { rule: CompiledRule; proposable: boolean } {
  const read = readSentence(sentence);
  if ('problem' in read) return { rule: guidance(text, read.problem), proposable: false };
  const r = read.reading;
  const whole = rewrite(r.text);
  const built = matchForms(whole, r);
  if (built && 'why' in built) return { rule: guidance(text, built.why), proposable: false };
  if (built) {
    const parsed = parseGate(built);
    if ('error' in parsed)
      return { rule: guidance(text, `its gate is out of range (${parsed.error})`), proposable: false };
    return { rule: { text, class: 'ENFORCED', gate: parsed.gate }, proposable: false };
  }
  const split = clauses(whole, r);
  if (split) return { rule: guidance(text, split), proposable: false };
  const { reason, proposable } = unmatched(whole, r);
  return { rule: guidance(text, reason), proposable };
}

/** One sentence, compiled: ENFORCED with its gate, or GUIDANCE with the reason. Never throws. */
export const compileRule = (sentence: string): CompiledRule => compileSentence(sentence).rule;

/** Each sentence compiled on its own: the result for one never depends on the others or their order. */
export const compileRules = (sentences: readonly string[]): CompiledRule[] => sentences.map((s) => compileRule(s));
