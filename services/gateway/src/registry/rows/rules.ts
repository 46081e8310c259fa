// Workspace rules (docs/secrets.md): plain sentences, each compiled into a
// gate the run loop enforces or kept as prompt guidance with the reason,
// served by the agent service. Both rows are free (docs/billing.md).
import type { rules } from '@wap/proto';
import { z } from 'zod';
import { capability } from '../types.js';
import { isoTime } from '../usage-shape.js';

const ruleObject = z.object({
  text: z.string().describe('The sentence as written (trimmed).'),
  class: z
    .enum(['ENFORCED', 'GUIDANCE'])
    .describe('`ENFORCED`: a gate blocks any action that breaks it; `GUIDANCE`: told to the model only.'),
  gate: z
    .record(z.string(), z.unknown())
    .nullable()
    .describe(
      'What an enforced rule compiled to (`kind`: domain_allow, domain_deny, forbid, approval, credit_cap, spend_cap, purchase_limit, merchant_allow, merchant_deny, secret_domains, max_steps, max_purchases); null for guidance.',
    ),
  reason: z.string().nullable().describe('Why a guidance rule could not be compiled into a gate; null when enforced.'),
});

const answer = z.object({
  success: z.literal(true),
  rules: z.array(ruleObject),
  updatedAt: z.string().nullable().describe('When they were last set; null before the first set.'),
});

function parseGate(text: string): Record<string, unknown> | null {
  if (!text) return null;
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return null;
  }
}

const toAnswer = (out: { rules: rules.Rule[]; updatedAt?: rules.GetRulesResponse['updatedAt'] }) => ({
  success: true as const,
  rules: out.rules.map((r) => ({
    text: r.text,
    class: (r.ruleClass === 'ENFORCED' ? 'ENFORCED' : 'GUIDANCE') as 'ENFORCED' | 'GUIDANCE',
    gate: parseGate(r.gateJson),
    reason: r.reason || null,
  })),
  updatedAt: isoTime(out.updatedAt),
});

export const rulesGetRow = capability({
  name: 'rules.get',
  method: 'get',
  path: '/v1/rules',
  tag: 'Rules',
  summary: "The workspace's rules",
  description:
    'Each sentence as last set, with its class (`ENFORCED` with its gate, `GUIDANCE` with the reason). Free.',
  backend: 'agent',
  bills: [],
  mcpTool: 'service_rules_get',
  request: {},
  response: answer,
  errors: [],
  handler: async ({ principal, upstreams, signal }) =>
    toAnswer(await upstreams.rules.getRules({ workspaceId: principal.workspaceId }, { signal })),
});

export const rulesSetRow = capability({
  name: 'rules.set',
  method: 'put',
  path: '/v1/rules',
  tag: 'Rules',
  summary: "Replace the workspace's rules",
  description:
    "Replaces every rule of the workspace with these plain sentences (an empty list removes them all) and answers how each was classified: `ENFORCED`, compiled into a gate that every run's dispatcher checks before each action, or `GUIDANCE`, given to the model as an instruction only, with the reason no gate holds it. A sentence classifies the same way every time. Runs submitted after the set follow the new rules. Free.",
  backend: 'agent',
  bills: [],
  mcpTool: 'service_rules_set',
  request: {
    body: z.strictObject({
      rules: z
        .array(z.string().min(1).max(500))
        .max(100)
        .describe('One rule per sentence, e.g. "Only visit example.com" or "Never spend more than 50 EUR".'),
    }),
  },
  example: { rules: ['Only visit example.com and example.org', 'Never download files', 'Be polite'] },
  response: answer,
  errors: [],
  handler: async ({ principal, upstreams, signal }, { body }) =>
    toAnswer(await upstreams.rules.setRules({ workspaceId: principal.workspaceId, sentences: body.rules }, { signal })),
});
