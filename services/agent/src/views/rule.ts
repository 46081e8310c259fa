// How rules read back: each sentence with its class, and its gate (as JSON)
// or the reason it is guidance.
import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { rules } from '@wap/proto';
import type { CompiledRule } from '../domain/rules/compile.js';

export const toRule = (r: CompiledRule) =>
  create(rules.RuleSchema, {
    text: r.text,
    ruleClass: r.class,
    gateJson: r.gate ? JSON.stringify(r.gate) : '',
    reason: r.reason ?? '',
  });

export const toRuleSet = (set: { rules: CompiledRule[]; updatedAt: Date } | null) => ({
  rules: (set?.rules ?? []).map(toRule),
  updatedAt: set ? timestampFromDate(set.updatedAt) : undefined,
});
