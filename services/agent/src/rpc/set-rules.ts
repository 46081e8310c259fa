import type { rules } from '@wap/proto';
import { type CompiledRule, compileSentence } from '../domain/rules/compile.js';
import { proposeGate } from '../domain/rules/propose.js';
import { MAX_SENTENCE } from '../domain/rules/sentence.js';
import { toRuleSet } from '../views/rule.js';
import type { AgentRpcDeps } from './deps.js';
import { invalid } from './parse.js';

/** Rules one workspace may hold. */
export const MAX_RULES = 100;
/** How long all the model's proposals of one set may take; a sentence left unasked stays guidance, uncached. */
const PROPOSALS_MS = 20_000;

/**
 * rules.SetRules: replaces the workspace's rules with these sentences, each
 * compiled (ENFORCED with its gate, GUIDANCE with the reason); where no form
 * matches and a rules model is configured, the model's proposal decides, kept
 * per normalised sentence so it decides the same way next time.
 */
export function setRules({ rules: store, proposer }: AgentRpcDeps) {
  return async (req: rules.SetRulesRequest): Promise<rules.SetRulesResponse> => {
    if (!req.workspaceId) invalid('workspaceId', 'required');
    if (req.sentences.length > MAX_RULES) invalid('rules', `at most ${MAX_RULES}`);
    const sentences = req.sentences.map((s, i) => {
      const text = s.trim();
      if (!text) invalid(`rules.${i}`, 'empty');
      if (text.length > MAX_SENTENCE) invalid(`rules.${i}`, `longer than ${MAX_SENTENCE} characters`);
      return text;
    });
    const ask = proposer?.(AbortSignal.timeout(PROPOSALS_MS));
    const compiled: CompiledRule[] = [];
    // One at a time: a proposal is a model call, and the embedded model answers one call at a time.
    for (const s of sentences)
      compiled.push(ask ? await proposeGate(s, ask, store.proposals) : compileSentence(s).rule);
    return { $typeName: 'wap.agent.v1.SetRulesResponse', ...toRuleSet(await store.set(req.workspaceId, compiled)) };
  };
}
