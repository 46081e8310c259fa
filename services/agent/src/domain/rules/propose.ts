// A gate a model proposes for a sentence the pattern compiler left as
// guidance for want of a form. A proposal is taken only when it validates
// strictly against the gate schema and names nothing the sentence does not (a
// domain, an amount, an action); and every decision is cached by the
// normalised sentence, so once proposed, the same sentence classifies the same
// way every time. Sentences the compiler settled (enforced, hostile,
// ambiguous, conditional, self-contradictory) are never sent. The proposer
// is given: the model's is clients/gate-proposer.ts.
import { createHash } from 'node:crypto';
import { domainToUnicode } from 'node:url';
import { z } from 'zod';
import { type CompiledRule, compileSentence } from './compile.js';
import { type Gate, type GatedAction, parseGate } from './gate.js';

/** Asks something (a model, a script in a test) for a gate for one sentence: `{ gate: Gate | null }`, unvalidated. */
export type GateProposer = (sentence: string) => Promise<unknown>;

/** Where decided proposals are kept, by `proposalKey`. */
export interface ProposalCache {
  get(key: string): Promise<CompiledRule | undefined>;
  put(key: string, rule: CompiledRule): Promise<void>;
}

/** Raised when the gate schema or the prompt changes, so proposals made under the old ones are asked again. */
export const PROPOSAL_VERSION = 1;

const normalised = (sentence: string) =>
  sentence
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[‘’]/g, "'")
    .replace(/[“”]/g, '"')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/[\s.!]+$/, '');

/** The cache key of a sentence: its case, spacing and final full stop do not count. */
export const proposalKey = (sentence: string): string =>
  `rules:v${PROPOSAL_VERSION}:${createHash('sha256').update(normalised(sentence)).digest('hex').slice(0, 32)}`;

const ACTION_WORDS: Record<GatedAction, RegExp> = {
  purchase: /\b(buy|purchas|order|pay|spend|shop|check ?out|merchant|store)/,
  submit: /\b(submit|form|post|send)/,
  download: /\bdownload/,
  upload: /\b(upload|attach)/,
  fill_secret: /\b(secret|password|credential|token|key|login|handle)/,
};
const COUNT_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];

/** The first thing the gate names that the sentence does not; undefined when the sentence names all of it. */
function ungrounded(gate: Gate, sentence: string): string | undefined {
  const s = normalised(sentence);
  const digits = s.replace(/(\d),(?=\d{3})/g, '$1');
  const says = (text: string) => s.includes(text);
  const number = (n: number, words = false) =>
    new RegExp(`(?<![\\d.])${n}(?:\\.0+)?(?![\\d])`).test(digits) ||
    (words && COUNT_WORDS[n] !== undefined && new RegExp(`\\b${COUNT_WORDS[n]}\\b`).test(s));
  const names: { what: string; found: boolean }[] = [];
  const domain = (d: string) => d.replace(/^\*\./, '');
  if ('domains' in gate && Array.isArray(gate.domains))
    for (const d of gate.domains) names.push({ what: d, found: says(domain(d)) || says(domainToUnicode(domain(d))) });
  if ('merchants' in gate) for (const m of gate.merchants) names.push({ what: m, found: says(m) });
  if ('handle' in gate && gate.handle) names.push({ what: gate.handle, found: sentence.includes(gate.handle) });
  if ('actions' in gate) for (const a of gate.actions) names.push({ what: a, found: ACTION_WORDS[a].test(s) });
  if (gate.kind === 'spend_cap' || gate.kind === 'purchase_limit')
    names.push({ what: String(gate.amount), found: number(gate.amount) });
  if (gate.kind === 'approval' && gate.over)
    names.push({ what: String(gate.over.amount), found: number(gate.over.amount) });
  if (gate.kind === 'credit_cap') names.push({ what: String(gate.credits), found: number(gate.credits) });
  if (gate.kind === 'max_steps') names.push({ what: String(gate.steps), found: number(gate.steps, true) });
  if (gate.kind === 'max_purchases') names.push({ what: String(gate.purchases), found: number(gate.purchases, true) });
  return names.find((n) => !n.found)?.what;
}

/** The verdict on what a proposer answered: a gate the sentence names, or guidance with why not. */
function judge(sentence: string, answer: unknown): CompiledRule {
  const shape = z.strictObject({ gate: z.unknown() }).safeParse(answer);
  if (!shape.success) return { text: sentence, class: 'GUIDANCE', reason: 'the proposed gate did not validate' };
  if (shape.data.gate === null)
    return { text: sentence, class: 'GUIDANCE', reason: 'no gate form matches, and the model proposed none' };
  const parsed = parseGate(shape.data.gate);
  if ('error' in parsed) return { text: sentence, class: 'GUIDANCE', reason: 'the proposed gate did not validate' };
  const missing = ungrounded(parsed.gate, sentence);
  if (missing)
    return {
      text: sentence,
      class: 'GUIDANCE',
      reason: `the proposed gate names ${missing}, which the sentence does not`,
    };
  return { text: sentence, class: 'ENFORCED', gate: parsed.gate };
}

/** A cached decision still valid under today's schema, or undefined. */
function reread(cached: CompiledRule | undefined, sentence: string): CompiledRule | undefined {
  if (!cached) return undefined;
  if (cached.class === 'GUIDANCE' && typeof cached.reason === 'string')
    return { text: sentence, class: 'GUIDANCE', reason: cached.reason };
  const parsed = cached.class === 'ENFORCED' ? parseGate(cached.gate) : undefined;
  return parsed && 'gate' in parsed ? { text: sentence, class: 'ENFORCED', gate: parsed.gate } : undefined;
}

/**
 * The sentence compiled, with a model's gate where the pattern compiler found
 * no form: from the cache when the sentence was decided before, else asked and
 * cached. A proposer that fails leaves the sentence guidance, uncached, so a
 * later call asks again.
 */
export async function proposeGate(
  sentence: string,
  proposer: GateProposer,
  cache: ProposalCache,
): Promise<CompiledRule> {
  const { rule, proposable } = compileSentence(sentence);
  if (!proposable) return rule;
  const key = proposalKey(sentence);
  const cached = reread(await cache.get(key), sentence);
  if (cached) return cached;
  let answer: unknown;
  try {
    answer = await proposer(sentence);
  } catch {
    return { ...rule, reason: `${rule.reason}; a model could not be asked for a gate` };
  }
  const decided = judge(sentence, answer);
  await cache.put(key, decided);
  return decided;
}
